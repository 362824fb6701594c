package read

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"hearth/internal/contract"
	"hearth/internal/ids"
	"hearth/models"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"
)

// ErrBadCursor means a context cursor was not one this server issued.
var ErrBadCursor = fmt.Errorf("bad cursor: %w", models.ErrInvalidInput)

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
	if collection == contract.CollectionMeasurements || collection == contract.CollectionSends || collection == contract.CollectionObservations ||
		collection == contract.CollectionTrials || collection == contract.CollectionRoutineMetrics || collection == contract.CollectionReplyDecisions ||
		collection == contract.CollectionActivityDecisions {
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
func (s Store) AgentContext(ctx context.Context) (contract.AgentContext, error) {
	var out contract.AgentContext
	err := s.Read(ctx, func(tx *gorm.DB) error {
		now := s.Now()
		out.GeneratedAt = now
		var err error
		if out.Revision, err = models.WorkspaceRevision(tx); err != nil {
			return err
		}
		var brief *contract.BriefView
		brief, err = models.ReadBrief(tx)
		if err != nil {
			return err
		}
		out.Brief = brief
		day, err := models.OwnerDay(tx, now, "")
		if err != nil {
			return err
		}
		out.Today = contract.TodayView{Date: day.Date, TimeZone: day.Zone.String()}
		if out.WeightGoal, err = models.WeightGoal(tx); err != nil {
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
		if out.ChatReplies, err = chatReplies(tx, now); err != nil {
			return err
		}
		if out.Rhythms, err = rhythmViews(tx, now); err != nil {
			return err
		}
		if out.Voice, err = voiceViews(tx, now); err != nil {
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
		if out.LastPublication, err = models.LastPublication(tx); err != nil {
			return err
		}
		if out.JobFates, err = jobFates(tx, now); err != nil {
			return err
		}
		if out.OwnerItems, err = ownerItemsInContext(tx, now); err != nil {
			return err
		}
		if out.CoverageGaps, err = models.CoverageSince(tx, now.AddDate(0, 0, -models.CoverageDays)); err != nil {
			return err
		}
		out.SendsLater, err = sendsLater(tx, now)
		return err
	})
	if err != nil {
		return contract.AgentContext{}, models.Classify("agent context", err)
	}
	return out, nil
}

// ContextPage reads one further page of a collection after cursorText, or
// its first page when cursorText is empty. A cursor of another revision than
// the current one is a *StaleCursorError, checked in the page's own read
// transaction so a page never mixes two revisions.
func (s Store) ContextPage(ctx context.Context, collection, cursorText string) (any, error) {
	if !slices.Contains(contract.ContextCollections, collection) {
		return nil, models.ErrNotFound
	}
	var from cursor
	if cursorText != "" {
		var err error
		if from, err = decodeCursor(collection, cursorText); err != nil {
			return nil, err
		}
	}
	var page any
	err := s.Read(ctx, func(tx *gorm.DB) error {
		current, err := models.WorkspaceRevision(tx)
		if err != nil {
			return err
		}
		if cursorText != "" && from.revision != current {
			return &StaleCursorError{CursorRevision: from.revision, Current: current}
		}
		from.revision = current
		now := s.Now()
		switch collection {
		case contract.CollectionPeople:
			page, err = peoplePage(tx, from)
		case contract.CollectionActivities:
			page, err = activityPage(tx, now, from)
		case contract.CollectionReplyDrafts:
			page, err = draftPage(tx, now, from)
		case contract.CollectionMeasurements:
			page, err = measurementPage(tx, now, from)
		case contract.CollectionSends:
			page, err = sendPage(tx, now, from)
		case contract.CollectionRequests:
			page, err = requestPage(tx, now, from)
		case contract.CollectionObservations:
			page, err = observationPage(tx, from)
		case contract.CollectionRoutineDefinitions:
			page, err = routineDefinitionPage(tx, from)
		case contract.CollectionTrials:
			page, err = trialPage(tx, now, from)
		case contract.CollectionOccurrences:
			page, err = occurrencePage(tx, now, from)
		case contract.CollectionRoutineMetrics:
			page, err = routineMetricsPage(tx, now, from)
		case contract.CollectionReplyDecisions:
			page, err = replyDecisionPage(tx, now, from)
		case contract.CollectionActivityDecisions:
			page, err = activityDecisionPage(tx, now, from)
		default:
			return models.ErrNotFound
		}
		return err
	})
	var stale *StaleCursorError
	if errors.As(err, &stale) {
		return nil, stale
	}
	if err != nil {
		return nil, models.Classify("context page", err)
	}
	return page, nil
}

// page trims rows fetched with limit+1 and sets the cursor from the last
// kept key, bound to the revision the page was read at.
func page[T any](collection string, from cursor, items []T, key func(T) string) contract.Page[T] {
	p := contract.Page[T]{Items: items}
	if len(items) > contract.ContextPageSize {
		p.Items = items[:contract.ContextPageSize]
		p.Truncated = true
		p.NextCursor = encodeCursor(collection, from.revision, key(p.Items[contract.ContextPageSize-1]))
	}
	if p.Items == nil {
		p.Items = []T{}
	}
	return p
}

// Person reads one published person.
func (s Store) Person(ctx context.Context, id string) (contract.PersonView, error) {
	var p models.Person
	err := s.Read(ctx, func(tx *gorm.DB) error { return tx.Where("id = ?", id).First(&p).Error })
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return contract.PersonView{}, models.ErrNotFound
	}
	if err != nil {
		return contract.PersonView{}, fmt.Errorf("models: person: %w", err)
	}
	return p.View(), nil
}

func peoplePage(tx *gorm.DB, from cursor) (contract.Page[contract.PersonView], error) {
	var rows []models.Person
	if err := tx.Where("id > ?", from.after).Order("id").Limit(contract.ContextPageSize + 1).Find(&rows).Error; err != nil {
		return contract.Page[contract.PersonView]{}, err
	}
	views := make([]contract.PersonView, len(rows))
	for i, p := range rows {
		views[i] = p.View()
	}
	return page(contract.CollectionPeople, from, views, func(v contract.PersonView) string { return v.ID }), nil
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

func activityPage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.ActivityView], error) {
	since := now.Add(-contract.ContextHistory)
	// A day earlier than the cutoff so a zone ahead of UTC loses nothing.
	sinceDate := since.Add(-24 * time.Hour).Format(time.DateOnly)
	views, err := models.ActivityViews(tx.Raw(activityWindow, map[string]any{"after": from.after, "since": since, "sinceDate": sinceDate, "limit": contract.ContextPageSize + 1}))
	if err != nil {
		return contract.Page[contract.ActivityView]{}, err
	}
	return page(contract.CollectionActivities, from, views, func(v contract.ActivityView) string { return v.ID }), nil
}

// draftWindow is activityWindow's counterpart for drafts: live ones (the
// partial index reply_drafts_live) and those settled since a cutoff (sent,
// replaced, declined or retracted), each branch pinned to its index, so a
// draft sent years ago is never read.
const draftWindow = `SELECT d.*, e.body AS edit_body, e.selected_candidate_id AS edit_selected, e.updated_at AS edit_at, e.revision AS edit_revision
	FROM (SELECT * FROM reply_drafts INDEXED BY reply_drafts_live WHERE settled_at IS NULL AND +id > @after
	      UNION ALL
	      SELECT * FROM reply_drafts INDEXED BY reply_drafts_settled WHERE settled_at >= @since AND +id > @after) AS d
	LEFT JOIN draft_edits e ON e.draft_id = d.id
	ORDER BY d.id LIMIT @limit`

func draftPage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.DraftView], error) {
	views, err := models.DraftViews(tx, tx.Raw(draftWindow, map[string]any{"after": from.after, "since": now.Add(-contract.ContextHistory), "limit": contract.ContextPageSize + 1}))
	if err != nil {
		return contract.Page[contract.DraftView]{}, err
	}
	return page(contract.CollectionReplyDrafts, from, views, func(v contract.DraftView) string { return v.ID }), nil
}

func measurementPage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.MeasurementView], error) {
	var afterID int64
	if from.after != "" {
		afterID, _ = strconv.ParseInt(from.after, 10, 64) // decodeCursor checked it
	}
	var rows []models.Measurement
	// INDEXED BY: with ORDER BY id SQLite would walk every measurement from
	// the cursor on; the index reads only the window (as activityDecisionPage).
	if err := tx.Table("measurements INDEXED BY measurements_recorded").Where("recorded_at >= ? AND id > ?", now.Add(-contract.ContextHistory), afterID).
		Order("id").Limit(contract.ContextPageSize + 1).Find(&rows).Error; err != nil {
		return contract.Page[contract.MeasurementView]{}, err
	}
	views := make([]contract.MeasurementView, len(rows))
	for i, m := range rows {
		views[i] = contract.MeasurementView{ID: m.ID, ActivityID: m.ActivityID, OccurrenceKey: m.OccurrenceKey, Metric: m.Metric, Unit: m.Unit,
			Value: m.Value, SupersedesID: m.SupersedesID, RecordedAt: m.RecordedAt}
	}
	return page(contract.CollectionMeasurements, from, views, func(v contract.MeasurementView) string { return fmt.Sprint(v.ID) }), nil
}

// sendPage lists sends updated in the last 14 days, oldest first.
func sendPage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.SendView], error) {
	var afterID int64
	if from.after != "" {
		afterID, _ = strconv.ParseInt(from.after, 10, 64) // decodeCursor checked it
	}
	var rows []models.Send
	// An unsettled send stays listed however old, until it is reconciled.
	// Each branch reads its index (the window; the partial index of
	// unsettled sends, whose statuses are written into the SQL so SQLite
	// can use it): with ORDER BY id it walked every send from the cursor on.
	if err := tx.Raw(`SELECT * FROM sends WHERE id IN (
			SELECT id FROM sends INDEXED BY sends_updated WHERE updated_at >= ?
			UNION SELECT id FROM sends INDEXED BY sends_unsettled WHERE status IN ('`+models.SendPending+`', '`+models.SendUnknown+`'))
		AND id > ? ORDER BY id LIMIT ?`, now.Add(-contract.ContextHistory), afterID, contract.ContextPageSize+1).Scan(&rows).Error; err != nil {
		return contract.Page[contract.SendView]{}, err
	}
	views := make([]contract.SendView, len(rows))
	for i, r := range rows {
		r = r.Effective(now)
		views[i] = contract.SendView{ID: r.ID, SendKey: r.SendKey, DraftID: string(r.DraftID), OwnReply: r.Own(), ActivityID: deref(r.ActivityID), AccountID: r.AccountID,
			ChatID: r.ChatID, ReplyToMessageID: r.ReplyToMessageID, Body: r.Body, Status: r.Status, PendingMessageID: r.PendingMessageID,
			Error: r.Error, CreatedAt: r.CreatedAt, UpdatedAt: r.UpdatedAt, Origin: r.Origin(), Followed: followedView(r)}
	}
	return page(contract.CollectionSends, from, views, func(v contract.SendView) string { return fmt.Sprint(v.ID) }), nil
}

// requestPage lists the pending owner requests and those settled
// (completed, cancelled) in the last 14 days, by ID, so the agent can tell
// its work landed.
func requestPage(tx *gorm.DB, now time.Time, from cursor) (contract.Page[contract.RequestView], error) {
	var rows []models.Request
	if err := tx.Where("(status = ? OR updated_at >= ?) AND request_id > ?", contract.RequestPending, now.Add(-contract.ContextHistory), from.after).Order("request_id").
		Limit(contract.ContextPageSize + 1).Find(&rows).Error; err != nil {
		return contract.Page[contract.RequestView]{}, err
	}
	views := make([]contract.RequestView, len(rows))
	for i, r := range rows {
		views[i] = r.View()
	}
	return page(contract.CollectionRequests, from, views, func(v contract.RequestView) string { return v.RequestID }), nil
}
