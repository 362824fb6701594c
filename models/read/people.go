package read

import (
	"context"
	"hearth/internal/contract"
	"hearth/models"
	"time"

	"gorm.io/gorm"
)

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
func (s Store) People(ctx context.Context) (models.PeopleView, error) {
	var v models.PeopleView
	err := s.Read(ctx, func(tx *gorm.DB) error {
		now := s.Now()
		since := now.Add(-contract.ContextHistory)
		var err error
		if v.Revision, err = models.WorkspaceRevision(tx); err != nil {
			return err
		}
		var people []models.Person
		if err := tx.Order("id").Find(&people).Error; err != nil {
			return err
		}
		if len(people) == 0 {
			return nil
		}
		v.People = make([]models.PersonEntry, len(people))
		index := make(map[string]int, len(people))
		var evidenceIDs []string
		for i, p := range people {
			v.People[i].Person = p.View()
			index[p.ID] = i
			evidenceIDs = append(evidenceIDs, v.People[i].Person.EvidenceIDs...)
		}

		// A day earlier than the cutoff so a zone ahead of UTC loses nothing (as activityPage).
		sinceDate := since.Add(-24 * time.Hour).Format(time.DateOnly)
		acts, err := models.ActivityViews(tx.Raw(peopleActivities, map[string]any{"since": since, "sinceDate": sinceDate}))
		if err != nil {
			return err
		}
		for _, a := range acts {
			if i, ok := index[a.PersonID]; ok {
				v.People[i].Activities = append(v.People[i].Activities, a)
			}
		}

		var drafts []models.ReplyDraft
		if err := tx.Raw(peopleDrafts, map[string]any{"since": since}).Scan(&drafts).Error; err != nil {
			return err
		}
		for _, d := range drafts {
			if i, ok := index[deref(d.PersonID)]; ok {
				v.People[i].Drafts = append(v.People[i].Drafts, d.View())
			}
		}

		replies, err := replyStatsByPerson(tx, now.Add(-models.ReplyRateWindow))
		if err != nil {
			return err
		}
		for id, st := range replies {
			if i, ok := index[id]; ok {
				v.People[i].Replies = st
			}
		}

		rhythms, err := personRhythms(tx, now)
		if err != nil {
			return err
		}
		for id, r := range rhythms {
			if i, ok := index[id]; ok {
				v.People[i].Rhythm = r
			}
		}

		voices, err := voiceByPerson(tx, now)
		if err != nil {
			return err
		}
		for id, sum := range voices {
			if i, ok := index[id]; ok {
				v.People[i].Voice = &sum
			}
		}

		var reqs []models.Request
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
		byID, err := models.EvidenceChipsByID(tx, evidenceIDs)
		if err != nil {
			return err
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
		return models.PeopleView{}, models.Classify("people", err)
	}
	return v, nil
}
