package models

import (
	"hearth/internal/contract"
)

// sentFrom is the draft text a draft send starts from, kept with the send
// because a later publication may replace the draft's candidates: the
// candidate sent word for word (written), else the one the owner's saved
// edit chose, else the first, which the editor shows when nothing was chosen.
func sentFrom(t *txn, draftID string, candidates []contract.CandidateIn, body, written string) (*string, error) {
	if written != "" {
		return &body, nil
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	var chosen []string
	if err := t.Model(&DraftEdit{}).Where("draft_id = ?", draftID).Limit(1).Pluck("selected_candidate_id", &chosen).Error; err != nil {
		return nil, err
	}
	from := candidates[0].Body
	for _, c := range candidates {
		if len(chosen) == 1 && c.ID == chosen[0] {
			from = c.Body
		}
	}
	return &from, nil
}
