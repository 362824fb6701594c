package models

import (
	"hearth/internal/contract"
	"hearth/internal/voice"
	"slices"

	"gorm.io/gorm"
)

// PeopleView is what the People page shows, read in one transaction: every
// published person with what is linked to them. Nothing is capped: the
// page lists every person, and each person's activities, conversations
// and corrections within the windows the agent context uses.
type PeopleView struct {
	Revision int64
	People   []PersonEntry
}

// PersonEntry is one person with their evidence, their live activities
// and reply drafts, and the owner's corrections of them.
type PersonEntry struct {
	Person   contract.PersonView
	Evidence []EvidenceChip
	// Activities are the person's activities that are open or were settled
	// within ContextHistory, not retracted, by ID.
	Activities []contract.ActivityView
	// Drafts are the person's reply drafts that are live or settled within
	// contract.ContextHistory (as the agent context lists them), not retracted, by ID.
	Drafts []contract.DraftView
	// Corrections are the owner's crm-edit requests about the person,
	// pending or changed within ContextHistory, newest first.
	Corrections []contract.RequestView
	// Replies is how the person answered the owner's replies over
	// ReplyRateWindow; zero when none was sent.
	Replies ReplyStats
	// Rhythm is the person's rhythm from their chats (Known false below
	// rhythm.MinGaps silences, or with no chat).
	Rhythm PersonRhythm
	// Voice is how the owner's replies to the person differed from the
	// agent's drafts (voice.go); nil below voice.MinCompared.
	Voice *voice.Summary
}

// evidenceChunk bounds the source ref IDs bound in one evidence query.
const evidenceChunk = 1000

// EvidenceChipsByID reads the evidence chips of ids, one read in chunks
// that stay under SQLite's limit of bound parameters, by ID.
func EvidenceChipsByID(tx *gorm.DB, ids []string) (map[string]EvidenceChip, error) {
	ids = slices.Compact(slices.Sorted(slices.Values(ids)))
	byID := make(map[string]EvidenceChip, len(ids))
	for chunk := range slices.Chunk(ids, evidenceChunk) {
		chips, err := evidenceChips(tx, chunk)
		if err != nil {
			return nil, err
		}
		for _, c := range chips {
			byID[c.ID] = c
		}
	}
	return byID, nil
}
