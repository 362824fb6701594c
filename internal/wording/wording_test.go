package wording

import (
	"testing"

	"hearth/internal/contract"
)

func TestAChosenCandidateNeverOverwritesAnEdit(t *testing.T) {
	d := contract.DraftView{Candidates: []contract.CandidateIn{{ID: "warm", Body: "Warm words"}, {ID: "brief", Body: "Brief"}}}
	for _, tc := range []struct {
		name string
		f    Form
		body string
		kept string
	}{
		{"untouched, another candidate chosen (no JavaScript)", Form{Body: "Warm words", Candidate: "brief", ShownBody: "Warm words", ShownCandidate: "warm"}, "Brief", ""},
		{"edited, same candidate", Form{Body: "My words", Candidate: "warm", ShownBody: "Warm words", ShownCandidate: "warm"}, "My words", ""},
		{"edited and another candidate chosen: the edit stays, the review asks", Form{Body: "My words", Candidate: "brief", ShownBody: "Warm words", ShownCandidate: "warm"}, "My words", "brief"},
		{"JavaScript put the candidate in", Form{Body: "Brief", Candidate: "brief", ShownBody: "Warm words", ShownCandidate: "warm"}, "Brief", ""},
		{"form line ends", Form{Body: "a\r\nb", Candidate: "warm", ShownBody: "a\nb", ShownCandidate: "warm"}, "a\nb", ""},
		{"a form that does not say what it showed", Form{Body: "Text", Candidate: "brief"}, "Text", ""},
	} {
		w := Chosen(d, tc.f)
		kept := ""
		if w.Kept != nil {
			kept = w.Kept.ID
		}
		if w.Body != tc.body || kept != tc.kept {
			t.Errorf("%s: %q (kept %q), want %q (kept %q)", tc.name, w.Body, kept, tc.body, tc.kept)
		}
	}
}
