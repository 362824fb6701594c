package views

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"hearth/internal/contract"
)

// invocationOutcomeLabel says how an invocation ended, in the owner's words.
func invocationOutcomeLabel(inv contract.InvocationView) string {
	switch inv.Outcome {
	case contract.InvocationPublished:
		return "hearth accepted its publication"
	case contract.InvocationConflict:
		return "the workspace changed while it worked, so the next one read it again"
	case contract.InvocationRefused:
		switch len(inv.Errors) {
		case 0: // another 4xx than a validation error: the run's detail says which
			return "hearth refused its publication"
		case 1:
			return "hearth refused its publication for 1 problem"
		}
		return fmt.Sprintf("hearth refused its publication for %d problems", len(inv.Errors))
	case contract.InvocationFailed:
		return "the agent failed"
	case contract.InvocationUnknown:
		return "the runner stopped while the agent worked"
	}
	return inv.Outcome
}

func invocationUsage(inv contract.InvocationView) string {
	s := ""
	if inv.DurationMS > 0 {
		s += fmt.Sprintf("; took %.1f s", float64(inv.DurationMS)/1000)
	}
	if inv.Tokens != nil {
		s += fmt.Sprintf("; %d tokens", *inv.Tokens)
	}
	if inv.CostUSD != nil {
		s += fmt.Sprintf("; $%.2f", *inv.CostUSD)
	}
	return s
}

// refusalWords reads a refusal's error as a sentence: "Reply draft 1,
// candidate 1: should be at most 10 characters; it was a text of 78 characters."
func refusalWords(e contract.RefusalError) string {
	where := pathWords(e.Path)
	if where == "" {
		where = "The publication"
	}
	s := where
	if e.Expected != "" {
		s += ": should be " + outside(e.Expected)
		if e.Found != "" {
			s += "; it was " + outside(e.Found)
		}
	} else if e.Found != "" {
		s += ": it was " + outside(e.Found)
	}
	return s + "."
}

// pathWords turns a JSON Pointer into words: /replyDrafts/0/candidates/1
// is "Reply draft 1, candidate 2".
func pathWords(p string) string {
	segs := strings.Split(strings.TrimPrefix(p, "/"), "/")
	var parts []string
	for i := 0; i < len(segs); i++ {
		seg := segs[i]
		if seg == "" {
			continue
		}
		name := camelWords(seg)
		if i+1 < len(segs) {
			if n, err := strconv.Atoi(segs[i+1]); err == nil {
				name = singular(name) + " " + strconv.Itoa(n+1)
				i++
			}
		}
		parts = append(parts, name)
	}
	s := outside(strings.Join(parts, ", "))
	if s == "" {
		return ""
	}
	r := []rune(s)
	r[0] = unicode.ToUpper(r[0])
	return string(r)
}

// singular names one item of a list: "activities" → "activity", "reply drafts" → "reply draft".
func singular(s string) string {
	switch {
	case strings.HasSuffix(s, "ies"):
		return strings.TrimSuffix(s, "ies") + "y"
	case strings.HasSuffix(s, "s"):
		return strings.TrimSuffix(s, "s")
	}
	return s
}

// camelWords splits camelCase into lower-case words: "replyDrafts" → "reply drafts".
func camelWords(s string) string {
	var b strings.Builder
	for i, r := range s {
		if unicode.IsUpper(r) && i > 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}
