package models

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/internal/weight"
)

// HomeView is Home's snapshot: the brief, today's activities grouped by
// section and ordered by rank, and what was settled today.
type HomeView struct {
	Revision int64
	// Day is the owner's day that Home shows.
	Day      Day
	Brief    *contract.BriefView
	Evidence []EvidenceChip
	// BriefBy is the publication that wrote the brief (its jobKey is the
	// job the freshness line credits); nil before any brief.
	BriefBy *contract.PublicationView
	// BriefSettled are the activities the brief names that the owner has
	// since completed, skipped or dismissed, so the brief marks them done.
	BriefSettled    []BriefMention
	LastPublication *contract.PublicationView
	Sections        []HomeSection
	Done            []HomeRow
	// Events are the buttons (Start work, End work) of active event routines.
	Events []EventTrigger
	// OccurrencesMissing: a routine's occurrence of today is still to make
	// (EnsureOccurrences), asked here to spare Home a transaction of its own.
	OccurrencesMissing bool
	// Owed counts the owed replies (OwedReplies) Messages lists.
	Owed int
	// OwnLater are the owner's own replies for later, waiting or held (a
	// draft's shows on its reply row).
	OwnLater []ScheduledSend
	// Later lists what the owner deferred past today or dismissed lately.
	Later []LaterItem
	// Undone is the newest undoable decision of a row that left Home
	// (dismissed, deferred past today), so its Undo is on Home too.
	Undone *LaterItem
	// First is the open activity the brief names first: Home's first action.
	First *HomeRow
	// Weight is today's weigh-in as Home's first screen shows it: its own
	// field on a day without a planned weigh-in, the trend once saved.
	Weight *QuickWeight
	// Mine are the owner's own items (quick add).
	Mine OwnerItemsView
	// Waiting is the "waiting on you" list (waiting.go).
	Waiting WaitingView
	// Runs is the run notice (homeRunNotice), read on the same day.
	Runs RunNotice
}

// HomeSection is one group of Home; Name is a recommendation section or "other".
type HomeSection struct {
	Name string
	Rows []HomeRow
}

// HomeRow is one activity as Home shows it, with what its control needs.
type HomeRow struct {
	contract.ActivityView
	PersonName string
	// Children are a routine's steps in rank order (dismissed ones left
	// out); Done of Total were completed.
	Children    []HomeRow
	Done, Total int
	Measurement *MeasurementSummary
	Draft       *contract.DraftView
	// Scheduled is the draft's send for later (ChatDraft.Scheduled).
	Scheduled *ScheduledSend
	// Occurrence is set on the routine activity of a routine occurrence
	// (ID hearth:<routine>@<occasion>): its outcome and feedback.
	Occurrence *OccurrenceOutcome
	// Undo is the owner's decision on this row made on Home within
	// UndoWindow, while it can still be undone.
	Undo *UndoOffer
}

// OccurrenceOutcome is what Home shows of a routine occurrence: its ID (for
// feedback) and its current outcome, with the owner's one-tap feedback.
type OccurrenceOutcome struct {
	ID      string
	Outcome string // empty until one is recorded
	Effort  string
	Helped  string
}

// RoutineReplyChat is the chat of a routine occurrence's reply step, which
// has no draft: a confirmed send to that chat (any chat when chatID is
// empty) completes it. ok is false for any other row.
func (r HomeRow) RoutineReplyChat() (chatID string, ok bool) {
	if r.Kind != contract.KindReply || r.Draft != nil || !strings.HasPrefix(r.ID, contract.HearthIDPrefix) {
		return "", false
	}
	var p contract.RoutineReplyPayload
	_ = json.Unmarshal(r.Payload, &p)
	if p.ChatID != nil {
		return *p.ChatID, true
	}
	return "", true
}

// Settled reports whether the owner completed or skipped the activity.
func (r HomeRow) Settled() bool { return settled(r.UserState.State) }

// MeasurementSummary is what a measurement row shows beside its field.
type MeasurementSummary struct {
	Metric, Unit string
	Min, Max     float64
	// Saved is this occurrence's current value, if recorded.
	Saved *contract.MeasurementView
	// Last is the newest value of the metric from any occurrence.
	Last *contract.MeasurementView
	// Recent are up to 30 current values of the metric, oldest first.
	Recent []float64
	// Trend is the weight trend after Saved (weight only).
	Trend *TrendNote
}

// EvidenceChip is a source ref shown as a chip: Title names what it cites
// in words (the person a life file is about, the file's title, the person a
// chat is with) and Href is where hearth shows it ("" when nowhere); Label
// (the path or chat ID) and Hash are the operator's detail.
type EvidenceChip struct {
	ID, Kind, Label, Hash string
	Title, Href           string
}

// HomeSections orders Home's groups.
var HomeSections = []string{"routine", "focus", "optional", "other"}

// homeWindow loads the candidates for Home: open undated activities, open
// occurrences of today (in the owner's zone), anything settled since the
// start of today, and occurrences of other days deferred to today. Pinned
// to activities_window and activity_states_deferred, so flat in history.
const homeWindow = `SELECT a.*, COALESCE(p.name, ''), s.state, s.until, s.note, s.updated_at
	FROM (SELECT ` + homeColumns + ` FROM activities INDEXED BY activities_window WHERE closed_at IS NULL AND occurrence_date = '' AND retracted_at IS NULL
	      UNION ALL
	      SELECT ` + homeColumns + ` FROM activities INDEXED BY activities_window WHERE closed_at IS NULL AND occurrence_date = @today AND retracted_at IS NULL
	      UNION ALL
	      SELECT ` + homeColumns + ` FROM activities INDEXED BY activities_window WHERE closed_at >= @startOfDay AND retracted_at IS NULL
	      UNION ALL
	      SELECT ` + deferredColumns + ` FROM activity_states d INDEXED BY activity_states_deferred CROSS JOIN activities x ON x.id = d.activity_id
	        WHERE d.state = 'deferred' AND d.until = @today AND x.closed_at IS NULL AND x.occurrence_date NOT IN ('', @today) AND x.retracted_at IS NULL) AS a
	LEFT JOIN activity_states s ON s.activity_id = a.id
	LEFT JOIN people p ON p.id = a.person_id`

// homeColumns are the activity columns Home shows, in scanActivityRows'
// order. Each column costs a conversion per row, so what Home does not show
// (evidence, revisions, timestamps; retraction, which the window excludes)
// is left out, and HomeRow leaves those fields empty.
const homeColumns = "id, kind, title, detail, person_id, parent_id, draft_id, occurrence_key, section, rank, reason, payload"

// deferredColumns are homeColumns read from the deferred branch, which is
// driven from activity_states (CROSS JOIN fixes that order): driven from
// activities, SQLite walked every open activity of every day.
const deferredColumns = "x.id, x.kind, x.title, x.detail, x.person_id, x.parent_id, x.draft_id, x.occurrence_key, x.section, x.rank, x.reason, x.payload"

// scanActivityRows reads homeColumns plus the owner's state by hand:
// GORM's reflective scan was a third of Home's read and most of its garbage.
func scanActivityRows(q *gorm.DB) ([]activityRow, error) {
	rows, err := q.Rows()
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]activityRow, 0, 64)
	var stateAt sql.NullTime
	var state, until, note sql.NullString
	for rows.Next() {
		// Scanned in place: a row scanned apart and appended escaped to the heap once more.
		out = append(out, activityRow{})
		r := &out[len(out)-1]
		if err := rows.Scan(&r.ID, &r.Kind, &r.Title, &r.Detail, &r.PersonID, &r.ParentID, &r.DraftID, &r.OccurrenceKey,
			&r.Section, &r.Rank, &r.Reason, &r.Payload, &r.PersonName, &state, &until, &note, &stateAt); err != nil {
			return nil, err
		}
		if state.Valid {
			// One allocation for the three, which outlive the scan's variables.
			kept := &struct{ state, until, note string }{state.String, until.String, note.String}
			r.State, r.Until, r.Note = &kept.state, &kept.until, &kept.note
		}
		if stateAt.Valid {
			at := stateAt.Time
			r.StateAt = &at
		}
	}
	return out, rows.Err()
}

// Home reads the snapshot Home renders, its run notice under costs
// included, in one read transaction, with the WaitingOnHome oldest items
// that wait on the owner.
func (s *Store) Home(ctx context.Context, costs costpolicy.Policy) (HomeView, error) {
	return s.home(ctx, costs, WaitingOnHome)
}

// HomeWithAllWaiting is Home with all that waits on the owner ("Show all").
func (s *Store) HomeWithAllWaiting(ctx context.Context, costs costpolicy.Policy) (HomeView, error) {
	return s.home(ctx, costs, 0)
}

// home is Home with at most shown items that need the owner (0: all).
func (s *Store) home(ctx context.Context, costs costpolicy.Policy, shown int) (HomeView, error) {
	var v HomeView
	err := s.readAfterCommit(ctx, func(tx *gorm.DB) error {
		now := s.clock()
		var err error
		if v.Revision, v.Brief, v.LastPublication, err = homeHead(tx); err != nil {
			return err
		}
		// ownerDay would read the brief's zone again: the brief is read.
		v.Day = briefDay(v.Brief, now)
		brief, startOfDay := v.Brief, v.Day.Start
		if v.Events, v.OccurrencesMissing, err = routineDay(tx, v.Day); err != nil {
			return err
		}
		owed, err := owedReplies(tx, now, v.Day, s.owedAfter)
		if err != nil {
			return err
		}
		v.Owed = len(owed)
		if v.OwnLater, err = ownSchedules(tx); err != nil {
			return err
		}
		if brief != nil {
			if v.Evidence, err = evidenceChips(tx, brief.EvidenceIDs); err != nil {
				return err
			}
			// Usually the newest publication wrote the brief: no second read.
			if p := v.LastPublication; p != nil && p.Revision == brief.Revision {
				by := *p
				v.BriefBy = &by
			} else if v.BriefBy, err = publicationAt(tx, brief.Revision); err != nil {
				return err
			}
		}
		rows, err := scanActivityRows(tx.Raw(homeWindow, map[string]any{"today": v.Day.Date, "startOfDay": startOfDay}))
		if err != nil {
			return err
		}
		rows = slices.DeleteFunc(rows, func(r activityRow) bool { return !r.place(v.Day).OnHome() })
		tops, err := decorate(tx, rows, now, v.Day, nil)
		if err != nil {
			return err
		}
		offers, err := undoOffers(tx, now)
		if err != nil {
			return err
		}
		attachUndo(tops, offers)
		if v.Later, err = laterItems(tx, v.Day, now); err != nil {
			return err
		}
		for i := range v.Later {
			v.Later[i].Undo = offers[v.Later[i].ID]
			if u := v.Later[i].Undo; u != nil && (v.Undone == nil || u.At.After(v.Undone.Undo.At)) {
				v.Undone = &v.Later[i]
			}
		}
		bySection := map[string][]HomeRow{}
		// Sized once: a HomeRow is large, and growing Done copied each one again.
		if settled := countSettled(tops); settled > 0 {
			v.Done = make([]HomeRow, 0, settled)
		}
		for _, r := range tops {
			if r.Settled() {
				v.Done = append(v.Done, r)
				continue
			}
			name := "other"
			if r.Recommendation != nil {
				name = r.Recommendation.Section
			}
			bySection[name] = append(bySection[name], r)
		}
		for _, name := range HomeSections {
			if len(bySection[name]) > 0 {
				v.Sections = append(v.Sections, HomeSection{Name: name, Rows: bySection[name]})
			}
		}
		if brief != nil {
			v.BriefSettled = briefSettled(brief.Text, tops, v.Later)
			v.First = briefFirst(brief.Text, tops)
		}
		if v.Weight, err = quickWeight(tx, now, v.Day, plansWeighIn(tops)); err != nil {
			return err
		}
		if v.Mine, err = ownerItemsOnHome(tx, v.Day); err != nil {
			return err
		}
		if v.Waiting, err = waitingList(tx, now, v.Day, v.OwnLater, shown); err != nil {
			return err
		}
		v.Runs, err = homeNoticeOf(tx, v.Day, costs)
		return err
	})
	if err != nil {
		return HomeView{}, Classify("home", err)
	}
	return v, nil
}

// countSettled counts the rows the owner completed or skipped.
func countSettled(rows []HomeRow) (n int) {
	for _, r := range rows {
		if r.Settled() {
			n++
		}
	}
	return n
}

// homeHead reads, in one statement, what WorkspaceRevision, briefView and
// lastPublication read apart: the revision, the brief (nil before any) and
// the newest accepted publication (nil before any). Each statement is
// compiled anew by the driver, so three small reads cost more than one.
func homeHead(tx *gorm.DB) (rev int64, brief *contract.BriefView, last *contract.PublicationView, err error) {
	var date, zone, text, evidence, runID, jobKey, publisher sql.NullString
	var briefRev, pubRev sql.NullInt64
	var briefAt, receivedAt sql.NullTime
	err = tx.Raw(`SELECT w.revision, b.date, b.time_zone, b.text, b.evidence_ids, b.revision, b.updated_at,
			r.run_id, r.job_key, r.publisher, r.revision, r.received_at
		FROM workspace w
		LEFT JOIN briefs b ON b.id = 1
		LEFT JOIN receipts r ON r.rowid = (SELECT x.rowid FROM receipts x ORDER BY x.revision DESC LIMIT 1)
		WHERE w.id = 1`).Row().Scan(&rev, &date, &zone, &text, &evidence, &briefRev, &briefAt,
		&runID, &jobKey, &publisher, &pubRev, &receivedAt)
	if err != nil {
		return 0, nil, nil, err
	}
	if briefRev.Valid {
		brief = &contract.BriefView{Date: date.String, TimeZone: zone.String, Text: text.String,
			EvidenceIDs: evidenceList(evidence.String), Revision: briefRev.Int64, UpdatedAt: briefAt.Time}
	}
	if pubRev.Valid {
		last = &contract.PublicationView{RunID: runID.String, JobKey: jobKey.String, Publisher: publisher.String,
			Revision: pubRev.Int64, ReceivedAt: receivedAt.Time}
	}
	return rev, brief, last, nil
}

// BriefMention is an activity the brief names: its title occurs in the
// brief's text (any case) and State is how the owner settled it.
type BriefMention struct {
	ID, Title, State string
}

// minMentionLen keeps a short title ("Run") from marking a word of the
// brief that means something else.
const minMentionLen = 6

// briefSettled lists the activities of today's Home (routine steps
// included) and the dismissed ones under Later whose title the brief's text
// names and that the owner completed, skipped or dismissed. The publication
// has no list of what the brief names, so a title in the text is the name.
func briefSettled(text string, tops []HomeRow, later []LaterItem) []BriefMention {
	lower := strings.ToLower(text)
	var out []BriefMention
	seen := map[string]bool{}
	add := func(id, title, state string) {
		switch state {
		case StateCompleted, StateSkipped, StateDismissed:
		default:
			return
		}
		if seen[id] || !mentions(lower, title) {
			return
		}
		seen[id] = true
		out = append(out, BriefMention{ID: id, Title: strings.TrimSpace(title), State: state})
	}
	var walk func([]HomeRow)
	walk = func(rows []HomeRow) {
		for _, r := range rows {
			add(r.ID, r.Title, r.UserState.State)
			walk(r.Children)
		}
	}
	walk(tops)
	for _, l := range later {
		add(l.ID, l.Title, l.State)
	}
	return out
}

// HomeRow reads one activity as Home shows it (a routine with its steps),
// with the owner's day its controls compute dates from.
func (s *Store) HomeRow(ctx context.Context, id string) (HomeRow, Day, error) {
	var r homeRowRead
	err := s.Read(ctx, func(tx *gorm.DB) error {
		brief, err := briefView(tx)
		if err != nil {
			return err
		}
		if r, err = readHomeRow(tx, id, id, s.clock(), brief); err == nil && r.row.ID == "" {
			err = ErrNotFound
		}
		return err
	})
	if err != nil {
		return HomeRow{}, Day{}, Classify("home row", err)
	}
	return r.row, r.day, nil
}

// homeRowRead is one row of Home read with what answers an action on it.
type homeRowRead struct {
	// row is top as Home shows it; empty when Home cannot show it.
	row HomeRow
	// acted is the acted-on row as its own fragment shows it.
	acted HomeRow
	// day is the owner's day row's controls compute dates from.
	day Day
	// place is where the acted-on row is on Home.
	place Place
	// raw is every activity read: top and all its steps.
	raw []activityRow
}

// readHomeRow reads activity top and its steps as Home shows them (a step
// that is not on Home today has left its routine), and acted (top or one
// of its steps) as its own fragment shows it, on the owner's day by brief.
func readHomeRow(tx *gorm.DB, top, acted string, now time.Time, brief *contract.BriefView) (homeRowRead, error) {
	var out homeRowRead
	raw, extras, err := scanHomeRowRows(tx.Raw(homeRowQuery, map[string]any{"id": top, "since": now.Add(-UndoWindow).UTC()}))
	if err != nil {
		return out, err
	}
	out.raw = raw
	today := briefDay(brief, now)
	rows := slices.DeleteFunc(slices.Clone(raw), func(r activityRow) bool { return r.ID != top && !r.place(today).OnHome() })
	tops, err := decorate(tx, rows, now, today, extras.saved)
	if err != nil {
		return out, err
	}
	attachUndo(tops, extras.offers)
	i := slices.IndexFunc(tops, func(r HomeRow) bool { return r.ID == top })
	if i < 0 {
		return out, nil
	}
	out.row, out.day = tops[i], dayFor(brief, now, tops[i].OccurrenceKey)
	j := slices.IndexFunc(raw, func(r activityRow) bool { return r.ID == acted })
	if j < 0 {
		return homeRowRead{raw: raw}, nil
	}
	out.place = raw[j].place(today)
	if acted == top {
		out.acted = out.row
		return out, nil
	}
	if k := slices.IndexFunc(out.row.Children, func(r HomeRow) bool { return r.ID == acted }); k >= 0 {
		out.acted = out.row.Children[k]
		return out, nil
	}
	// The step has left its routine (dismissed, or off Home today).
	alone, err := decorate(tx, raw[j:j+1], now, today, extras.saved)
	if err != nil {
		return out, err
	}
	attachUndo(alone, extras.offers)
	out.acted = alone[0]
	return out, nil
}

// homeRowQuery reads one activity and its steps the way homeWindow reads
// Home, with what decorate and attachUndo would read apart: each one's
// undo offer (its newest decision, when made on Home since @since) and a
// measurement's saved value (its newest for the current occurrence).
const homeRowQuery = `SELECT a.*, COALESCE(p.name, ''), s.state, s.until, s.note, s.updated_at,
		d.id, d.state, d.until, d.created_at,
		m.id, m.occurrence_key, m.metric, m.unit, m.value, m.supersedes_id, m.recorded_at
	FROM (SELECT ` + homeColumns + ` FROM activities WHERE (id = @id OR parent_id = @id) AND retracted_at IS NULL) AS a
	LEFT JOIN activity_states s ON s.activity_id = a.id
	LEFT JOIN people p ON p.id = a.person_id
	LEFT JOIN activity_decisions d ON d.id = (SELECT MAX(x.id) FROM activity_decisions x WHERE x.activity_id = a.id)
		AND d.cause = '` + CauseHome + `' AND d.created_at >= @since
	LEFT JOIN measurements m ON a.kind = '` + contract.KindMeasurement + `'
		AND m.id = (SELECT MAX(y.id) FROM measurements y WHERE y.activity_id = a.id AND y.occurrence_key = a.occurrence_key)`

// rowExtras are homeRowQuery's undo offers and saved values, by activity.
type rowExtras struct {
	offers map[string]*UndoOffer
	saved  map[string]*contract.MeasurementView
}

// scanHomeRowRows scans homeRowQuery: scanActivityRows' columns, then the extras.
func scanHomeRowRows(q *gorm.DB) ([]activityRow, rowExtras, error) {
	ex := rowExtras{offers: map[string]*UndoOffer{}, saved: map[string]*contract.MeasurementView{}}
	rows, err := q.Rows()
	if err != nil {
		return nil, ex, err
	}
	defer rows.Close()
	var out []activityRow
	for rows.Next() {
		var r activityRow
		var stateAt, offerAt, savedAt sql.NullTime
		var state, until, note, offerState, offerUntil, savedKey, savedMetric, savedUnit sql.NullString
		var offerID, savedID, supersedes sql.NullInt64
		var value sql.NullFloat64
		if err := rows.Scan(&r.ID, &r.Kind, &r.Title, &r.Detail, &r.PersonID, &r.ParentID, &r.DraftID, &r.OccurrenceKey,
			&r.Section, &r.Rank, &r.Reason, &r.Payload, &r.PersonName, &state, &until, &note, &stateAt,
			&offerID, &offerState, &offerUntil, &offerAt,
			&savedID, &savedKey, &savedMetric, &savedUnit, &value, &supersedes, &savedAt); err != nil {
			return nil, ex, err
		}
		if state.Valid {
			r.State, r.Until, r.Note = &state.String, &until.String, &note.String
		}
		if stateAt.Valid {
			r.StateAt = &stateAt.Time
		}
		if offerID.Valid {
			ex.offers[r.ID] = &UndoOffer{DecisionID: offerID.Int64, State: offerState.String, Until: offerUntil.String, At: offerAt.Time}
		}
		if savedID.Valid {
			m := Measurement{ID: savedID.Int64, ActivityID: r.ID, OccurrenceKey: savedKey.String, Metric: savedMetric.String,
				Unit: savedUnit.String, Value: value.Float64, RecordedAt: savedAt.Time}
			if supersedes.Valid {
				m.SupersedesID = &supersedes.Int64
			}
			v := measurementView(m)
			ex.saved[r.ID] = &v
		}
		out = append(out, r)
	}
	return out, ex, rows.Err()
}

// decorate turns activity rows (with person names, from scanActivityRows)
// into Home rows of day: drafts, measurements, and routine steps nested
// under their routine. saved are the measurements' saved values when
// already read (nil: read them here).
func decorate(tx *gorm.DB, rows []activityRow, now time.Time, day Day, saved map[string]*contract.MeasurementView) ([]HomeRow, error) {
	var draftIDs, metrics, measured []string
	for _, r := range rows {
		if r.DraftID != nil {
			draftIDs = append(draftIDs, *r.DraftID)
		}
		if r.Kind == contract.KindMeasurement {
			var p contract.MeasurementPayload
			if json.Unmarshal([]byte(r.Payload), &p) == nil && !slices.Contains(metrics, p.Metric) {
				metrics = append(metrics, p.Metric)
			}
			measured = append(measured, r.ID)
		}
	}
	drafts := map[string]*contract.DraftView{}
	if len(draftIDs) > 0 {
		ds, err := scanDraftRows(draftsWithEdits(tx).Where("reply_drafts.id IN ?", draftIDs))
		if err != nil {
			return nil, err
		}
		views := make([]contract.DraftView, len(ds))
		for i, d := range ds {
			views[i] = d.view()
		}
		if err := markStale(tx, views); err != nil {
			return nil, err
		}
		for i := range views {
			drafts[views[i].ID] = &views[i]
		}
	}
	scheduled, err := latestSchedules(tx, draftIDs)
	if err != nil {
		return nil, err
	}
	recent, err := recentMeasurements(tx, metrics)
	if err != nil {
		return nil, err
	}
	if saved == nil {
		if saved, err = savedMeasurements(tx, measured); err != nil {
			return nil, err
		}
	}

	all := make([]HomeRow, len(rows))
	index := map[string]int{}
	for i, r := range rows {
		h := HomeRow{ActivityView: r.view(), PersonName: r.PersonName}
		if r.DraftID != nil {
			h.Draft, h.Scheduled = drafts[*r.DraftID], scheduled[*r.DraftID]
		}
		if r.Kind == contract.KindMeasurement {
			var p contract.MeasurementPayload
			json.Unmarshal([]byte(r.Payload), &p)
			bounds := weight.Bounds[p.Unit]
			m := &MeasurementSummary{Metric: p.Metric, Unit: p.Unit, Min: bounds[0], Max: bounds[1], Saved: saved[r.ID]}
			for _, mv := range recent[p.Metric] {
				// One sparkline mixes kg and lb.
				m.Recent = append(m.Recent, weight.Convert(mv.Value, mv.Unit, p.Unit))
			}
			if n := len(recent[p.Metric]); n > 0 {
				last := recent[p.Metric][n-1]
				m.Last = &last
			}
			h.Measurement = m
		}
		all[i] = h
		index[r.ID] = i
	}
	if err := attachTrend(tx, now, day, all); err != nil {
		return nil, err
	}
	tops := make([]HomeRow, 0, len(all))
	for i := range all {
		if parent := all[i].ParentID; parent != "" {
			if _, ok := index[parent]; ok {
				continue // nested below
			}
		}
		tops = append(tops, nest(all, index, all[i]))
	}
	sortRows(tops)
	if err := attachOccurrences(tx, tops); err != nil {
		return nil, err
	}
	return tops, nil
}

// attachOccurrences sets Occurrence on the routine rows that are routine
// occurrences, with each one's newest outcome row.
func attachOccurrences(tx *gorm.DB, tops []HomeRow) error {
	index := map[string]int{}
	for i, r := range tops {
		if r.Kind == contract.KindRoutine && strings.HasPrefix(r.ID, contract.HearthIDPrefix) {
			index[r.ID] = i
		}
	}
	if len(index) == 0 {
		return nil
	}
	var rows []struct {
		ActivityID string
		OccurrenceOutcome
	}
	err := tx.Raw(`SELECT o.activity_id, o.id, COALESCE(r.outcome, '') AS outcome, COALESCE(r.effort, '') AS effort,
			COALESCE(r.helped, '') AS helped
		FROM routine_occurrences o
		LEFT JOIN routine_outcomes r ON r.id = (SELECT MAX(x.id) FROM routine_outcomes x WHERE x.occurrence_id = o.id)
		WHERE o.activity_id IN ?`, slices.Collect(maps.Keys(index))).Scan(&rows).Error
	if err != nil {
		return err
	}
	for _, r := range rows {
		occ := r.OccurrenceOutcome
		tops[index[r.ActivityID]].Occurrence = &occ
	}
	return nil
}

// EventTrigger is an event Home offers as a button because the routine of
// an active trial applies on it today.
type EventTrigger struct {
	Event string // start-work or end-work
	// Done reports that every such routine already has today's occurrence:
	// the owner tapped it today (a second tap changes nothing).
	Done bool
}

// routineDay reads day's active trials once: the event routines' events
// (start-work first), and whether another that plans day lacks its occurrence.
func routineDay(tx *gorm.DB, day Day) (events []EventTrigger, missing bool, err error) {
	type trialOfDay struct {
		RoutineTrial
		TriggerKind  string
		TriggerEvent string
		Occurred     bool
	}
	rows, err := scanRows(tx.Raw(`SELECT t.id, t.routine_id, t.revision, t.days, t.zone, t.starts_on, t.ends_on, t.ended_on, t.state,
			t.revision_at, t.created_at, t.updated_at, COALESCE(d.trigger_kind, ''), COALESCE(d.trigger_event, ''),
			EXISTS (SELECT 1 FROM routine_occurrences o WHERE o.routine_id = t.routine_id
				AND o.occasion = (CASE WHEN d.trigger_kind = 'event' THEN @date || '.' || d.trigger_event ELSE @date END)) AS occurred
		FROM routine_trials t JOIN routine_definitions d ON d.routine_id = t.routine_id AND d.revision = t.revision
		WHERE t.state = 'active' AND t.starts_on <= @date AND t.ends_on >= @date`,
		map[string]any{"date": day.Date}), func(r *trialOfDay) []any {
		return []any{&r.ID, &r.RoutineID, &r.Revision, &r.Days, &r.Zone, &r.StartsOn, &r.EndsOn, &r.EndedOn, &r.State,
			&r.RevisionAt, &r.CreatedAt, &r.UpdatedAt, &r.TriggerKind, &r.TriggerEvent, &r.Occurred}
	})
	if err != nil {
		return nil, false, err
	}
	for _, event := range []string{contract.EventStartWork, contract.EventEndWork} {
		applies, done := false, true
		for _, r := range rows {
			if r.TriggerKind == contract.TriggerEvent && r.TriggerEvent == event && trialApplies(r.RoutineTrial, day.Date) {
				applies, done = true, done && r.Occurred
			}
		}
		if applies {
			events = append(events, EventTrigger{Event: event, Done: done})
		}
	}
	// Only one that plans today (weekdays, an early end) lacks it: else a weekly routine's rest day would write on every Home.
	missing = slices.ContainsFunc(rows, func(r trialOfDay) bool {
		return r.TriggerKind != contract.TriggerEvent && !r.Occurred && trialApplies(r.RoutineTrial, day.Date)
	})
	return events, missing, nil
}

// nest attaches a routine's steps (rows whose parent it is) in rank order.
func nest(all []HomeRow, index map[string]int, r HomeRow) HomeRow {
	if r.Kind != contract.KindRoutine {
		return r
	}
	for _, c := range all {
		if c.ParentID == r.ID {
			child := nest(all, index, c)
			if child.UserState.State == StateDismissed {
				continue
			}
			r.Children = append(r.Children, child)
			r.Total++
			if child.UserState.State == StateCompleted {
				r.Done++
			}
		}
	}
	sortRows(r.Children)
	return r
}

func sortRows(rows []HomeRow) {
	slices.SortStableFunc(rows, func(a, b HomeRow) int {
		ra, rb := int64(1<<40), int64(1<<40)
		if a.Recommendation != nil {
			ra = a.Recommendation.Rank
		}
		if b.Recommendation != nil {
			rb = b.Recommendation.Rank
		}
		if ra != rb {
			return int(ra - rb)
		}
		return strings.Compare(a.Title, b.Title)
	})
}

// recentMeasurements returns up to 30 current (not superseded) values per metric, oldest first.
func recentMeasurements(tx *gorm.DB, metrics []string) (map[string][]contract.MeasurementView, error) {
	out := map[string][]contract.MeasurementView{}
	for _, metric := range metrics {
		// NOT EXISTS by measurements_supersedes, per row walked newest first:
		// NOT IN built the set of the metric's every value ever (2,917
		// weigh-ins after five seeded years) before the 30 were read.
		ms, err := scanMeasurements(tx.Raw(`SELECT `+measurementColumns+` FROM measurements m INDEXED BY measurements_metric WHERE m.metric = ?
			AND NOT EXISTS (SELECT 1 FROM measurements s WHERE s.supersedes_id = m.id)
			ORDER BY m.recorded_at DESC LIMIT 30`, metric))
		if err != nil {
			return nil, err
		}
		for i := len(ms) - 1; i >= 0; i-- {
			out[metric] = append(out[metric], measurementView(ms[i]))
		}
	}
	return out, nil
}

// savedMeasurements returns each activity's newest value for its current occurrence.
func savedMeasurements(tx *gorm.DB, activityIDs []string) (map[string]*contract.MeasurementView, error) {
	out := map[string]*contract.MeasurementView{}
	if len(activityIDs) == 0 {
		return out, nil
	}
	ms, err := scanMeasurements(tx.Raw(`SELECT `+measurementColumns+` FROM measurements m JOIN activities a ON a.id = m.activity_id
		WHERE m.activity_id IN ? AND m.occurrence_key = a.occurrence_key ORDER BY m.id`, activityIDs))
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		v := measurementView(m)
		out[m.ActivityID] = &v
	}
	return out, nil
}

// measurementColumns are a measurement's columns (of m) in scanMeasurements' order; an
// imported reading has no activity ("", as GORM scanned it).
const measurementColumns = "m.id, COALESCE(m.activity_id, ''), m.occurrence_key, m.metric, m.unit, m.value, m.supersedes_id, m.revision, m.recorded_at, m.source"

// scanMeasurements scans the measurementColumns q selects.
func scanMeasurements(q *gorm.DB) ([]Measurement, error) {
	return scanRows(q, func(m *Measurement) []any {
		return []any{&m.ID, &m.ActivityID, &m.OccurrenceKey, &m.Metric, &m.Unit, &m.Value, &m.SupersedesID, &m.Revision, &m.RecordedAt, &m.Source}
	})
}

func measurementView(m Measurement) contract.MeasurementView {
	return contract.MeasurementView{ID: m.ID, ActivityID: m.ActivityID, OccurrenceKey: m.OccurrenceKey, Metric: m.Metric, Unit: m.Unit,
		Value: m.Value, SupersedesID: m.SupersedesID, RecordedAt: m.RecordedAt}
}

// EvidenceChips resolves source ref IDs to chips, in the given order.
func (s *Store) EvidenceChips(ctx context.Context, ids []string) ([]EvidenceChip, error) {
	chips, err := evidenceChips(s.rdb.WithContext(ctx), ids)
	if err != nil {
		return nil, fmt.Errorf("models: evidence: %w", err)
	}
	return chips, nil
}

// evidenceChips resolves source ref IDs to chips, in the given order.
func evidenceChips(tx *gorm.DB, ids []string) ([]EvidenceChip, error) {
	if len(ids) == 0 {
		return nil, nil
	}
	refs, err := chipRefs(tx, ids)
	if err != nil {
		return nil, err
	}
	byID := map[string]SourceRef{}
	for _, r := range refs {
		byID[r.ID] = r
	}
	names, err := evidenceNames(tx, refs)
	if err != nil {
		return nil, err
	}
	var chips []EvidenceChip
	for _, id := range ids {
		r, ok := byID[id]
		if !ok {
			continue
		}
		c := EvidenceChip{ID: r.ID, Kind: r.Kind}
		if r.Kind == "life" {
			c.Label = r.Path
			c.Hash = strings.TrimPrefix(r.ContentHash, "sha256:")[:8]
			if p, ok := names.people[r.ID]; ok {
				c.Title, c.Href = p.Name, "/people#person-"+p.ID
			} else {
				c.Title = fileTitle(r.Path)
			}
		} else {
			c.Label = r.ChatID
			c.Href = "/messages/" + url.PathEscape(r.ChatID)
			if t := names.chats[r.ChatID]; t != "" {
				c.Title = "Chat with " + t
			} else {
				c.Title = "A chat"
			}
		}
		chips = append(chips, c)
	}
	return chips, nil
}

// chipRefs reads the source refs ids name, with the columns a chip shows
// (ID, kind, path, content hash, chat).
func chipRefs(tx *gorm.DB, ids []string) ([]SourceRef, error) {
	return scanRows(tx.Raw(`SELECT id, kind, path, content_hash, chat_id FROM source_refs WHERE id IN ?`, ids),
		func(r *SourceRef) []any { return []any{&r.ID, &r.Kind, &r.Path, &r.ContentHash, &r.ChatID} })
}

// evidenceNamesOf are the words for source refs: the person whose evidence
// a life ref is, and the title of each chat (Beeper's, else the person a
// draft in it concerns).
type evidenceNamesOf struct {
	people map[string]struct{ ID, Name string } // by ref ID
	chats  map[string]string                    // by chat ID
}

func evidenceNames(tx *gorm.DB, refs []SourceRef) (evidenceNamesOf, error) {
	n := evidenceNamesOf{people: map[string]struct{ ID, Name string }{}, chats: map[string]string{}}
	var life, chats []string
	for _, r := range refs {
		if r.Kind == "life" {
			life = append(life, r.ID)
		} else if r.ChatID != "" {
			chats = append(chats, r.ChatID)
		}
	}
	if len(life) > 0 {
		type personOfRef struct{ Ref, ID, Name string }
		rows, err := scanRows(tx.Raw(`SELECT j.value AS ref, p.id, p.name FROM people p, json_each(p.evidence_ids) j
			WHERE j.value IN ? ORDER BY p.name, p.id`, life), func(r *personOfRef) []any { return []any{&r.Ref, &r.ID, &r.Name} })
		if err != nil {
			return n, err
		}
		for _, r := range rows {
			if _, ok := n.people[r.Ref]; !ok {
				n.people[r.Ref] = struct{ ID, Name string }{r.ID, r.Name}
			}
		}
	}
	if len(chats) > 0 {
		type chatTitle struct{ ChatID, Title string }
		// Beeper's title first; a draft's person where the watch has none:
		// the chat's first draft about someone, one lookup per chat (a
		// chat's every draft ever was read: hundreds after years of use).
		ids, _ := json.Marshal(chats)
		rows, err := scanRows(tx.Raw(`SELECT chat_id, title FROM beeper_watch WHERE chat_id IN ? AND title <> ''
			UNION ALL
			SELECT c.value, (SELECT p.name FROM reply_drafts d INDEXED BY reply_drafts_chat JOIN people p ON p.id = d.person_id
				WHERE d.chat_id = c.value ORDER BY d.rowid LIMIT 1) AS name FROM json_each(?) c WHERE name IS NOT NULL`,
			chats, string(ids)), func(r *chatTitle) []any { return []any{&r.ChatID, &r.Title} })
		if err != nil {
			return n, err
		}
		for _, r := range rows {
			if _, ok := n.chats[r.ChatID]; !ok {
				n.chats[r.ChatID] = r.Title
			}
		}
	}
	return n, nil
}

// fileTitle is a life file's title from its path: "areas/sleep-and-rest.md"
// is "Sleep and rest".
func fileTitle(path string) string {
	base := path[strings.LastIndex(path, "/")+1:]
	if i := strings.LastIndex(base, "."); i > 0 {
		base = base[:i]
	}
	base = strings.TrimSpace(strings.NewReplacer("-", " ", "_", " ").Replace(base))
	if base == "" {
		return "A note"
	}
	r := []rune(base)
	return strings.ToUpper(string(r[0])) + string(r[1:])
}
