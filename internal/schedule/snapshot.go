package schedule

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// ParseCanonical rebuilds a definition from its canonical serialisation, the
// ledger's approved snapshot. It is strict: the input must be exactly what
// Canonical writes for the definition it yields, so a damaged or hand-edited
// snapshot is an error rather than a different schedule.
func ParseCanonical(b []byte) (Definition, error) {
	var c canonicalDefinition
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Definition{}, fmt.Errorf("schedules: snapshot: %w", err)
	}
	if c.Format != CanonicalFormat {
		return Definition{}, fmt.Errorf("schedules: snapshot: format %q, want %q", c.Format, CanonicalFormat)
	}
	loc, err := LoadZone(c.Zone)
	if err != nil {
		return Definition{}, fmt.Errorf("schedules: snapshot: %w", err)
	}
	rule, err := ParseRule(RuleSpec{At: c.At, Cron: c.Cron, EndAt: c.EndAt}, loc)
	if err != nil {
		return Definition{}, fmt.Errorf("schedules: snapshot: %w", err)
	}
	d := Definition{ID: c.ID, Job: c.Job, Rule: rule, NotifyOnSuccess: c.NotifyOnSuccess, Prompt: c.Prompt,
		Limits: Limits{MaxInvocations: c.Limits.MaxInvocations, Deadline: time.Duration(c.Limits.DeadlineSeconds) * time.Second}}
	if err := d.Validate(); err != nil {
		return Definition{}, fmt.Errorf("schedules: snapshot: %w", err)
	}
	if !bytes.Equal(d.Canonical(), b) {
		return Definition{}, fmt.Errorf("schedules: snapshot of %q is not in canonical form", d.ID)
	}
	return d, nil
}

// Summary is a definition in a few words, so an owner can compare a changed
// file with what was approved at a glance.
type Summary struct {
	Job    string `json:"job"`
	Timing string `json:"timing"` // "at 2026-06-01T09:00:00+02:00" or "cron 30 6 * * * until …"
	Zone   string `json:"zone"`
	Limits string `json:"limits"` // "3 invocations, 10m each"
	Notify bool   `json:"notifyOnSuccess"`
	Prompt string `json:"prompt"` // the first line, shortened
}

// maxSummaryPrompt bounds Summary.Prompt, in characters.
const maxSummaryPrompt = 120

// Summarize describes d briefly.
func (d Definition) Summarize() Summary {
	s := Summary{Job: d.Job, Notify: d.NotifyOnSuccess,
		Limits: fmt.Sprintf("%d invocations, %s each", d.Limits.MaxInvocations, formatDeadline(d.Limits.Deadline))}
	if d.Rule.loc != nil {
		s.Zone = d.Rule.loc.String()
	}
	switch {
	case d.Rule.OneOff() && !d.Rule.at.IsZero():
		s.Timing = "at " + d.Rule.at.In(zoneOr(d.Rule.loc)).Format(time.RFC3339)
	case !d.Rule.OneOff():
		s.Timing = "cron " + d.Rule.cron
		if !d.Rule.endAt.IsZero() {
			s.Timing += " until " + d.Rule.endAt.In(zoneOr(d.Rule.loc)).Format(time.RFC3339)
		}
	}
	line, _, _ := strings.Cut(strings.TrimSpace(d.Prompt), "\n")
	line = strings.TrimSpace(line)
	if utf8.RuneCountInString(line) > maxSummaryPrompt {
		line = string([]rune(line)[:maxSummaryPrompt]) + "…"
	}
	s.Prompt = line
	return s
}

// Change is one field where two summaries differ.
type Change struct {
	Field    string `json:"field"`
	Approved string `json:"approved"`
	File     string `json:"file"`
	// From and To are the approved and the file's definitions, so a page
	// can word the change for the owner; the API keeps the strings above.
	From Definition `json:"-"`
	To   Definition `json:"-"`
}

// Changes lists the fields of file that differ from approved, in the order
// an owner reads a definition. A prompt whose first line is the same but
// whose later lines changed still shows as changed.
func Changes(approved, file Definition) []Change {
	a, f := approved.Summarize(), file.Summarize()
	out := []Change{}
	add := func(field, x, y string) {
		if x != y {
			out = append(out, Change{Field: field, Approved: x, File: y, From: approved, To: file})
		}
	}
	add("job", a.Job, f.Job)
	add("timing", a.Timing, f.Timing)
	add("zone", a.Zone, f.Zone)
	add("limits", a.Limits, f.Limits)
	add("notifyOnSuccess", fmt.Sprint(a.Notify), fmt.Sprint(f.Notify))
	if strings.TrimSpace(approved.Prompt) != strings.TrimSpace(file.Prompt) {
		fp := f.Prompt
		if fp == a.Prompt {
			fp += " (later lines changed)"
		}
		out = append(out, Change{Field: "prompt", Approved: a.Prompt, File: fp, From: approved, To: file})
	}
	return out
}
