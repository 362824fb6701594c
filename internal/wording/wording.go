// Package wording is what the owner chose to send from a draft's editor:
// the editor's text or a candidate's, never overwriting an edit, and the
// text an editor starts from. It is pure: the store saves the choice
// (models' SaveDraftWording).
package wording

import (
	"slices"
	"strings"

	"hearth/internal/contract"
)

// Form is a draft editor as submitted: the text and the chosen
// candidate, beside what the editor showed when it was rendered.
type Form struct {
	Body, Candidate           string
	ShownBody, ShownCandidate string
	// Since, when set (an autosave), is the revision of the owner's edit
	// the editor holds (0: none): a different stored edit is ErrEditChanged.
	Since *int64
	// Activity is the Home row the editor is on (empty: none): the save
	// then answers with that row (models.Wording.Answer), read in its transaction.
	Activity string
}

// Choice is what the owner chose to send from a draft's editor.
type Choice struct {
	Body string
	// Candidate is the chosen candidate whose text the editor now holds.
	Candidate string
	// Kept is set when the owner chose a candidate beside an edited text:
	// the edit is kept, never overwritten, and the review offers this
	// candidate instead.
	Kept *contract.CandidateIn
}

// NormalizeNewlines turns a form's CRLF line ends into the LF the agent wrote.
func NormalizeNewlines(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// Chosen resolves an editor's submission against the draft: the
// editor's text, except when the owner left it exactly as shown and chose
// another candidate (a radio without JavaScript), which means that
// candidate's text. A candidate chosen beside an edited text never replaces
// the edit: it is returned as Kept, for the review to offer.
func Chosen(d contract.DraftView, f Form) Choice {
	body, shown := NormalizeNewlines(f.Body), NormalizeNewlines(f.ShownBody)
	w := Choice{Body: body, Candidate: f.Candidate}
	i := slices.IndexFunc(d.Candidates, func(c contract.CandidateIn) bool { return c.ID == f.Candidate })
	if i < 0 || f.Candidate == f.ShownCandidate || (f.ShownBody == "" && f.ShownCandidate == "") {
		return w // no other candidate chosen, or a form that did not say what it showed
	}
	chosen := d.Candidates[i]
	switch {
	case body == chosen.Body:
	case body == shown && f.ShownBody != "":
		w.Body = chosen.Body
	default:
		w.Kept, w.Candidate = &chosen, f.ShownCandidate
	}
	return w
}

// DraftText is what the draft's editor holds when nothing was typed: the
// owner's edit, else the first candidate.
func DraftText(d contract.DraftView) string {
	switch {
	case d.OwnerEdit != nil:
		return d.OwnerEdit.Body
	case len(d.Candidates) > 0:
		return d.Candidates[0].Body
	}
	return ""
}
