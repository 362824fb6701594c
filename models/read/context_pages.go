package read

import (
	"cmp"
	"fmt"
	"hearth/internal/contract"
	"hearth/internal/routinecount"
	"hearth/internal/voice"
	"hearth/models"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// observationPage lists pending observations by id, oldest first. A page
// ends early, after at least one item, once its raw payloads pass
// MaxObservationPageRawBytes.
func observationPage(tx *gorm.DB, from cursor) (contract.Page[contract.ObservationView], error) {
	var afterID int64
	if from.after != "" {
		afterID, _ = strconv.ParseInt(from.after, 10, 64) // decodeCursor checked it
	}
	var rows []models.Observation
	// Pinned to the partial index of pending observations, its status
	// written into the SQL (a bound one cannot use it): otherwise SQLite
	// walked every observation ever kept from the cursor on (363,189 after
	// five seeded years) to find the few pending.
	if err := tx.Table("observations INDEXED BY observations_pending").Where("status = '"+contract.ObservationPending+"' AND id > ?", afterID).Order("id").Limit(contract.ContextPageSize + 1).Find(&rows).Error; err != nil {
		return contract.Page[contract.ObservationView]{}, err
	}
	views := make([]contract.ObservationView, len(rows))
	size := 0
	for i, r := range rows {
		views[i] = r.View()
		if size += len(r.Raw); i > 0 && i < contract.ContextPageSize && size > contract.MaxObservationPageRawBytes {
			return contract.Page[contract.ObservationView]{Items: views[:i], Truncated: true,
				NextCursor: encodeCursor(contract.CollectionObservations, from.revision, fmt.Sprint(views[i-1].ObservationID))}, nil
		}
	}
	return page(contract.CollectionObservations, from, views, func(v contract.ObservationView) string { return fmt.Sprint(v.ObservationID) }), nil
}

// activityDecisionPage lists the decisions of the last ContextHistory, oldest first.
func activityDecisionPage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.ActivityDecisionView], error) {
	var rows []models.ActivityDecision
	// INDEXED BY: SQLite's statistics cannot tell that the window holds few
	// of the rows, so with ORDER BY id it would walk every decision ever
	// made to skip the old ones; the index reads only the window.
	q := tx.Table("activity_decisions INDEXED BY activity_decisions_created").
		Where("created_at >= ?", now.Add(-contract.ContextHistory).UTC()).Order("id").Limit(contract.ContextPageSize + 1)
	if from.after != "" {
		var after int64
		if _, err := fmt.Sscan(from.after, &after); err != nil {
			return contract.Page[contract.ActivityDecisionView]{}, ErrBadCursor
		}
		q = q.Where("id > ?", after)
	}
	if err := q.Find(&rows).Error; err != nil {
		return contract.Page[contract.ActivityDecisionView]{}, err
	}
	views := make([]contract.ActivityDecisionView, len(rows))
	for i, r := range rows {
		views[i] = contract.ActivityDecisionView{ID: r.ID, ActivityID: r.ActivityID, State: r.State, Until: r.Until, Note: r.Note,
			Cause: r.Cause, Revision: r.Revision, At: r.CreatedAt.UTC()}
		if r.PriorState != nil {
			views[i].PriorState = *r.PriorState
		}
		if r.UndoesID != nil {
			views[i].Undoes = *r.UndoesID
		}
	}
	return page(contract.CollectionActivityDecisions, from, views, func(v contract.ActivityDecisionView) string { return fmt.Sprint(v.ID) }), nil
}

// ownerItemsDoneDays is how long a done item stays in the agent's context.
const ownerItemsDoneDays = 14

// ownerItemsInContext lists the live owner items for the agent: every open
// one, and those done in the last ownerItemsDoneDays, by day then as added.
func ownerItemsInContext(tx *gorm.DB, now time.Time) ([]contract.OwnerItemView, error) {
	var rows []models.OwnerItem
	if err := tx.Where("removed_at IS NULL AND (done_at IS NULL OR done_at >= ?)", now.AddDate(0, 0, -ownerItemsDoneDays)).
		Order("day, created_at, id").Limit(models.MaxOwnerItemsInContext).Find(&rows).Error; err != nil {
		return nil, err
	}
	var out []contract.OwnerItemView
	for _, r := range rows {
		out = append(out, r.View())
	}
	return out, nil
}

// replyDecisionPage lists the decisions of the last 14 days, oldest first.
func replyDecisionPage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.ReplyDecisionView], error) {
	var afterID int64
	if from.after != "" {
		fmt.Sscan(from.after, &afterID) // decodeCursor checked it
	}
	var rows []struct {
		models.ReplyAction
		SendBody *string
		SendKey  *string
	}
	if err := tx.Raw(`SELECT a.*, s.body AS send_body, s.send_key FROM reply_actions a LEFT JOIN sends s ON s.id = a.send_id
		WHERE a.created_at >= ? AND a.id > ? ORDER BY a.id LIMIT ?`, now.Add(-contract.ContextHistory).UTC(), afterID, contract.ContextPageSize+1).Scan(&rows).Error; err != nil {
		return contract.Page[contract.ReplyDecisionView]{}, err
	}
	views := make([]contract.ReplyDecisionView, len(rows))
	for i, r := range rows {
		v := contract.ReplyDecisionView{ID: r.ID, ChatID: r.ChatID, AccountID: r.AccountID, DraftID: string(r.DraftID), Decision: r.Action,
			Until: r.Until, Text: r.Body, At: r.CreatedAt}
		if r.Action == models.ActionOwnReply {
			v.Text, v.SendKey = cmp.Or(deref(r.SendBody), r.Body), deref(r.SendKey)
		}
		views[i] = v
	}
	return page(contract.CollectionReplyDecisions, from, views, func(v contract.ReplyDecisionView) string { return fmt.Sprint(v.ID) }), nil
}

// rhythmViews is the agent context's Rhythms: each person whose rhythm is
// known, by person ID.
func rhythmViews(tx *gorm.DB, now time.Time) ([]contract.PersonRhythmView, error) {
	byPerson, err := personRhythms(tx, now)
	if err != nil {
		return nil, err
	}
	var out []contract.PersonRhythmView
	for p, r := range byPerson {
		if !r.Known {
			continue
		}
		out = append(out, contract.PersonRhythmView{PersonID: p, Conversations: r.Conversations, UsualGapDays: inDays(r.UsualGap),
			P90GapDays: inDays(r.P90Gap), SilenceDays: inDays(r.Silence), OwnerStarted: r.OwnerStarted, Drifting: r.Drifting})
	}
	slices.SortFunc(out, func(a, b contract.PersonRhythmView) int { return strings.Compare(a.PersonID, b.PersonID) })
	return out, nil
}

func routineDefinitionPage(tx *gorm.DB, from cursor) (contract.Page[contract.RoutineContextView], error) {
	var defs []models.RoutineDefinition
	err := tx.Raw(`SELECT d.* FROM routine_definitions d WHERE d.routine_id > ? AND d.revision =
		(SELECT MAX(revision) FROM routine_definitions x WHERE x.routine_id = d.routine_id) ORDER BY d.routine_id LIMIT ?`,
		from.after, contract.ContextPageSize+1).Scan(&defs).Error
	if err != nil {
		return contract.Page[contract.RoutineContextView]{}, err
	}
	var used []struct {
		RoutineID string
		Revision  int64
	}
	// Which revisions of this page's routines have occurrences: one indexed
	// probe per definition revision, not a pass over every occurrence ever.
	ids := make([]string, len(defs))
	for i, d := range defs {
		ids[i] = d.RoutineID
	}
	if err := tx.Raw(`SELECT d.routine_id, d.revision FROM routine_definitions d WHERE d.routine_id IN ?
		AND EXISTS (SELECT 1 FROM routine_occurrences o WHERE o.routine_id = d.routine_id AND o.revision = d.revision)
		ORDER BY d.routine_id, d.revision`, ids).Scan(&used).Error; err != nil {
		return contract.Page[contract.RoutineContextView]{}, err
	}
	views := make([]contract.RoutineContextView, len(defs))
	for i, d := range defs {
		views[i] = contract.RoutineContextView{RoutineRevisionView: d.View(), RevisionsWithOccurrences: []int64{}}
		for _, u := range used {
			if u.RoutineID == d.RoutineID {
				views[i].RevisionsWithOccurrences = append(views[i].RevisionsWithOccurrences, u.Revision)
			}
		}
	}
	return page(contract.CollectionRoutineDefinitions, from, views, func(v contract.RoutineContextView) string { return v.RoutineID }), nil
}

// recentTrials are active trials and those whose window ended in the last 14 days.
func recentTrials(tx *gorm.DB, now time.Time, after int64) ([]models.RoutineTrial, error) {
	since := now.Add(-contract.ContextHistory).Format(time.DateOnly)
	var rows []models.RoutineTrial
	err := tx.Where("(state = 'active' OR (CASE WHEN ended_on != '' AND ended_on < ends_on THEN ended_on ELSE ends_on END) >= ?) AND id > ?",
		since, after).Order("id").Limit(contract.ContextPageSize + 1).Find(&rows).Error
	return rows, err
}

func trialPage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.TrialView], error) {
	after, _ := strconv.ParseInt(from.after, 10, 64)
	rows, err := recentTrials(tx, now, after)
	if err != nil {
		return contract.Page[contract.TrialView]{}, err
	}
	views := make([]contract.TrialView, len(rows))
	for i, t := range rows {
		views[i] = t.View()
	}
	return page(contract.CollectionTrials, from, views, func(v contract.TrialView) string { return strconv.FormatInt(v.ID, 10) }), nil
}

func routineMetricsPage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.TrialMetricsView], error) {
	after, _ := strconv.ParseInt(from.after, 10, 64)
	rows, err := recentTrials(tx, now, after)
	if err != nil {
		return contract.Page[contract.TrialMetricsView]{}, err
	}
	day, err := models.OwnerDay(tx, now, "")
	if err != nil {
		return contract.Page[contract.TrialMetricsView]{}, err
	}
	views := make([]contract.TrialMetricsView, len(rows))
	for i, t := range rows {
		m, err := models.RoutineMetrics(tx, t.RoutineID, t.Revision, t.StartsOn, max(t.StartsOn, min(t.LastDay(), day.Date)), now)
		if err != nil {
			return contract.Page[contract.TrialMetricsView]{}, err
		}
		m.Days = nil // the occurrences collection carries each day
		views[i] = contract.TrialMetricsView{TrialID: t.ID, RoutineMetrics: m}
	}
	return page(contract.CollectionRoutineMetrics, from, views, func(v contract.TrialMetricsView) string { return strconv.FormatInt(v.TrialID, 10) }), nil
}

// occurrencePage lists the occurrences of the last 14 days with their outcomes.
func occurrencePage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.OccurrenceView], error) {
	since := now.Add(-contract.ContextHistory).Format(time.DateOnly)
	var occs []models.RoutineOccurrence
	if err := tx.Where("local_date >= ? AND id > ?", since, from.after).Order("id").Limit(contract.ContextPageSize + 1).Find(&occs).Error; err != nil {
		return contract.Page[contract.OccurrenceView]{}, err
	}
	history := map[string][]models.RoutineOutcome{}
	if len(occs) > 0 {
		ids := make([]string, len(occs))
		for i, o := range occs {
			ids[i] = o.ID
		}
		var rows []models.RoutineOutcome
		if err := tx.Where("occurrence_id IN ?", ids).Order("id").Find(&rows).Error; err != nil {
			return contract.Page[contract.OccurrenceView]{}, err
		}
		for _, r := range rows {
			history[r.OccurrenceID] = append(history[r.OccurrenceID], r)
		}
	}
	day, err := models.OwnerDay(tx, now, "")
	if err != nil {
		return contract.Page[contract.OccurrenceView]{}, err
	}
	views := make([]contract.OccurrenceView, len(occs))
	for i, o := range occs {
		v := contract.OccurrenceView{ID: o.ID, RoutineID: o.RoutineID, Revision: o.Revision, TrialID: o.TrialID, Occasion: o.Occasion,
			Date: o.LocalDate, Zone: o.Zone, ActivityID: o.ActivityID, History: []contract.OutcomeHistory{}}
		for _, h := range history[o.ID] {
			v.History = append(v.History, contract.OutcomeHistory{Outcome: h.Outcome, Reason: h.Reason, Effort: h.Effort, Helped: h.Helped, Late: h.Late, RecordedAt: h.RecordedAt})
			v.Outcome, v.Reason, v.Effort, v.Helped = h.Outcome, h.Reason, h.Effort, h.Helped
		}
		if v.Outcome == "" {
			v.Outcome = models.OutcomeOpen
			if occasionEnded(contract.DayOutcome{Date: o.LocalDate, OccurrenceID: o.ID}, map[string]models.RoutineOccurrence{o.ID: o}, day, now) {
				v.Outcome = models.OutcomeUnrecorded
			}
		}
		views[i] = v
	}
	return page(contract.CollectionOccurrences, from, views, func(v contract.OccurrenceView) string { return v.ID }), nil
}

// occasionEnded reports whether an occasion's day is over in its zone (the
// occurrence's, else the owner's), so no outcome means unrecorded.
func occasionEnded(do contract.DayOutcome, occs map[string]models.RoutineOccurrence, day models.Day, now time.Time) bool {
	end, ok := routinecount.OccasionEnd(do.Date, occs[do.OccurrenceID].Zone, day)
	return ok && !now.Before(end)
}

// sendsLater is the agent context's SendsLater: every send still waiting
// (or going), and those held or gone within ContextHistory, by due time.
// A cancelled one is left out: it never was, for the chat.
func sendsLater(tx *gorm.DB, now time.Time) ([]contract.SendLaterView, error) {
	var rows []models.ScheduledSend
	if err := tx.Where("state IN ? OR (state IN ? AND updated_at >= ?)", []string{models.ScheduleWaiting, models.ScheduleSending},
		[]string{models.ScheduleHeld, models.ScheduleWent}, now.Add(-contract.ContextHistory)).
		Order("due_at, id").Limit(contract.ContextPageSize).Find(&rows).Error; err != nil {
		return nil, err
	}
	var out []contract.SendLaterView
	for _, r := range rows {
		v := contract.SendLaterView{ChatID: r.ChatID, DraftID: string(r.DraftID), DueAt: r.DueAt, Status: contract.SendLaterScheduled}
		switch r.State {
		case models.ScheduleHeld:
			v.Status, v.HeldBecause = contract.SendLaterHeld, r.Note
		case models.ScheduleWent:
			v.Status = contract.SendLaterSent
		}
		out = append(out, v)
	}
	return out, nil
}

// followedView is a send's Followed in the agent context, or nil while nothing is known.
func followedView(sd models.Send) *contract.SendFollowedView {
	if sd.DeliveredAt == nil && sd.SeenAt == nil && sd.AnsweredAt == nil {
		return nil
	}
	v := &contract.SendFollowedView{DeliveredAt: sd.DeliveredAt, SeenAt: sd.SeenAt, AnsweredAt: sd.AnsweredAt}
	if sd.AnsweredAt != nil {
		v.AnsweredAfterMinutes = minutesOf(sd.AnsweredAfter())
	}
	return v
}

// voiceViews is the agent context's Voice, by person ID; nil when no
// person has enough compared sends.
func voiceViews(tx *gorm.DB, now time.Time) ([]contract.VoiceView, error) {
	byPerson, err := voiceByPerson(tx, now)
	if err != nil || len(byPerson) == 0 {
		return nil, err
	}
	out := make([]contract.VoiceView, 0, len(byPerson))
	for person, s := range byPerson {
		out = append(out, contract.VoiceView{PersonID: person, Compared: s.Compared, AsWritten: s.AsWritten, Shortened: s.Shortened,
			Lengthened: s.Lengthened, MedianLengthChangePercent: s.MedianLengthChange, Greeting: framingView(s.Greeting),
			SignOff: framingView(s.SignOff), EmojiAdded: s.EmojiAdded, EmojiRemoved: s.EmojiRemoved,
			LanguageSwitched: s.LanguageSwitched, SwitchedTo: s.SwitchedTo, Summary: s.Words()})
	}
	slices.SortFunc(out, func(a, b contract.VoiceView) int { return strings.Compare(a.PersonID, b.PersonID) })
	return out, nil
}

// framingView is c in the context, nil when no send had a greeting (or sign-off).
func framingView(c voice.Counts) *contract.FramingView {
	if c == (voice.Counts{}) {
		return nil
	}
	return &contract.FramingView{InDrafts: c.InDrafts, Kept: c.Kept, Changed: c.Changed, Dropped: c.Dropped, Added: c.Added}
}
