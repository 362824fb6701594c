package models

import (
	"cmp"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hearth/internal/contract"
)

// The "waiting on you" list: everything that needs the owner, across
// kinds, in one read; what the owner asked of the agent and what became of
// it; and what finished on its own. Home renders it above its rows.

// Kinds of a WaitingItem.
const (
	WaitReply        = "reply"         // a reply draft to review
	WaitTask         = "task"          // a task the agent raised
	WaitProposal     = "proposal"      // a routine review's proposed change
	WaitHeldSend     = "held-send"     // a send for later held because the chat moved on
	WaitHeldSchedule = "held-schedule" // a schedule held until the owner looks
	WaitRun          = kindRun         // a run whose outcome is unknown
	WaitRequest      = "request"       // the owner's note, correction or decision, with the agent
	WaitSent         = "sent"          // a reply that went out and was delivered or answered
)

// WaitingOnHome is how many items that need the owner Home shows, oldest
// first (the owner works from the oldest); "Show all" opens the rest.
const WaitingOnHome = 6

// finishedWindow is how long Finished keeps what finished on its own.
const finishedWindow = 7 * 24 * time.Hour

// maxFinished bounds Finished; maxWaitingPerKind bounds each kind's read.
const (
	maxFinished       = 20
	maxWaitingPerKind = 50
)

// WaitingView is the list: Needs (oldest first) waits on the owner now;
// Aside was set aside with Later and comes back at its Until; WithAgent are
// the owner's own requests the agent has not done yet; Finished (newest
// first) ended on their own, with what happened. No item is in two of them.
// More is how many newer ones need the owner when only the oldest were read.
type WaitingView struct {
	Needs, Aside, WithAgent, Finished []WaitingItem
	More                              int
}

// Count is how many items wait on the owner now.
func (v WaitingView) Count() int { return len(v.Needs) + v.More }

// Empty reports whether the list has nothing to show.
func (v WaitingView) Empty() bool {
	return len(v.Needs)+len(v.Aside)+len(v.WithAgent)+len(v.Finished) == 0
}

// WaitingItem is one item of the list with what its controls need.
type WaitingItem struct {
	// Key names the item across kinds ("activity:ID", "proposal:REVIEW/ID",
	// "held-send:N", "schedule:ID", "run:ID", "request:ID", "sent:KEY").
	Key   string
	Kind  string
	Title string
	// Detail is why it waits, or what happened.
	Detail string
	// Since is when it started waiting (its age), or when it finished.
	Since time.Time
	// Until is when an item set aside comes back.
	Until *time.Time
	// What the item's existing controls post to or open.
	ActivityID, ChatID, DraftID, ReviewID, ProposalID, RequestID, ID string
	// Status is a request's (pending, completed, cancelled); else empty.
	Status string
}

// Waiting reads the list in one read transaction.
func (s *Store) Waiting(ctx context.Context) (WaitingView, error) {
	var v WaitingView
	err := s.Read(ctx, func(tx *gorm.DB) error {
		now := s.clock()
		day, err := OwnerDay(tx, now, "")
		if err != nil {
			return err
		}
		own, err := ownSchedules(tx)
		if err != nil {
			return err
		}
		v, err = waitingList(tx, now, day, own, 0)
		return err
	})
	return v, classifyPush("waiting", err)
}

// waitingList gathers the list on day: each kind's read, then the set-aside
// ones apart. own are the owner's own replies for later (ownSchedules),
// which Home reads anyway; the held ones among them wait on the owner.
// shown bounds Needs to its oldest (0: all), the rest counted in More.
func waitingList(tx *gorm.DB, now time.Time, day Day, own []ScheduledSend, shown int) (WaitingView, error) {
	var v WaitingView
	some, err := waitingKindsPresent(tx, now)
	if err != nil {
		return v, err
	}
	items, more, err := waitingActivities(tx, day, shown)
	if err != nil {
		return v, err
	}
	ownHeld := func(*gorm.DB, time.Time, Day) ([]WaitingItem, error) { return ownHeldSends(own), nil }
	for _, kind := range []struct {
		read    func(*gorm.DB, time.Time, Day) ([]WaitingItem, error)
		present bool
	}{
		{waitingProposals, some.proposals}, {ownHeld, true},
		{waitingHeldSends, some.heldSends}, {waitingSchedules, some.schedules}, {waitingRuns, some.runs},
	} {
		if !kind.present {
			continue
		}
		got, err := kind.read(tx, now, day)
		if err != nil {
			return v, err
		}
		items = append(items, got...)
	}
	aside, err := setAside(tx, items, now)
	if err != nil {
		return v, err
	}
	for _, it := range items {
		if until, ok := aside[it.Key]; ok {
			it.Until = &until
			v.Aside = append(v.Aside, it)
			continue
		}
		v.Needs = append(v.Needs, it)
	}
	slices.SortStableFunc(v.Needs, func(a, b WaitingItem) int { return a.Since.Compare(b.Since) })
	v.More = more
	if shown > 0 && len(v.Needs) > shown {
		v.More += len(v.Needs) - shown
		v.Needs = v.Needs[:shown]
	}
	slices.SortStableFunc(v.Aside, func(a, b WaitingItem) int { return a.Until.Compare(*b.Until) })
	if some.requests {
		if v.WithAgent, v.Finished, err = waitingRequests(tx, now, day); err != nil {
			return v, err
		}
	}
	if some.sent {
		sent, err := finishedSends(tx, now)
		if err != nil {
			return v, err
		}
		v.Finished = append(v.Finished, sent...)
	}
	slices.SortStableFunc(v.Finished, func(a, b WaitingItem) int { return b.Since.Compare(a.Since) })
	if len(v.Finished) > maxFinished {
		v.Finished = v.Finished[:maxFinished]
	}
	return v, nil
}

// waitingKinds says which of the list's kinds may have an item: a false
// one certainly has none, so its read is skipped.
type waitingKinds struct {
	proposals, heldSends, schedules, runs, requests, sent bool
}

// waitingKindsPresent asks, in one statement, whether each kind's read
// (waitingProposals, waitingHeldSends, waitingSchedules, waitingRuns,
// waitingRequests, finishedSends) could find anything: each EXISTS holds
// whenever its read has a row, so a change to a read's conditions must
// keep it at least as wide. Those kinds are usually empty, and each read
// is a statement the driver compiles anew; asking once is cheaper than
// compiling six (docs/figures.md, "Home after a commit").
func waitingKindsPresent(tx *gorm.DB, now time.Time) (waitingKinds, error) {
	var k waitingKinds
	since := now.Add(-finishedWindow).UTC()
	err := tx.Raw(`SELECT
			EXISTS (SELECT 1 FROM (SELECT DISTINCT routine_id FROM routine_definitions) d
				JOIN routine_reviews r ON r.id = (SELECT x.id FROM routine_reviews x WHERE x.routine_id = d.routine_id ORDER BY x.window_to DESC LIMIT 1),
				json_each(r.proposals) p
				WHERE NOT EXISTS (SELECT 1 FROM requests q WHERE q.review_id = r.id AND q.review_id != ''
					AND q.proposal_id = json_extract(p.value, '$.id') AND q.kind = ?)),
			EXISTS (SELECT 1 FROM reply_drafts d INDEXED BY reply_drafts_live
				CROSS JOIN scheduled_sends sc ON sc.id = (SELECT MAX(x.id) FROM scheduled_sends x WHERE x.draft_id = d.id)
				WHERE d.settled_at IS NULL AND d.retracted_at IS NULL AND sc.state = ?),
			EXISTS (SELECT 1 FROM schedules WHERE state IN ?),
			EXISTS (SELECT 1 FROM runs WHERE state = 'unknown' AND resolved_at IS NULL),
			EXISTS (SELECT 1 FROM requests WHERE status = ?) OR EXISTS (SELECT 1 FROM requests WHERE status IN ? AND updated_at >= ?),
			EXISTS (SELECT 1 FROM sends INDEXED BY sends_sent WHERE status = 'sent' AND created_at >= ?
				AND (delivered_at IS NOT NULL OR answered_at IS NOT NULL))`,
		contract.RequestRoutineChange, ScheduleHeld, []string{HoldQuarantined, HoldRestorePending}, contract.RequestPending,
		[]string{contract.RequestCompleted, contract.RequestCancelled}, since, since).
		Row().Scan(&k.proposals, &k.heldSends, &k.schedules, &k.runs, &k.requests, &k.sent)
	return k, err
}

// setAside is, among items, those set aside until a time still to come:
// an activity by its deferral (read with it), any other kind by
// waiting_later. An item whose time has come is back in Needs.
func setAside(tx *gorm.DB, items []WaitingItem, now time.Time) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	var keys []string
	for _, it := range items {
		if it.Until != nil && it.Until.After(now) {
			out[it.Key] = *it.Until
		}
		// SetAside refuses an activity's key, so waiting_later never holds
		// one: looking the hundred oldest open activities up there was a
		// statement with a hundred parameters on every Home read.
		if it.Until != nil || strings.HasPrefix(it.Key, "activity:") {
			continue
		}
		keys = append(keys, it.Key)
	}
	for chunk := range slices.Chunk(keys, 500) {
		var rows []struct {
			ItemKey string
			Until   time.Time
		}
		if err := tx.Table("waiting_later").Select("item_key, until").Where("item_key IN ? AND until > ?", chunk, now.UTC()).
			Scan(&rows).Error; err != nil {
			return nil, err
		}
		for _, r := range rows {
			out[r.ItemKey] = r.Until
		}
	}
	return out, nil
}

// waitingActivities are the reply drafts to review and the tasks the agent
// raised (push's activity kinds) that the owner has not settled: dated
// ones from their day on, so an unfinished one never silently leaves.
// With shown > 0: those set aside and the shown oldest others, and how many more.
//
// The inner query walks the open activities oldest first by
// activities_open_by_age and stops at its limit; the middle one numbers
// them in SQLite, so only those kept cross the driver (about 4 µs a row).
// closed_at IS NULL already means not settled: every decision and
// publication keeps closed_at in step with the state (applyDecision, upsertActivity).
func waitingActivities(tx *gorm.DB, day Day, shown int) (items []WaitingItem, more int, err error) {
	window := 2 * maxWaitingPerKind
	if shown <= 0 {
		shown = window
	}
	// The code's constants are written in, only the day bound: a bound value
	// SQLite's statistics plan by made it compile the statement twice a run.
	// Scanned by hand: GORM's reflective scan cost about as much as the statement.
	// The walk's hundred are kept once (v) and read three times: the shown
	// oldest of those that need the owner, every one set aside, and the
	// count; a window over them sorted the hundred twice, half the time.
	rows, err := tx.Raw(fmt.Sprintf(`WITH v AS MATERIALIZED (SELECT w.r, w.c, w.i, s.state, s.until,
				COALESCE(s.state = '%[1]s' AND s.until > ?, 0) AS aside
			FROM (SELECT o.rowid AS r, o.created_at AS c, o.id AS i FROM activities o INDEXED BY activities_open_by_age
				WHERE o.closed_at IS NULL AND o.occurrence_date <= ? AND o.retracted_at IS NULL
					AND o.kind IN ('%[2]s') AND o.parent_id IS NULL AND o.id NOT LIKE '%[3]s%%'
				ORDER BY o.created_at, o.id LIMIT %[4]d) w
			LEFT JOIN activity_states s ON s.activity_id = w.i)
		SELECT a.id, a.kind, a.title, a.reason, a.draft_id, a.created_at, COALESCE(p.name, '') AS person_name,
			COALESCE(d.chat_id, '') AS chat_id, x.state, x.until, x.aside, (SELECT COUNT(*) FROM v WHERE NOT v.aside) AS needs
		FROM (SELECT * FROM (SELECT * FROM v WHERE NOT v.aside ORDER BY v.c, v.i LIMIT %[5]d) UNION ALL SELECT * FROM v WHERE v.aside) x
		CROSS JOIN activities a ON a.rowid = x.r
		LEFT JOIN people p ON p.id = a.person_id
		LEFT JOIN reply_drafts d ON d.id = a.draft_id
		ORDER BY x.c, x.i`, StateDeferred, strings.Join(activityKinds, "','"), contract.HearthIDPrefix, window, shown), day.Date, day.Date).Rows()
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	needs, kept := 0, 0
	items = make([]WaitingItem, 0, min(shown, window))
	for rows.Next() {
		var id, kind, title, reason, personName, chatID string
		var draftID, state, until sql.NullString
		var createdAt time.Time
		var aside bool
		if err := rows.Scan(&id, &kind, &title, &reason, &draftID, &createdAt, &personName, &chatID, &state, &until, &aside, &needs); err != nil {
			return nil, 0, err
		}
		it := WaitingItem{Key: activityPushKey(id), Kind: kind, Title: title, Detail: reason, Since: createdAt,
			ActivityID: id, ChatID: chatID, DraftID: draftID.String, ID: id}
		if personName != "" && !strings.Contains(title, personName) {
			it.Title = title + " · " + personName
		}
		if aside {
			// A deferred activity returns at the start of its date.
			if back, err := time.ParseInLocation(time.DateOnly, until.String, day.Zone); err == nil {
				it.Until = &back
			}
		} else {
			kept++
		}
		items = append(items, it)
	}
	return items, needs - kept, rows.Err()
}

// waitingProposals are the proposals of each routine's newest review that
// the owner has not decided (a newer review of the routine supersedes an
// older one's); one lookup per routine, as reviews grow with use.
func waitingProposals(tx *gorm.DB, _ time.Time, _ Day) ([]WaitingItem, error) {
	var reviews []RoutineReview
	if err := tx.Raw(`SELECT r.* FROM (SELECT DISTINCT routine_id FROM routine_definitions) d
		JOIN routine_reviews r ON r.id = (SELECT x.id FROM routine_reviews x WHERE x.routine_id = d.routine_id ORDER BY x.window_to DESC LIMIT 1)
		ORDER BY r.created_at, r.id LIMIT ?`, maxWaitingPerKind).Scan(&reviews).Error; err != nil {
		return nil, err
	}
	if len(reviews) == 0 {
		return nil, nil
	}
	decided, err := proposalDecisions(tx)
	if err != nil {
		return nil, err
	}
	// The owner knows a routine by its title (its newest definition's).
	ids := make([]string, 0, len(reviews))
	for _, rv := range reviews {
		ids = append(ids, rv.RoutineID)
	}
	var titles []struct{ RoutineID, Title string }
	if err := tx.Raw(`SELECT d.routine_id, d.title FROM routine_definitions d
		WHERE d.routine_id IN ? AND d.revision = (SELECT MAX(x.revision) FROM routine_definitions x WHERE x.routine_id = d.routine_id)`, ids).
		Scan(&titles).Error; err != nil {
		return nil, err
	}
	titleOf := make(map[string]string, len(titles))
	for _, t := range titles {
		titleOf[t.RoutineID] = t.Title
	}
	var out []WaitingItem
	for _, rv := range reviews {
		var props []contract.ProposalIn
		_ = json.Unmarshal([]byte(rv.Proposals), &props)
		for _, p := range props {
			if _, ok := decided[rv.ID+"/"+p.ID]; ok {
				continue
			}
			out = append(out, WaitingItem{Key: "proposal:" + rv.ID + "/" + p.ID, Kind: WaitProposal,
				Title: p.Text, Detail: "proposed by the review of " + cmp.Or(titleOf[rv.RoutineID], rv.RoutineID), Since: rv.CreatedAt,
				ReviewID: rv.ID, ProposalID: p.ID, ID: rv.RoutineID})
		}
	}
	return out, nil
}

// ownHeldSends are the held ones among the owner's own replies for later
// (each chat's newest, no draft), up to maxWaitingPerKind, longest held first.
func ownHeldSends(own []ScheduledSend) []WaitingItem {
	held := slices.DeleteFunc(slices.Clone(own), func(sc ScheduledSend) bool { return sc.State != ScheduleHeld })
	slices.SortStableFunc(held, func(a, b ScheduledSend) int {
		return cmp.Or(a.UpdatedAt.Compare(b.UpdatedAt), cmp.Compare(a.ID, b.ID))
	})
	out := make([]WaitingItem, 0, min(len(held), maxWaitingPerKind))
	for _, sc := range held[:min(len(held), maxWaitingPerKind)] {
		title := "Your own reply for later was held"
		if sc.ChatTitle != "" {
			title = "Your own reply in " + sc.ChatTitle + " was held"
		}
		out = append(out, WaitingItem{Key: fmt.Sprintf("held-send:%d", sc.ID), Kind: WaitHeldSend, Title: title,
			Detail: "Not sent: " + sc.Note + ". “" + preview(sc.Body, pushPreview) + "”", Since: sc.UpdatedAt,
			ChatID: sc.ChatID, ID: fmt.Sprint(sc.ID)})
	}
	return out
}

// waitingHeldSends are sends for later that were held (the chat or the
// draft moved on) while their draft is still open: the owner reviews again.
func waitingHeldSends(tx *gorm.DB, _ time.Time, _ Day) ([]WaitingItem, error) {
	var rows []struct {
		ID                          int64
		DraftID, ChatID, Note, Body string
		UpdatedAt                   time.Time
		PersonName                  string
	}
	// Driven from the live drafts (a partial index): each one's newest send for later.
	err := tx.Raw(`SELECT sc.id, sc.draft_id, sc.chat_id, sc.note, sc.body, sc.updated_at, COALESCE(p.name, '') AS person_name
		FROM reply_drafts d INDEXED BY reply_drafts_live
		CROSS JOIN scheduled_sends sc ON sc.id = (SELECT MAX(x.id) FROM scheduled_sends x WHERE x.draft_id = d.id)
		LEFT JOIN people p ON p.id = d.person_id
		WHERE d.settled_at IS NULL AND d.retracted_at IS NULL AND sc.state = ?
		ORDER BY sc.updated_at LIMIT ?`, ScheduleHeld, maxWaitingPerKind).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	out := make([]WaitingItem, 0, len(rows))
	for _, r := range rows {
		title := "A reply for later was held"
		if r.PersonName != "" {
			title = "Your reply to " + r.PersonName + " was held"
		}
		out = append(out, WaitingItem{Key: fmt.Sprintf("held-send:%d", r.ID), Kind: WaitHeldSend, Title: title,
			Detail: "Not sent: " + r.Note + ". “" + preview(r.Body, pushPreview) + "”", Since: r.UpdatedAt,
			DraftID: r.DraftID, ChatID: r.ChatID, ID: fmt.Sprint(r.ID)})
	}
	return out, nil
}

// waitingSchedules are the schedules the ledger holds until the owner
// looks: quarantined, or restored from a backup.
func waitingSchedules(tx *gorm.DB, _ time.Time, _ Day) ([]WaitingItem, error) {
	var rows []struct {
		ID, Job, State, StateReason, StateDetail string
		StateChangedAt                           time.Time
	}
	err := tx.Table("schedules").Select("id, job, state, state_reason, state_detail, state_changed_at").
		Where("state IN ?", []string{HoldQuarantined, HoldRestorePending}).Order("state_changed_at, id").Limit(maxWaitingPerKind).
		Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	out := make([]WaitingItem, 0, len(rows))
	for _, r := range rows {
		detail := "held: restored from a backup, to reconcile"
		if r.State == HoldQuarantined {
			detail = "held: its file is not what was approved (" + r.StateReason + ")"
		}
		out = append(out, WaitingItem{Key: "schedule:" + r.ID, Kind: WaitHeldSchedule, Title: "Schedule " + r.ID + " (" + r.Job + ")",
			Detail: detail, Since: r.StateChangedAt, ID: r.ID})
	}
	return out, nil
}

// waitingRuns are the runs that ended unknown and that the owner has not
// marked as looked at (push's runs that need a look).
func waitingRuns(tx *gorm.DB, _ time.Time, _ Day) ([]WaitingItem, error) {
	runs, err := unknownRuns(tx, tx.Where("state = 'unknown' AND resolved_at IS NULL").Limit(maxWaitingPerKind))
	if err != nil {
		return nil, err
	}
	out := make([]WaitingItem, 0, len(runs))
	for _, r := range runs {
		out = append(out, WaitingItem{Key: r.item.key(), Kind: WaitRun, Title: "The " + r.item.Title + " run needs a look",
			Detail: "how it ended is unknown: it may have published or not", Since: r.item.CreatedAt, ID: r.item.ID})
	}
	return out, nil
}

// waitingRequests splits the owner's requests: pending ones are with the
// agent (read by a run since, or not yet); those completed or cancelled in
// the last week are Finished, a completed one with the run that did it and
// what it cited.
func waitingRequests(tx *gorm.DB, now time.Time, day Day) (withAgent, finished []WaitingItem, err error) {
	var reqs []Request
	if err := tx.Where("status = ? OR (status IN ? AND updated_at >= ?)", contract.RequestPending,
		[]string{contract.RequestCompleted, contract.RequestCancelled}, now.Add(-finishedWindow).UTC()).
		Order("created_at, request_id").Limit(contract.MaxPendingInContext).Find(&reqs).Error; err != nil {
		return nil, nil, err
	}
	if len(reqs) == 0 {
		return nil, nil, nil
	}
	for _, r := range reqs {
		it := WaitingItem{Key: "request:" + r.RequestID, Kind: WaitRequest, Title: requestTitle(r), RequestID: r.RequestID, ID: r.RequestID, Status: r.Status}
		if r.Status == contract.RequestPending {
			it.Since = r.CreatedAt
			if it.Detail, err = requestProgress(tx, r, day); err != nil {
				return nil, nil, err
			}
			withAgent = append(withAgent, it)
			continue
		}
		it.Since = r.UpdatedAt
		if r.Status == contract.RequestCancelled {
			// Only the owner cancels a request (Cancel, here or where it was asked).
			it.Detail = "cancelled by you"
			finished = append(finished, it)
			continue
		}
		if it.Detail, err = requestOutcome(tx, r, day); err != nil {
			return nil, nil, err
		}
		finished = append(finished, it)
	}
	return withAgent, finished, nil
}

// requestTitle is the owner's request in their words.
func requestTitle(r Request) string {
	switch {
	case r.Kind == contract.RequestCRMEdit && r.EditField != "":
		return fmt.Sprintf("Correction for %s: %s is %q", orWord(r.EntityName, r.EntityID), r.EditField, preview(r.EditValue, pushPreview))
	case r.Kind == contract.RequestRoutineChange:
		return "Your decision on a routine proposal: " + r.Decision
	}
	return preview(r.Text, 2*pushPreview)
}

func orWord(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// requestProgress says whether a run has read a pending request: the
// newest run that started after it and finished (its context listed the
// request) without completing it, or none yet.
func requestProgress(tx *gorm.DB, r Request, day Day) (string, error) {
	var runs []struct {
		Job        string
		FinishedAt time.Time
	}
	if err := tx.Table("runs").Select("job, finished_at").
		Where("started_at >= ? AND finished_at IS NOT NULL AND state IN ?", r.CreatedAt.UTC(), []string{"succeeded", "failed"}).
		Order("finished_at DESC").Limit(1).Scan(&runs).Error; err != nil {
		return "", err
	}
	if len(runs) == 0 {
		return "no run has read it yet", nil
	}
	return fmt.Sprintf("read by %s %s, not done yet", runs[0].Job, clockIn(runs[0].FinishedAt, day)), nil
}

// requestOutcome is what the agent did with a completed request: the run
// that completed it (its job and when) and what the completion cited.
func requestOutcome(tx *gorm.DB, r Request, day Day) (string, error) {
	var rec []Receipt
	if err := tx.Where("run_id = ?", r.CompletedRunID).Order("received_at").Limit(1).Find(&rec).Error; err != nil {
		return "", err
	}
	by := "done"
	if len(rec) > 0 {
		by = fmt.Sprintf("done by %s %s", rec[0].JobKey, clockIn(rec[0].ReceivedAt, day))
	} else if r.CompletedRunID != "" {
		by = "done by run " + r.CompletedRunID
	}
	chips, err := evidenceChips(tx, evidenceList(r.CompletedRefs))
	if err != nil {
		return "", err
	}
	var cited []string
	for _, c := range chips {
		switch {
		case c.Kind == "life" && strings.HasPrefix(c.Href, "/people"):
			cited = append(cited, c.Title+"'s notes ("+c.Label+")")
		case c.Kind == "life":
			cited = append(cited, c.Title+" ("+c.Label+")")
		default:
			cited = append(cited, c.Title)
		}
	}
	if len(cited) == 0 {
		return by, nil
	}
	verb := "checked "
	if r.Kind == contract.RequestCRMEdit || r.Kind == contract.RequestNote {
		verb = "recorded in "
	}
	return by + ": " + verb + strings.Join(cited, ", "), nil
}

// clockIn is an instant as the owner reads it: "08:02" today, else with its date.
func clockIn(at time.Time, day Day) string {
	local := at.In(day.Zone)
	if local.Format(time.DateOnly) == day.Date {
		return local.Format("15:04")
	}
	return local.Format("Mon 2 Jan 15:04")
}

// finishedSends are the replies of the last week that went out and were
// delivered or answered: they finished on their own.
func finishedSends(tx *gorm.DB, now time.Time) ([]WaitingItem, error) {
	var rows []struct {
		SendKey, ChatID, Body, PersonName string
		DeliveredAt, AnsweredAt           *time.Time
	}
	// An own reply has no draft: the chat's title names whom it went to.
	err := tx.Raw(`SELECT s.send_key, s.chat_id, s.body, s.delivered_at, s.answered_at,
			COALESCE(p.name, w.title, '') AS person_name
		FROM sends s INDEXED BY sends_sent
		LEFT JOIN reply_drafts d ON d.id = s.draft_id
		LEFT JOIN people p ON p.id = d.person_id
		LEFT JOIN beeper_watch w ON w.chat_id = s.chat_id AND w.title <> ''
		WHERE s.status = 'sent' AND s.created_at >= ? AND (s.delivered_at IS NOT NULL OR s.answered_at IS NOT NULL)
		ORDER BY s.created_at DESC LIMIT ?`, now.Add(-finishedWindow).UTC(), maxFinished).Scan(&rows).Error
	if err != nil {
		return nil, err
	}
	out := make([]WaitingItem, 0, len(rows))
	for _, r := range rows {
		to, who := "Your reply", orWord(r.PersonName, "they")
		if r.PersonName != "" {
			to += " to " + r.PersonName
		}
		it := WaitingItem{Key: "sent:" + r.SendKey, Kind: WaitSent, Title: to + ": “" + preview(r.Body, pushPreview) + "”",
			ChatID: r.ChatID, ID: r.SendKey}
		if r.AnsweredAt != nil {
			it.Since, it.Detail = *r.AnsweredAt, "delivered, and "+who+" answered"
		} else {
			it.Since, it.Detail = *r.DeliveredAt, "delivered"
		}
		out = append(out, it)
	}
	return out, nil
}

// ErrNotWaiting refuses Later for a key that names nothing waiting on the owner.
var ErrNotWaiting = fmt.Errorf("nothing waiting on you has that key: %w", ErrNotFound)

// SetAside is Later on an item of the list that is not an activity (an
// activity is deferred with its own control): it comes back at until. It
// never settles or drops the item; setting it aside again moves the time.
func (s *Store) SetAside(ctx context.Context, key string, until time.Time) error {
	if strings.HasPrefix(key, "activity:") || strings.HasPrefix(key, "request:") || strings.HasPrefix(key, "sent:") {
		return ErrNotWaiting
	}
	_, err := s.commit(ctx, func(t *txn) error {
		if !until.After(t.now) {
			return &FieldError{Field: "until", Message: "Later needs a time still to come"}
		}
		day, err := OwnerDay(t.DB, t.now, "")
		if err != nil {
			return err
		}
		own, err := ownSchedules(t.DB)
		if err != nil {
			return err
		}
		v, err := waitingList(t.DB, t.now, day, own, 0)
		if err != nil {
			return err
		}
		found := false
		for _, it := range append(v.Needs, v.Aside...) {
			found = found || it.Key == key
		}
		if !found {
			return ErrNotWaiting
		}
		if _, err := t.bump(); err != nil {
			return err
		}
		t.touch("waiting:" + key)
		return t.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "item_key"}},
			DoUpdates: clause.AssignmentColumns([]string{"until", "created_at"})}).
			Table("waiting_later").Create(map[string]any{"item_key": key, "until": until.UTC(), "created_at": t.now.UTC()}).Error
	})
	return classifyPush("set aside", err)
}

// LaterTime is when Later brings an item back: the next morning at 08:00
// in the owner's zone.
func LaterTime(day Day) time.Time {
	d, _ := time.ParseInLocation(time.DateOnly, day.Tomorrow, day.Zone)
	return time.Date(d.Year(), d.Month(), d.Day(), 8, 0, 0, 0, day.Zone)
}
