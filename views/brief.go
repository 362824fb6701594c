package views

import (
	"regexp"
	"strings"

	"hearth/internal/contract"
	"hearth/models"
)

// briefPart is a run of the brief's text; Settled is set on a part that
// names an activity the owner has since settled.
type briefPart struct {
	Text    string
	Settled *models.BriefMention
}

// briefParts splits the brief's text at each first mention of a settled
// activity's title (any case), so the view strikes it and says its state.
func briefParts(text string, settled []models.BriefMention) []briefPart {
	type hit struct {
		start, end int
		m          *models.BriefMention
	}
	var hits []hit
	for i := range settled {
		m := &settled[i]
		loc := regexp.MustCompile("(?i)" + regexp.QuoteMeta(m.Title)).FindStringIndex(text)
		if loc == nil {
			continue
		}
		overlaps := false
		for _, h := range hits {
			if loc[0] < h.end && h.start < loc[1] {
				overlaps = true
			}
		}
		if !overlaps {
			hits = append(hits, hit{loc[0], loc[1], m})
		}
	}
	// In text order; a handful of hits, so insertion order is fine.
	for i := 1; i < len(hits); i++ {
		for j := i; j > 0 && hits[j].start < hits[j-1].start; j-- {
			hits[j], hits[j-1] = hits[j-1], hits[j]
		}
	}
	var parts []briefPart
	at := 0
	for _, h := range hits {
		if h.start > at {
			parts = append(parts, briefPart{Text: text[at:h.start]})
		}
		parts = append(parts, briefPart{Text: text[h.start:h.end], Settled: h.m})
		at = h.end
	}
	if at < len(text) {
		parts = append(parts, briefPart{Text: text[at:]})
	}
	return parts
}

// settledWord says in words how the owner settled an item the brief names.
func settledWord(state string) string {
	switch state {
	case models.StateCompleted:
		return "(done)"
	case models.StateSkipped:
		return "(skipped)"
	default:
		return "(" + state + ")"
	}
}

// jobWords names the job that wrote a publication in words: "the daily
// brief" for daily-brief; an unknown key reads as its words plus "job".
func jobWords(key string) string {
	switch key {
	case "daily-brief":
		return "the daily brief"
	case "messages":
		return "the messages run"
	case "requests":
		return "the requests run"
	case "routine-review":
		return "the routine review"
	case "":
		return "the agent"
	}
	return "the " + strings.NewReplacer("-", " ", "_", " ", ".", " ").Replace(key) + " job"
}

// briefBy is the publication the freshness line credits: the one that wrote
// the brief, else (no brief yet) the last one.
func briefBy(h models.HomeView) *contract.PublicationView {
	if h.BriefBy != nil {
		return h.BriefBy
	}
	return h.LastPublication
}
