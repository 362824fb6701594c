package models

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/ids"
)

// ContextHistory is how far back settled items appear in the agent context.
const ContextHistory = 14 * 24 * time.Hour

// ContextPageSize bounds every collection of the agent context.
const ContextPageSize = 500

// Collections that GET /api/agent-context/{collection} pages through.
const (
	CollectionPeople       = "people"
	CollectionActivities   = "activities"
	CollectionReplyDrafts  = "replyDrafts"
	CollectionMeasurements = "measurements"
	CollectionSends        = "sends"
	CollectionRequests     = "requests"
	CollectionObservations = "observations"
)

// ContextCollections lists the pageable collections.
var ContextCollections = []string{CollectionPeople, CollectionActivities, CollectionReplyDrafts, CollectionMeasurements, CollectionSends, CollectionRequests,
	CollectionObservations, CollectionRoutineDefinitions, CollectionTrials, CollectionOccurrences, CollectionRoutineMetrics, CollectionReplyDecisions, CollectionActivityDecisions}

// AgentContext is what the agent reads before it reasons (docs/agent-api.md).
type AgentContext struct {
	Revision    int64      `json:"revision"`
	GeneratedAt time.Time  `json:"generatedAt"`
	Brief       *BriefView `json:"brief,omitempty"`
	Today       TodayView  `json:"today"`
	// WeightGoal is the owner's weight goal, when set (the weight page).
	WeightGoal   *WeightGoal           `json:"weightGoal,omitempty"`
	People       Page[PersonView]      `json:"people"`
	Activities   Page[ActivityView]    `json:"activities"`
	ReplyDrafts  Page[DraftView]       `json:"replyDrafts"`
	Measurements Page[MeasurementView] `json:"measurements"`
	Sends        Page[SendView]        `json:"sends"`
	Requests     Page[RequestView]     `json:"requests"`
	Observations Page[ObservationView] `json:"observations"`
	// ReplyDecisions are the owner's decisions about chats' replies in the
	// last 14 days: no reply needed, remind later, handed off, own reply.
	ReplyDecisions Page[ReplyDecisionView] `json:"replyDecisions"`
	// ActivityDecisions are the changes of owner states in the last 14
	// days, oldest first, each with the state it replaced: a decision on
	// Home and its undo are two items (cause "undo", undoes: the first).
	ActivityDecisions Page[ActivityDecisionView] `json:"activityDecisions"`
	// Routines (issue 9): current definitions, recent trials, the last 14
	// days of occurrences with outcomes, and each recent trial's counts.
	RoutineDefinitions Page[RoutineContextView] `json:"routineDefinitions"`
	Trials             Page[TrialView]          `json:"trials"`
	Occurrences        Page[OccurrenceView]     `json:"occurrences"`
	RoutineMetrics     Page[TrialMetricsView]   `json:"routineMetrics"`
	LastPublication    *PublicationView         `json:"lastPublication,omitempty"`
	// JobFates is, per job and per window of FateWindows days, what its
	// runs published and what became of it (a job with no run in a window
	// has no entry for it).
	JobFates []WorkFates `json:"jobFates,omitempty"`
}

// Page is a bounded slice of a collection; NextCursor continues it.
type Page[T any] struct {
	Items      []T    `json:"items"`
	Truncated  bool   `json:"truncated"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// BriefView is the stored brief.
type BriefView struct {
	Date        string    `json:"date"`
	TimeZone    string    `json:"timeZone"`
	Text        string    `json:"text"`
	EvidenceIDs []string  `json:"evidenceIds"`
	Revision    int64     `json:"revision"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// PersonView is a stored person projection.
type PersonView struct {
	ID          string    `json:"id"`
	Name        string    `json:"name"`
	Context     string    `json:"context"`
	EvidenceIDs []string  `json:"evidenceIds"`
	Revision    int64     `json:"revision"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// ActivityView is an agent suggestion with the owner's state beside it.
type ActivityView struct {
	ID             string          `json:"id"`
	Kind           string          `json:"kind"`
	Title          string          `json:"title"`
	Detail         string          `json:"detail,omitempty"`
	EvidenceIDs    []string        `json:"evidenceIds"`
	PersonID       string          `json:"personId,omitempty"`
	ParentID       string          `json:"parentId,omitempty"`
	OccurrenceKey  string          `json:"occurrenceKey,omitempty"`
	Recommendation *RecommendView  `json:"recommendation,omitempty"`
	Payload        json.RawMessage `json:"payload"`
	Revision       int64           `json:"revision"`
	Retracted      *RetractedView  `json:"retracted,omitempty"`
	UserState      UserStateView   `json:"userState"`
}

// RecommendView is where an activity sits on Home.
type RecommendView struct {
	Section string `json:"section"`
	Rank    int64  `json:"rank"`
	Reason  string `json:"reason,omitempty"`
}

// RetractedView says when and why the agent withdrew a suggestion.
type RetractedView struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason,omitempty"`
}

// UserStateView is the owner's decision; At is absent when never decided.
type UserStateView struct {
	State string     `json:"state"`
	Until string     `json:"until,omitempty"`
	Note  string     `json:"note,omitempty"`
	At    *time.Time `json:"at,omitempty"`
}

// DraftView is a reply draft with the owner's edit beside the agent's candidates.
type DraftView struct {
	ID                    string         `json:"id"`
	PersonID              string         `json:"personId,omitempty"`
	AccountID             string         `json:"accountId"`
	ChatID                string         `json:"chatId"`
	ReplyToMessageID      string         `json:"replyToMessageId,omitempty"`
	SourceMessageRevision string         `json:"sourceMessageRevision"`
	Reason                string         `json:"reason"`
	Candidates            []CandidateIn  `json:"candidates"`
	EvidenceIDs           []string       `json:"evidenceIds"`
	Revision              int64          `json:"revision"`
	Retracted             *RetractedView `json:"retracted,omitempty"`
	OwnerEdit             *OwnerEditView `json:"ownerEdit,omitempty"`
	// Stale is set when the Beeper watch saw a message from someone else
	// in the chat newer than sourceMessageRevision.
	Stale bool `json:"stale,omitempty"`
	// Outcome says what became of the draft once something did.
	Outcome *DraftOutcomeView `json:"outcome,omitempty"`
}

// OwnerEditView is the owner's wording of a draft.
type OwnerEditView struct {
	Body                string    `json:"body"`
	SelectedCandidateID string    `json:"selectedCandidateId,omitempty"`
	At                  time.Time `json:"at"`
}

// MeasurementView is one recorded value.
type MeasurementView struct {
	ID            int64     `json:"id"`
	ActivityID    string    `json:"activityId"`
	OccurrenceKey string    `json:"occurrenceKey,omitempty"`
	Metric        string    `json:"metric"`
	Unit          string    `json:"unit"`
	Value         float64   `json:"value"`
	SupersedesID  *int64    `json:"supersedesId,omitempty"`
	RecordedAt    time.Time `json:"recordedAt"`
}

// SendView is a reply the owner confirmed, with its outcome, so the agent
// can update life.
type SendView struct {
	ID      int64  `json:"id"`
	SendKey string `json:"sendKey"`
	// DraftID is empty for the owner's own reply (OwnReply).
	DraftID          string    `json:"draftId"`
	OwnReply         bool      `json:"ownReply,omitempty"`
	ActivityID       string    `json:"activityId,omitempty"`
	AccountID        string    `json:"accountId"`
	ChatID           string    `json:"chatId"`
	ReplyToMessageID string    `json:"replyToMessageId,omitempty"`
	Body             string    `json:"body"`
	Status           string    `json:"status"`
	PendingMessageID string    `json:"pendingMessageId,omitempty"`
	Error            string    `json:"error,omitempty"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
}

// PublicationView describes the newest accepted publication.
type PublicationView struct {
	RunID      string    `json:"runId"`
	JobKey     string    `json:"jobKey"`
	Publisher  string    `json:"publisher"`
	Revision   int64     `json:"revision"`
	ReceivedAt time.Time `json:"receivedAt"`
}

// ErrBadCursor means a context cursor was not one this server issued.
var ErrBadCursor = fmt.Errorf("bad cursor: %w", ErrInvalidInput)

// StaleCursorError means a context cursor was issued at another revision
// than the current one: the next page would mix two revisions, so the agent
// must read the context again.
type StaleCursorError struct{ CursorRevision, Current int64 }

func (e *StaleCursorError) Error() string {
	return fmt.Sprintf("context cursor of revision %d, current revision %d", e.CursorRevision, e.Current)
}

// cursor is a position in a collection: the revision it was read at and the
// last key served. The first page has no key.
type cursor struct {
	revision int64
	after    string
}

// A cursor names its collection, its revision and the last key served, so a
// cursor of one collection, or any string this server did not issue, is
// refused, and one of an older revision is recognised as stale.
func encodeCursor(collection string, revision int64, key string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(collection + ":" + strconv.FormatInt(revision, 10) + ":" + key))
}

func decodeCursor(collection, c string) (cursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) > 256 {
		return cursor{}, ErrBadCursor
	}
	rest, ok := strings.CutPrefix(string(b), collection+":")
	if !ok {
		return cursor{}, ErrBadCursor
	}
	revText, key, ok := strings.Cut(rest, ":")
	if !ok {
		return cursor{}, ErrBadCursor
	}
	rev, err := strconv.ParseInt(revText, 10, 64)
	if err != nil || rev < 0 {
		return cursor{}, ErrBadCursor
	}
	if key == "" {
		return cursor{revision: rev}, nil // from the start (a compact context's pointer)
	}
	if collection == CollectionMeasurements || collection == CollectionSends || collection == CollectionObservations ||
		collection == CollectionTrials || collection == CollectionRoutineMetrics || collection == CollectionReplyDecisions ||
		collection == CollectionActivityDecisions {
		if _, err := strconv.ParseInt(key, 10, 64); err != nil {
			return cursor{}, ErrBadCursor
		}
	} else if !ids.Valid(key) {
		return cursor{}, ErrBadCursor
	}
	return cursor{revision: rev, after: key}, nil
}

// AgentContext reads the first page of every collection in one read transaction
// so all of it belongs to one revision.
func (s *Store) AgentContext(ctx context.Context) (AgentContext, error) {
	var out AgentContext
	err := s.read(ctx, func(tx *gorm.DB) error {
		now := s.clock()
		out.GeneratedAt = now
		var err error
		if out.Revision, err = workspaceRevision(tx); err != nil {
			return err
		}
		var brief *BriefView
		brief, err = briefView(tx)
		if err != nil {
			return err
		}
		out.Brief = brief
		day, err := ownerDay(tx, now, "")
		if err != nil {
			return err
		}
		out.Today = TodayView{Date: day.Date, TimeZone: day.Zone.String()}
		if out.WeightGoal, err = weightGoal(tx); err != nil {
			return err
		}
		first := cursor{revision: out.Revision}
		if out.People, err = peoplePage(tx, first); err != nil {
			return err
		}
		if out.Activities, err = activityPage(tx, now, first); err != nil {
			return err
		}
		if out.ReplyDrafts, err = draftPage(tx, now, first); err != nil {
			return err
		}
		if out.Measurements, err = measurementPage(tx, now, first); err != nil {
			return err
		}
		if out.Sends, err = sendPage(tx, now, first); err != nil {
			return err
		}
		if out.Requests, err = requestPage(tx, now, first); err != nil {
			return err
		}
		if out.Observations, err = observationPage(tx, first); err != nil {
			return err
		}
		if out.ReplyDecisions, err = replyDecisionPage(tx, now, first); err != nil {
			return err
		}
		if out.ActivityDecisions, err = activityDecisionPage(tx, now, first); err != nil {
			return err
		}
		if out.RoutineDefinitions, err = routineDefinitionPage(tx, first); err != nil {
			return err
		}
		if out.Trials, err = trialPage(tx, now, first); err != nil {
			return err
		}
		if out.Occurrences, err = occurrencePage(tx, now, first); err != nil {
			return err
		}
		if out.RoutineMetrics, err = routineMetricsPage(tx, now, first); err != nil {
			return err
		}
		if out.LastPublication, err = lastPublication(tx); err != nil {
			return err
		}
		out.JobFates, err = jobFates(tx, now)
		return err
	})
	if err != nil {
		return AgentContext{}, classify("agent context", err)
	}
	return out, nil
}

// ContextPage reads one further page of a collection after cursorText, or
// its first page when cursorText is empty. A cursor of another revision than
// the current one is a *StaleCursorError, checked in the page's own read
// transaction so a page never mixes two revisions.
func (s *Store) ContextPage(ctx context.Context, collection, cursorText string) (any, error) {
	if !slices.Contains(ContextCollections, collection) {
		return nil, ErrNotFound
	}
	var from cursor
	if cursorText != "" {
		var err error
		if from, err = decodeCursor(collection, cursorText); err != nil {
			return nil, err
		}
	}
	var page any
	err := s.read(ctx, func(tx *gorm.DB) error {
		current, err := workspaceRevision(tx)
		if err != nil {
			return err
		}
		if cursorText != "" && from.revision != current {
			return &StaleCursorError{CursorRevision: from.revision, Current: current}
		}
		from.revision = current
		now := s.clock()
		switch collection {
		case CollectionPeople:
			page, err = peoplePage(tx, from)
		case CollectionActivities:
			page, err = activityPage(tx, now, from)
		case CollectionReplyDrafts:
			page, err = draftPage(tx, now, from)
		case CollectionMeasurements:
			page, err = measurementPage(tx, now, from)
		case CollectionSends:
			page, err = sendPage(tx, now, from)
		case CollectionRequests:
			page, err = requestPage(tx, now, from)
		case CollectionObservations:
			page, err = observationPage(tx, from)
		case CollectionRoutineDefinitions:
			page, err = routineDefinitionPage(tx, from)
		case CollectionTrials:
			page, err = trialPage(tx, now, from)
		case CollectionOccurrences:
			page, err = occurrencePage(tx, now, from)
		case CollectionRoutineMetrics:
			page, err = routineMetricsPage(tx, now, from)
		case CollectionReplyDecisions:
			page, err = replyDecisionPage(tx, now, from)
		case CollectionActivityDecisions:
			page, err = activityDecisionPage(tx, now, from)
		default:
			return ErrNotFound
		}
		return err
	})
	var stale *StaleCursorError
	if errors.As(err, &stale) {
		return nil, stale
	}
	if err != nil {
		return nil, classify("context page", err)
	}
	return page, nil
}

// read runs fn in a read transaction on the reader pool: one consistent WAL
// snapshot that runs beside the writer.
func (s *Store) read(ctx context.Context, fn func(tx *gorm.DB) error) error {
	return s.rdb.WithContext(ctx).Transaction(fn)
}

func evidenceList(text string) []string {
	if text == "" || text == "[]" {
		return []string{} // Home does not load evidence; skip the decoder
	}
	var ids []string
	if err := json.Unmarshal([]byte(text), &ids); err != nil || ids == nil {
		return []string{}
	}
	return ids
}

func briefView(tx *gorm.DB) (*BriefView, error) {
	var rows []Brief
	if err := tx.Limit(1).Find(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	b := rows[0]
	return &BriefView{Date: b.Date, TimeZone: b.TimeZone, Text: b.Text, EvidenceIDs: evidenceList(b.EvidenceIDs), Revision: b.Revision, UpdatedAt: b.UpdatedAt}, nil
}

// page trims rows fetched with limit+1 and sets the cursor from the last
// kept key, bound to the revision the page was read at.
func page[T any](collection string, from cursor, items []T, key func(T) string) Page[T] {
	p := Page[T]{Items: items}
	if len(items) > ContextPageSize {
		p.Items = items[:ContextPageSize]
		p.Truncated = true
		p.NextCursor = encodeCursor(collection, from.revision, key(p.Items[ContextPageSize-1]))
	}
	if p.Items == nil {
		p.Items = []T{}
	}
	return p
}

// Person reads one published person.
func (s *Store) Person(ctx context.Context, id string) (PersonView, error) {
	var p Person
	err := s.rdb.WithContext(ctx).Where("id = ?", id).First(&p).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return PersonView{}, ErrNotFound
	}
	if err != nil {
		return PersonView{}, fmt.Errorf("models: person: %w", err)
	}
	return personView(p), nil
}

func personView(p Person) PersonView {
	return PersonView{ID: p.ID, Name: p.Name, Context: p.Context, EvidenceIDs: evidenceList(p.EvidenceIDs), Revision: p.Revision, UpdatedAt: p.UpdatedAt}
}

func peoplePage(tx *gorm.DB, from cursor) (Page[PersonView], error) {
	var rows []Person
	if err := tx.Where("id > ?", from.after).Order("id").Limit(ContextPageSize + 1).Find(&rows).Error; err != nil {
		return Page[PersonView]{}, err
	}
	views := make([]PersonView, len(rows))
	for i, p := range rows {
		views[i] = personView(p)
	}
	return page(CollectionPeople, from, views, func(v PersonView) string { return v.ID }), nil
}

// activityRow is an activity joined with the owner's state.
type activityRow struct {
	Activity
	// PersonName is read by Home's queries (scanActivityRows) only.
	PersonName string `gorm:"-"`
	State      *string
	Until      *string
	Note       *string
	StateAt    *time.Time
}

// activityWindow selects the activities an agent needs: open undated ones,
// open occurrences of the last 14 days (older unfinished occurrences have
// lapsed), and those settled in the last 14 days. Each branch is pinned to
// activities_window so the read stays flat in history: without statistics
// SQLite would rather walk the primary key than sort a few hundred rows
// (BenchmarkAgentContext).
const activityWindow = `SELECT a.*, s.state AS state, s.until AS until, s.note AS note, s.updated_at AS state_at
	FROM (SELECT * FROM activities INDEXED BY activities_window WHERE closed_at IS NULL AND occurrence_date = '' AND +id > @after
	      UNION ALL
	      SELECT * FROM activities INDEXED BY activities_window WHERE closed_at IS NULL AND occurrence_date >= @sinceDate AND +id > @after
	      UNION ALL
	      SELECT * FROM activities INDEXED BY activities_window WHERE closed_at >= @since AND +id > @after) AS a
	LEFT JOIN activity_states s ON s.activity_id = a.id
	ORDER BY a.id LIMIT @limit`

func activityPage(tx *gorm.DB, now time.Time, from cursor) (Page[ActivityView], error) {
	var rows []activityRow
	since := now.Add(-ContextHistory)
	// A day earlier than the cutoff so a zone ahead of UTC loses nothing.
	sinceDate := since.Add(-24 * time.Hour).Format(time.DateOnly)
	err := tx.Raw(activityWindow, map[string]any{"after": from.after, "since": since, "sinceDate": sinceDate, "limit": ContextPageSize + 1}).Scan(&rows).Error
	if err != nil {
		return Page[ActivityView]{}, err
	}
	views := make([]ActivityView, len(rows))
	for i, r := range rows {
		views[i] = r.view()
	}
	return page(CollectionActivities, from, views, func(v ActivityView) string { return v.ID }), nil
}

func (r activityRow) view() ActivityView {
	v := ActivityView{ID: r.ID, Kind: r.Kind, Title: r.Title, Detail: r.Detail, EvidenceIDs: evidenceList(r.EvidenceIDs),
		PersonID: deref(r.PersonID), ParentID: deref(r.ParentID), OccurrenceKey: r.OccurrenceKey,
		Payload: json.RawMessage(r.Payload), Revision: r.Revision, UserState: UserStateView{State: StateAvailable}}
	if r.Section != "" {
		v.Recommendation = &RecommendView{Section: r.Section, Rank: r.Rank, Reason: r.Reason}
	}
	if r.RetractedAt != nil {
		v.Retracted = &RetractedView{At: *r.RetractedAt, Reason: r.RetractReason}
	}
	if r.State != nil {
		v.UserState = UserStateView{State: *r.State, Until: deref(r.Until), Note: deref(r.Note), At: r.StateAt}
	}
	return v
}

// draftsWithEdits selects drafts with the owner's edit beside them, as draftRow scans them.
func draftsWithEdits(tx *gorm.DB) *gorm.DB {
	return tx.Table("reply_drafts").
		Select("reply_drafts.*, draft_edits.body AS edit_body, draft_edits.selected_candidate_id AS edit_selected, draft_edits.updated_at AS edit_at").
		Joins("LEFT JOIN draft_edits ON draft_edits.draft_id = reply_drafts.id")
}

type draftRow struct {
	ReplyDraft
	EditBody     *string
	EditSelected *string
	EditAt       *time.Time
}

// draftWindow is activityWindow's counterpart for drafts: live ones and
// those retracted since a cutoff, each branch pinned to its index.
const draftWindow = `SELECT d.*, e.body AS edit_body, e.selected_candidate_id AS edit_selected, e.updated_at AS edit_at
	FROM (SELECT * FROM reply_drafts INDEXED BY reply_drafts_retracted WHERE retracted_at IS NULL AND +id > @after
	      UNION ALL
	      SELECT * FROM reply_drafts INDEXED BY reply_drafts_retracted WHERE retracted_at >= @since AND +id > @after) AS d
	LEFT JOIN draft_edits e ON e.draft_id = d.id
	ORDER BY d.id LIMIT @limit`

func draftPage(tx *gorm.DB, now time.Time, from cursor) (Page[DraftView], error) {
	var rows []draftRow
	err := tx.Raw(draftWindow, map[string]any{"after": from.after, "since": now.Add(-ContextHistory), "limit": ContextPageSize + 1}).Scan(&rows).Error
	if err != nil {
		return Page[DraftView]{}, err
	}
	views := make([]DraftView, len(rows))
	for i, r := range rows {
		views[i] = r.view()
	}
	if err := markStale(tx, views); err != nil {
		return Page[DraftView]{}, err
	}
	if err := attachOutcomes(tx, views); err != nil {
		return Page[DraftView]{}, err
	}
	return page(CollectionReplyDrafts, from, views, func(v DraftView) string { return v.ID }), nil
}

func (r draftRow) view() DraftView {
	v := DraftView{ID: r.ID, PersonID: deref(r.PersonID), AccountID: r.AccountID, ChatID: r.ChatID, ReplyToMessageID: r.ReplyToMessageID,
		SourceMessageRevision: r.SourceMessageRevision, Reason: r.Reason, EvidenceIDs: evidenceList(r.EvidenceIDs), Revision: r.Revision}
	if err := json.Unmarshal([]byte(r.Candidates), &v.Candidates); err != nil || v.Candidates == nil {
		v.Candidates = []CandidateIn{}
	}
	if r.RetractedAt != nil {
		v.Retracted = &RetractedView{At: *r.RetractedAt, Reason: r.RetractReason}
	}
	if r.EditBody != nil {
		v.OwnerEdit = &OwnerEditView{Body: *r.EditBody, SelectedCandidateID: deref(r.EditSelected), At: *r.EditAt}
	}
	return v
}

func measurementPage(tx *gorm.DB, now time.Time, from cursor) (Page[MeasurementView], error) {
	var afterID int64
	if from.after != "" {
		afterID, _ = strconv.ParseInt(from.after, 10, 64) // decodeCursor checked it
	}
	var rows []Measurement
	if err := tx.Where("recorded_at >= ? AND id > ?", now.Add(-ContextHistory), afterID).
		Order("id").Limit(ContextPageSize + 1).Find(&rows).Error; err != nil {
		return Page[MeasurementView]{}, err
	}
	views := make([]MeasurementView, len(rows))
	for i, m := range rows {
		views[i] = MeasurementView{ID: m.ID, ActivityID: m.ActivityID, OccurrenceKey: m.OccurrenceKey, Metric: m.Metric, Unit: m.Unit,
			Value: m.Value, SupersedesID: m.SupersedesID, RecordedAt: m.RecordedAt}
	}
	return page(CollectionMeasurements, from, views, func(v MeasurementView) string { return fmt.Sprint(v.ID) }), nil
}

// sendPage lists sends updated in the last 14 days, oldest first.
func sendPage(tx *gorm.DB, now time.Time, from cursor) (Page[SendView], error) {
	var afterID int64
	if from.after != "" {
		afterID, _ = strconv.ParseInt(from.after, 10, 64) // decodeCursor checked it
	}
	var rows []Send
	// An unsettled send stays listed however old, until it is reconciled.
	if err := tx.Where("(updated_at >= ? OR status IN ?) AND id > ?", now.Add(-ContextHistory), []string{SendPending, SendUnknown}, afterID).
		Order("id").Limit(ContextPageSize + 1).Find(&rows).Error; err != nil {
		return Page[SendView]{}, err
	}
	views := make([]SendView, len(rows))
	for i, r := range rows {
		r = r.effective(now)
		views[i] = SendView{ID: r.ID, SendKey: r.SendKey, DraftID: string(r.DraftID), OwnReply: r.Own(), ActivityID: deref(r.ActivityID), AccountID: r.AccountID,
			ChatID: r.ChatID, ReplyToMessageID: r.ReplyToMessageID, Body: r.Body, Status: r.Status, PendingMessageID: r.PendingMessageID,
			Error: r.Error, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt}
	}
	return page(CollectionSends, from, views, func(v SendView) string { return fmt.Sprint(v.ID) }), nil
}

// requestPage lists the pending owner requests and those settled
// (completed, cancelled) in the last 14 days, by ID, so the agent can tell
// its work landed.
func requestPage(tx *gorm.DB, now time.Time, from cursor) (Page[RequestView], error) {
	var rows []Request
	if err := tx.Where("(status = ? OR updated_at >= ?) AND request_id > ?", RequestPending, now.Add(-ContextHistory), from.after).Order("request_id").
		Limit(ContextPageSize + 1).Find(&rows).Error; err != nil {
		return Page[RequestView]{}, err
	}
	views := make([]RequestView, len(rows))
	for i, r := range rows {
		views[i] = r.view()
	}
	return page(CollectionRequests, from, views, func(v RequestView) string { return v.RequestID }), nil
}

// publicationAt reads the accepted publication that made revision rev,
// or nil when there is none.
func publicationAt(tx *gorm.DB, rev int64) (*PublicationView, error) {
	var rows []Receipt
	if err := tx.Where("revision = ?", rev).Limit(1).Find(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	r := rows[0]
	return &PublicationView{RunID: r.RunID, JobKey: r.JobKey, Publisher: r.Publisher, Revision: r.Revision, ReceivedAt: r.ReceivedAt}, nil
}

func lastPublication(tx *gorm.DB) (*PublicationView, error) {
	var rows []Receipt
	if err := tx.Order("revision DESC").Limit(1).Find(&rows).Error; err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, nil
	}
	r := rows[0]
	return &PublicationView{RunID: r.RunID, JobKey: r.JobKey, Publisher: r.Publisher, Revision: r.Revision, ReceivedAt: r.ReceivedAt}, nil
}

// WorkFates is what runs published and what became of each item so far,
// by what the owner did (docs/schedules-and-runner.md, "What a run's work
// became"): one run's (Days 0, Runs 1) or a job's runs started in the last
// Days days. Accepted items are drafts sent as written or after an edit
// and tasks done. A count left out is zero; CostUSD and
// CostPerAcceptedUSD are left out when no run reported a cost.
type WorkFates struct {
	Job                string   `json:"job"`
	Days               int      `json:"days,omitempty"`
	Runs               int      `json:"runs"`
	Drafts             int      `json:"drafts,omitempty"`
	SentAsWritten      int      `json:"sentAsWritten,omitempty"`
	SentEdited         int      `json:"sentEdited,omitempty"`
	Replaced           int      `json:"replaced,omitempty"`
	HandedOff          int      `json:"handedOff,omitempty"`
	Declined           int      `json:"declined,omitempty"`
	DraftsWithdrawn    int      `json:"draftsWithdrawn,omitempty"`
	DraftsOpen         int      `json:"draftsOpen,omitempty"`
	Tasks              int      `json:"tasks,omitempty"`
	Done               int      `json:"done,omitempty"`
	Partial            int      `json:"partial,omitempty"`
	Skipped            int      `json:"skipped,omitempty"`
	Dismissed          int      `json:"dismissed,omitempty"`
	TasksWithdrawn     int      `json:"tasksWithdrawn,omitempty"`
	TasksOpen          int      `json:"tasksOpen,omitempty"`
	RequestsCompleted  int      `json:"requestsCompleted,omitempty"`
	Accepted           int      `json:"accepted,omitempty"`
	CostUSD            *float64 `json:"costUsd,omitempty"`
	CostPerAcceptedUSD *float64 `json:"costPerAcceptedUsd,omitempty"`
}
