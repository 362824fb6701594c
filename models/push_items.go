package models

import (
	"encoding/json"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/schedule"
)

// The push kinds besides activities and runs: a routine review's proposal
// to decide, a send for later held because the chat moved on, and a
// schedule held (quarantined, or restored from a backup) until the owner
// approves or cancels it. Their sources keep no history of when the owner
// decided, so they are learned from the push rows themselves: when each
// was first considered and when hearth saw it decided (DecidedAt).
const (
	kindProposal     = "proposal"
	kindHeldSend     = "held-send"
	kindHeldSchedule = "held-schedule"
)

// trackedKinds are the kinds learned from their push rows.
var trackedKinds = []string{kindProposal, kindHeldSend, kindHeldSchedule}

// keyPrefixes are the push key's prefix per kind (an activity's otherwise).
var keyPrefixes = map[string]string{kindRun: "run:", kindProposal: "proposal:", kindHeldSend: "held-send:", kindHeldSchedule: "schedule:"}

// heldScheduleStates are the ledger states that wait on the owner.
var heldScheduleStates = []string{string(schedule.StatusQuarantined), string(schedule.StatusRestorePending)}

// closePrefix marks the key of a push that closes a notification.
const closePrefix = "close:"

// existingKeys is which of keys have a push row.
func existingKeys(tx *gorm.DB, keys []string) (map[string]bool, error) {
	out := map[string]bool{}
	for chunk := range slices.Chunk(keys, 500) {
		var have []string
		if err := tx.Model(&PushNotification{}).Where("item_key IN ?", chunk).Pluck("item_key", &have).Error; err != nil {
			return nil, err
		}
		for _, k := range have {
			out[k] = true
		}
	}
	return out, nil
}

// freshTracked are the proposals, held sends and held schedules waiting on
// the owner that appeared since since and were never considered.
func freshTracked(tx *gorm.DB, since time.Time) ([]pushItem, error) {
	var items []pushItem
	var reviews []RoutineReview
	if err := tx.Where("updated_at >= ?", since.UTC()).Order("created_at, id").Find(&reviews).Error; err != nil {
		return nil, err
	}
	for _, rv := range reviews {
		var props []contract.ProposalIn
		_ = json.Unmarshal([]byte(rv.Proposals), &props)
		for _, p := range props {
			items = append(items, pushItem{ID: rv.ID + "/" + p.ID, Kind: kindProposal, Title: p.Text, CreatedAt: rv.UpdatedAt,
				link: "/routines#review-" + url.PathEscape(rv.ID)})
		}
	}
	var held []ScheduledSend
	if err := tx.Where("state = ? AND updated_at >= ?", ScheduleHeld, since.UTC()).Order("updated_at, id").Find(&held).Error; err != nil {
		return nil, err
	}
	for _, sc := range held {
		items = append(items, pushItem{ID: strconv.FormatInt(sc.ID, 10), Kind: kindHeldSend, Title: sc.Note, CreatedAt: sc.UpdatedAt,
			link: "/messages/" + url.PathEscape(sc.ChatID)})
	}
	var schedules []Schedule
	if err := tx.Where("state IN ? AND state_changed_at >= ?", heldScheduleStates, since.UTC()).Order("state_changed_at, id").Find(&schedules).Error; err != nil {
		return nil, err
	}
	for _, row := range schedules {
		items = append(items, pushItem{ID: scheduleHold(row), Kind: kindHeldSchedule, Title: row.Job + ": " + row.StateReason, CreatedAt: row.StateChangedAt,
			link: "/schedules#schedule-" + url.PathEscape(row.ID)})
	}
	keys := make([]string, 0, len(items))
	for _, it := range items {
		keys = append(keys, it.key())
	}
	have, err := existingKeys(tx, keys)
	if err != nil {
		return nil, err
	}
	waiting, err := stillWaiting(tx, keys)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(items, func(it pushItem) bool { return have[it.key()] || !waiting[it.key()] }), nil
}

// scheduleHold names one hold of a schedule: a schedule held again after
// the owner approved it is a new item.
func scheduleHold(row Schedule) string {
	return row.ID + "@" + row.StateChangedAt.UTC().Format(time.RFC3339Nano)
}

// stillWaiting says which of the push keys' items still wait on the owner.
func stillWaiting(tx *gorm.DB, keys []string) (map[string]bool, error) {
	out := map[string]bool{}
	var activities, runs, reviews, schedules []string
	var held []int64
	for _, k := range keys {
		switch {
		case strings.HasPrefix(k, "activity:"):
			activities = append(activities, strings.TrimPrefix(k, "activity:"))
		case strings.HasPrefix(k, "run:"):
			runs = append(runs, strings.TrimPrefix(k, "run:"))
		case strings.HasPrefix(k, "proposal:"):
			rv, _, _ := strings.Cut(strings.TrimPrefix(k, "proposal:"), "/")
			reviews = append(reviews, rv)
		case strings.HasPrefix(k, "held-send:"):
			if id, err := strconv.ParseInt(strings.TrimPrefix(k, "held-send:"), 10, 64); err == nil {
				held = append(held, id)
			}
		case strings.HasPrefix(k, "schedule:"):
			id, _, _ := strings.Cut(strings.TrimPrefix(k, "schedule:"), "@")
			schedules = append(schedules, id)
		}
	}
	for chunk := range slices.Chunk(activities, 500) {
		open, err := openPushItems(tx, tx.Table("activities").Select("id, kind, title, draft_id, created_at").
			Where("id IN ? AND closed_at IS NULL AND retracted_at IS NULL", chunk))
		if err != nil {
			return nil, err
		}
		for _, it := range open {
			out[activityPushKey(it.ID)] = true
		}
	}
	for chunk := range slices.Chunk(runs, 500) {
		open, err := unknownRuns(tx, tx.Where("id IN ? AND state = 'unknown' AND resolved_at IS NULL", chunk))
		if err != nil {
			return nil, err
		}
		for _, r := range open {
			out[r.item.key()] = true
		}
	}
	for chunk := range slices.Chunk(reviews, 500) {
		var rows []RoutineReview
		if err := tx.Select("id, proposals").Where("id IN ?", chunk).Find(&rows).Error; err != nil {
			return nil, err
		}
		var decided []Request
		if err := tx.Select("review_id, proposal_id").Where("review_id IN ?", chunk).Find(&decided).Error; err != nil {
			return nil, err
		}
		done := map[string]bool{}
		for _, d := range decided {
			done[d.ReviewID+"/"+d.ProposalID] = true
		}
		for _, rv := range rows {
			var props []contract.ProposalIn
			_ = json.Unmarshal([]byte(rv.Proposals), &props)
			for _, p := range props {
				if id := rv.ID + "/" + p.ID; !done[id] {
					out["proposal:"+id] = true
				}
			}
		}
	}
	for chunk := range slices.Chunk(held, 500) {
		// Held until the owner looks again: a new schedule of the draft,
		// or the draft settled (sent, declined) or withdrawn.
		var ids []int64
		// An own reply (no draft) waits while it stays held: a new own reply in the chat cancels it.
		if err := tx.Raw(`SELECT s.id FROM scheduled_sends s LEFT JOIN reply_drafts d ON d.id = s.draft_id
			WHERE s.id IN ? AND s.state = ? AND (s.draft_id IS NULL OR (d.retracted_at IS NULL AND d.settled_at IS NULL
			AND NOT EXISTS (SELECT 1 FROM scheduled_sends n WHERE n.draft_id = s.draft_id AND n.id > s.id)))`, chunk, ScheduleHeld).
			Scan(&ids).Error; err != nil {
			return nil, err
		}
		for _, id := range ids {
			out["held-send:"+strconv.FormatInt(id, 10)] = true
		}
	}
	for chunk := range slices.Chunk(schedules, 500) {
		var rows []Schedule
		if err := tx.Select("id, state_changed_at").Where("id IN ? AND state IN ?", chunk, heldScheduleStates).Find(&rows).Error; err != nil {
			return nil, err
		}
		for _, row := range rows {
			out["schedule:"+scheduleHold(row)] = true
		}
	}
	return out, nil
}

// learnTracked adds the tracked kinds' items of [from, to) to judged, and
// how soon the owner decided those decided within a day to quick.
func learnTracked(tx *gorm.DB, from, to time.Time, judged map[string]int, quick map[string][]time.Duration) error {
	var rows []PushNotification
	if err := tx.Select("kind, created_at, decided_at").Where("kind IN ? AND created_at >= ? AND created_at < ?", trackedKinds, from.UTC(), to.UTC()).
		Find(&rows).Error; err != nil {
		return err
	}
	for _, r := range rows {
		judged[r.Kind]++
		if r.DecidedAt != nil && r.DecidedAt.Sub(r.CreatedAt) <= pushActWithin {
			quick[r.Kind] = append(quick[r.Kind], max(r.DecidedAt.Sub(r.CreatedAt), 0))
		}
	}
	return nil
}

// markDecided stamps DecidedAt on the items of the last four weeks that no
// longer wait on the owner: a notification shown for one is closed, a held
// one is dropped from the digest, and the tracked kinds learn from it.
func markDecided(t *txn) error {
	var open []string
	if err := t.Model(&PushNotification{}).Where("decided_at IS NULL AND kind != 'digest' AND created_at >= ?", t.now.Add(-pushLearnWindow).UTC()).
		Pluck("item_key", &open).Error; err != nil {
		return err
	}
	waiting, err := stillWaiting(t.DB, open)
	if err != nil {
		return err
	}
	var decided []string
	for _, k := range open {
		if !waiting[k] {
			decided = append(decided, k)
		}
	}
	for chunk := range slices.Chunk(decided, 500) {
		if err := t.Model(&PushNotification{}).Where("item_key IN ?", chunk).Update("decided_at", t.now.UTC()).Error; err != nil {
			return err
		}
	}
	return nil
}

// closes plans a push closing each notification on the phone whose items
// are all decided: an item's own, or a digest once every item in it is.
// A notification still being sent is closed once it went.
func closes(t *txn, subs []PushSubscription) ([]PushOut, error) {
	var tags []string
	if err := t.Model(&PushNotification{}).Distinct("shown_under").
		Where("status IN ? AND decided_at IS NOT NULL AND closed_at IS NULL AND shown_under != ''", []string{PushSent, PushDigested}).
		Order("shown_under").Pluck("shown_under", &tags).Error; err != nil {
		return nil, err
	}
	var outs []PushOut
	for _, tag := range tags {
		var waiting int64
		if err := t.Model(&PushNotification{}).Where("shown_under = ? AND (decided_at IS NULL OR status NOT IN ?)", tag, []string{PushSent, PushDigested}).
			Count(&waiting).Error; err != nil {
			return nil, err
		}
		if waiting > 0 {
			continue
		}
		var shown PushNotification
		if err := t.Where("item_key = ?", tag).Take(&shown).Error; err != nil {
			return nil, err
		}
		if err := t.Model(&PushNotification{}).Where("shown_under = ?", tag).Update("closed_at", t.now.UTC()).Error; err != nil {
			return nil, err
		}
		outs = append(outs, PushOut{Key: closePrefix + tag, Subscriptions: subs,
			Payload: PushPayload{Title: "Done elsewhere", Body: "Decided in hearth", URL: shown.URL, Tag: tag, Close: true}})
	}
	return outs, nil
}
