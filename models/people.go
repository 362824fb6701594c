package models

import (
	"context"
	"slices"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/voice"
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

// peopleActivities is activityWindow for People: the same three branches
// (so the same activities a person's card listed when it was built from
// the agent context), narrowed to live activities about a person, without
// a page limit.
const peopleActivities = `SELECT a.*, s.state AS state, s.until AS until, s.note AS note, s.updated_at AS state_at
	FROM (SELECT * FROM activities INDEXED BY activities_window WHERE closed_at IS NULL AND occurrence_date = '' AND person_id IS NOT NULL AND retracted_at IS NULL
	      UNION ALL
	      SELECT * FROM activities INDEXED BY activities_window WHERE closed_at IS NULL AND occurrence_date >= @sinceDate AND person_id IS NOT NULL AND retracted_at IS NULL
	      UNION ALL
	      SELECT * FROM activities INDEXED BY activities_window WHERE closed_at >= @since AND person_id IS NOT NULL AND retracted_at IS NULL) AS a
	LEFT JOIN activity_states s ON s.activity_id = a.id
	ORDER BY a.id`

// peopleDrafts is draftWindow for People: live drafts and those settled
// within the window, not retracted, about a person.
const peopleDrafts = `SELECT * FROM (SELECT * FROM reply_drafts INDEXED BY reply_drafts_live WHERE settled_at IS NULL
	      UNION ALL
	      SELECT * FROM reply_drafts INDEXED BY reply_drafts_settled WHERE settled_at >= @since)
	WHERE retracted_at IS NULL AND person_id IS NOT NULL ORDER BY id`

// People reads the People page's snapshot: people, their linked
// activities, drafts, corrections and evidence chips, in one read
// transaction, querying only what the page shows.
func (s *Store) People(ctx context.Context) (PeopleView, error) {
	var v PeopleView
	err := s.Read(ctx, func(tx *gorm.DB) error {
		now := s.clock()
		since := now.Add(-contract.ContextHistory)
		var err error
		if v.Revision, err = WorkspaceRevision(tx); err != nil {
			return err
		}
		var people []Person
		if err := tx.Order("id").Find(&people).Error; err != nil {
			return err
		}
		if len(people) == 0 {
			return nil
		}
		v.People = make([]PersonEntry, len(people))
		index := make(map[string]int, len(people))
		var evidenceIDs []string
		for i, p := range people {
			v.People[i].Person = p.View()
			index[p.ID] = i
			evidenceIDs = append(evidenceIDs, v.People[i].Person.EvidenceIDs...)
		}

		var acts []activityRow
		// A day earlier than the cutoff so a zone ahead of UTC loses nothing (as activityPage).
		sinceDate := since.Add(-24 * time.Hour).Format(time.DateOnly)
		if err := tx.Raw(peopleActivities, map[string]any{"since": since, "sinceDate": sinceDate}).Scan(&acts).Error; err != nil {
			return err
		}
		for _, a := range acts {
			if i, ok := index[deref(a.PersonID)]; ok {
				v.People[i].Activities = append(v.People[i].Activities, a.view())
			}
		}

		var drafts []ReplyDraft
		if err := tx.Raw(peopleDrafts, map[string]any{"since": since}).Scan(&drafts).Error; err != nil {
			return err
		}
		for _, d := range drafts {
			if i, ok := index[deref(d.PersonID)]; ok {
				v.People[i].Drafts = append(v.People[i].Drafts, draftRow{ReplyDraft: d}.view())
			}
		}

		sent, err := sentReplies(tx, now.Add(-ReplyRateWindow))
		if err != nil {
			return err
		}
		for id, st := range replyStats(sent, func(r sentReply) string { return deref(r.PersonID) }) {
			if i, ok := index[id]; ok {
				v.People[i].Replies = st
			}
		}

		rhythms, err := PersonRhythms(tx, now)
		if err != nil {
			return err
		}
		for id, r := range rhythms {
			if i, ok := index[id]; ok {
				v.People[i].Rhythm = r
			}
		}

		voices, err := VoiceByPerson(tx, now)
		if err != nil {
			return err
		}
		for id, sum := range voices {
			if i, ok := index[id]; ok {
				v.People[i].Voice = &sum
			}
		}

		var reqs []Request
		if err := tx.Where("kind = ? AND (status = ? OR updated_at >= ?)", contract.RequestCRMEdit, contract.RequestPending, since).
			Order("created_at DESC, request_id").Find(&reqs).Error; err != nil {
			return err
		}
		for _, r := range reqs {
			if i, ok := index[r.EntityID]; ok {
				v.People[i].Corrections = append(v.People[i].Corrections, r.View())
			}
		}

		// One evidence read for all people, not one per person, in chunks
		// that stay under SQLite's limit of bound parameters.
		slices.Sort(evidenceIDs)
		evidenceIDs = slices.Compact(evidenceIDs)
		byID := make(map[string]EvidenceChip, len(evidenceIDs))
		for chunk := range slices.Chunk(evidenceIDs, evidenceChunk) {
			chips, err := evidenceChips(tx, chunk)
			if err != nil {
				return err
			}
			for _, c := range chips {
				byID[c.ID] = c
			}
		}
		for i := range v.People {
			for _, id := range v.People[i].Person.EvidenceIDs {
				if c, ok := byID[id]; ok {
					v.People[i].Evidence = append(v.People[i].Evidence, c)
				}
			}
		}
		return nil
	})
	if err != nil {
		return PeopleView{}, Classify("people", err)
	}
	return v, nil
}
