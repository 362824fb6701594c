package models

import (
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/voice"
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

// VoiceByPerson compares each draft reply sent in ReplyRateWindow with the
// draft text it was sent from and sums them up per person of the draft,
// for persons with at least voice.MinCompared of them. The comparison is
// read from the two stored texts, not stored itself: it is a pure function
// of them, so it never disagrees with what was sent.
func VoiceByPerson(tx *gorm.DB, now time.Time) (map[string]voice.Summary, error) {
	var rows []struct {
		PersonID  string
		Body      string
		DraftBody string
	}
	if err := tx.Raw(`SELECT d.person_id, s.body, s.draft_body FROM sends s INDEXED BY sends_sent JOIN reply_drafts d ON d.id = s.draft_id
		WHERE s.status = 'sent' AND s.created_at >= ? AND s.draft_body IS NOT NULL AND d.person_id IS NOT NULL ORDER BY s.created_at, s.id`,
		now.Add(-ReplyRateWindow)).Scan(&rows).Error; err != nil {
		return nil, err
	}
	diffs := map[string][]voice.Diff{}
	for _, r := range rows {
		diffs[r.PersonID] = append(diffs[r.PersonID], voice.Compare(r.DraftBody, r.Body))
	}
	out := map[string]voice.Summary{}
	for person, ds := range diffs {
		if sum, ok := voice.Summarise(ds); ok {
			out[person] = sum
		}
	}
	return out, nil
}
