package models

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"
)

// Web Push: which items reach the owner's phone, when, and why. The
// sending itself (VAPID, encryption, the push service) is outside the store
// (internal/pushflow): PlanPushes claims what to send in one commit, the
// sender calls the push services, and SettlePush records the outcome.

// PushSubscription is one browser's push subscription (its pushManager's
// endpoint and keys, base64url as the browser gives them).
type PushSubscription struct {
	ID        int64 `gorm:"primaryKey"`
	Endpoint  string
	P256dh    string `gorm:"column:p256dh"`
	Auth      string
	CreatedAt time.Time
}

// PushNotification is one item hearth considered notifying: at most one
// row per item, so an item is never notified twice.
type PushNotification struct {
	ItemKey string `gorm:"primaryKey"`
	Kind    string
	Title   string
	Body    string
	URL     string `gorm:"column:url"`
	Status  string
	// Reason is the words of rows written before the why was kept as
	// data (below); newer rows leave it empty and the page words them.
	Reason    string
	CreatedAt time.Time
	UpdatedAt time.Time
	// ShownUnder is the tag the phone shows the item under: its own key
	// when sent alone, the digest's key when sent in one.
	ShownUnder string
	// DecidedAt is when hearth saw the item no longer waiting on the
	// owner; ClosedAt when the push closing its notification was planned.
	DecidedAt *time.Time
	ClosedAt  *time.Time
	// Basis is why it was sent or not (BasisNew, BasisUsual, BasisIgnored,
	// BasisDigest); Judged is how many of the kind's items of the last four
	// weeks it was learned from, MedianSeconds how soon the owner usually
	// acted on them.
	Basis         string
	Judged        int
	MedianSeconds int64
	// QuietStart and QuietEnd are the quiet hours that held it;
	// DigestClock is the owner's wall clock of the digest that sent or
	// dropped it ("07:00").
	QuietStart  string
	QuietEnd    string
	DigestClock string
}

// Why a kind is notified or not.
const (
	BasisNew     = "new"     // no item of the kind to learn from yet
	BasisUsual   = "usual"   // the owner acted on some within a day
	BasisIgnored = "ignored" // the owner acted on none within a day
	BasisDigest  = "digest"  // the morning digest itself
)

// Statuses of a PushNotification.
const (
	PushSending  = "sending"
	PushSent     = "sent"
	PushHeld     = "held"
	PushDigested = "digested"
	PushDropped  = "dropped"
	PushMuted    = "muted"
	PushFailed   = "failed"
)

// The owner_settings keys of quiet hours, and their defaults.
const (
	settingQuietStart = "push_quiet_start"
	settingQuietEnd   = "push_quiet_end"
	// DefaultQuietStart and DefaultQuietEnd are quiet hours in the owner's zone until set.
	DefaultQuietStart = "22:00"
	DefaultQuietEnd   = "07:00"
)

// pushLearnWindow is how far back the owner's decisions teach which kinds
// to notify; pushActWithin is how soon an act counts as "acted on".
const (
	pushLearnWindow = 28 * 24 * time.Hour
	pushActWithin   = 24 * time.Hour
	// pushFresh bounds how old an item may be when first considered, so a
	// new subscription or a restart never sends a backlog.
	pushFresh = 24 * time.Hour
	// pushPreview is the most characters of an item's title a
	// notification carries: enough to recognise it on a lock screen.
	pushPreview = 60
)

// pushKinds are the kinds of items that need the owner and are notified,
// with the words of a notification and of the digest: two activity kinds,
// runs whose outcome is unknown until the owner looks, and the tracked
// kinds (push_items.go).
var pushKinds = map[string]struct{ title, plural string }{
	"reply":          {"Reply draft to review", "reply drafts"},
	"task":           {"The agent raised a task", "tasks the agent raised"},
	kindRun:          {"A run needs a look", "runs that need a look"},
	kindProposal:     {"A routine change to decide", "routine proposals"},
	kindHeldSend:     {"A send for later was held", "held sends"},
	kindHeldSchedule: {"A schedule is held", "held schedules"},
}

// kindRun is the push kind of a run that ended unknown (not an activity kind).
const kindRun = "run"

// activityKinds are pushKinds' activity kinds.
var activityKinds = []string{"reply", "task"}

// QuietHours are the owner's quiet hours, "HH:MM" in the owner's zone;
// Start == End means none.
type QuietHours struct{ Start, End string }

// clockMinutes parses "HH:MM".
func clockMinutes(s string) (int, bool) {
	t, err := time.Parse("15:04", s)
	if err != nil || len(s) != 5 {
		return 0, false
	}
	return t.Hour()*60 + t.Minute(), true
}

// Contains says whether the wall clock of local falls in the quiet hours.
func (q QuietHours) Contains(local time.Time) bool {
	start, ok1 := clockMinutes(q.Start)
	end, ok2 := clockMinutes(q.End)
	if !ok1 || !ok2 || start == end {
		return false
	}
	m := local.Hour()*60 + local.Minute()
	if start < end {
		return m >= start && m < end
	}
	return m >= start || m < end
}

// PushPayload is what a notification carries to the service worker: a
// title, a short body (the item's title cut to pushPreview characters, never
// message or draft text) and the URL that opens the item; Tag replaces an
// earlier notification of the same item.
type PushPayload struct {
	Title string `json:"title"`
	Body  string `json:"body"`
	URL   string `json:"url"`
	Tag   string `json:"tag"`
	// Close asks the worker to close the notification of Tag (the item was
	// decided elsewhere) rather than show one.
	Close bool `json:"close,omitempty"`
}

// PushOut is one notification to send to every subscription.
type PushOut struct {
	Key           string
	Payload       PushPayload
	Subscriptions []PushSubscription
}

// PushView is what More shows about notifications.
type PushView struct {
	Subscriptions int
	Quiet         QuietHours
	Recent        []PushNotification
}

// ErrBadSubscription refuses a subscription that is not a push endpoint with its keys.
var ErrBadSubscription = fmt.Errorf("a subscription needs an http(s) endpoint, a 65-byte p256dh key and a 16-byte auth secret: %w", ErrInvalidInput)

// SavePushSubscription stores (or refreshes the keys of) a browser's subscription.
func (s *Store) SavePushSubscription(ctx context.Context, endpoint, p256dh, auth string) error {
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || len(endpoint) > 2048 {
		return ErrBadSubscription
	}
	if k, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(p256dh, "=")); err != nil || len(k) != 65 || k[0] != 4 {
		return ErrBadSubscription
	}
	if a, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(auth, "=")); err != nil || len(a) != 16 {
		return ErrBadSubscription
	}
	_, err = s.commit(ctx, func(t *txn) error {
		row := PushSubscription{Endpoint: endpoint, P256dh: p256dh, Auth: auth, CreatedAt: t.now.UTC()}
		return t.Clauses(clause.OnConflict{Columns: []clause.Column{{Name: "endpoint"}},
			DoUpdates: clause.AssignmentColumns([]string{"p256dh", "auth"})}).Create(&row).Error
	})
	return classifyPush("save push subscription", err)
}

// RemovePushSubscription deletes the subscription of endpoint; it is not
// an error when there is none.
func (s *Store) RemovePushSubscription(ctx context.Context, endpoint string) error {
	_, err := s.commit(ctx, func(t *txn) error {
		return t.Where("endpoint = ?", endpoint).Delete(&PushSubscription{}).Error
	})
	return classifyPush("remove push subscription", err)
}

// PushSubscriptions lists the stored subscriptions, oldest first.
func (s *Store) PushSubscriptions(ctx context.Context) ([]PushSubscription, error) {
	var subs []PushSubscription
	err := s.Read(ctx, func(tx *gorm.DB) error { return tx.Order("id").Find(&subs).Error })
	return subs, classifyPush("push subscriptions", err)
}

func quietHours(tx *gorm.DB) (QuietHours, error) {
	q := QuietHours{Start: DefaultQuietStart, End: DefaultQuietEnd}
	var rows []OwnerSetting
	if err := tx.Where("key IN ?", []string{settingQuietStart, settingQuietEnd}).Find(&rows).Error; err != nil {
		return q, err
	}
	for _, r := range rows {
		if r.Key == settingQuietStart {
			q.Start = r.Value
		} else {
			q.End = r.Value
		}
	}
	return q, nil
}

// SetQuietHours records the owner's quiet hours ("HH:MM" each; equal: none).
func (s *Store) SetQuietHours(ctx context.Context, q QuietHours) error {
	if _, ok := clockMinutes(q.Start); !ok {
		return &FieldError{Field: "start", Message: "quiet hours start as HH:MM, such as 22:00"}
	}
	if _, ok := clockMinutes(q.End); !ok {
		return &FieldError{Field: "end", Message: "quiet hours end as HH:MM, such as 07:00"}
	}
	_, err := s.commit(ctx, func(t *txn) error {
		for key, v := range map[string]string{settingQuietStart: q.Start, settingQuietEnd: q.End} {
			if err := t.Save(&OwnerSetting{Key: key, Value: v, UpdatedAt: t.now}).Error; err != nil {
				return err
			}
		}
		return nil
	})
	return classifyPush("set quiet hours", err)
}

// Push is what More shows: how many phones are subscribed, the quiet
// hours, and the newest notifications with why each was sent or not.
func (s *Store) Push(ctx context.Context) (PushView, error) {
	var v PushView
	err := s.Read(ctx, func(tx *gorm.DB) error {
		var n int64
		if err := tx.Model(&PushSubscription{}).Count(&n).Error; err != nil {
			return err
		}
		v.Subscriptions = int(n)
		var err error
		if v.Quiet, err = quietHours(tx); err != nil {
			return err
		}
		return tx.Order("updated_at DESC, item_key").Limit(20).Find(&v.Recent).Error
	})
	return v, classifyPush("push", err)
}

// pushItem is an item waiting on the owner that may be notified.
type pushItem struct {
	ID        string
	Kind      string
	Title     string
	DraftID   *string
	CreatedAt time.Time
	// link opens a tracked kind's item (push_items.go).
	link string
}

// actedAt is, per activity, when the owner first acted on it: a decision
// of theirs on the activity (Home, Messages, a value; not a rule or an
// undo), or, for a reply, a reply action or a send on its draft.
func actedAt(tx *gorm.DB, items []pushItem) (map[string]time.Time, error) {
	out := map[string]time.Time{}
	if len(items) == 0 {
		return out, nil
	}
	ids := make([]string, 0, len(items))
	draftOf := map[string][]string{}
	var drafts []string
	for _, it := range items {
		ids = append(ids, it.ID)
		if it.DraftID != nil {
			draftOf[*it.DraftID] = append(draftOf[*it.DraftID], it.ID)
			drafts = append(drafts, *it.DraftID)
		}
	}
	keep := func(id string, at time.Time) {
		if old, ok := out[id]; !ok || at.Before(old) {
			out[id] = at
		}
	}
	type first struct {
		Key string
		At  time.Time
	}
	scan := func(q *gorm.DB, each func(key string, at time.Time)) error {
		var rows []first
		if err := q.Scan(&rows).Error; err != nil {
			return err
		}
		for _, r := range rows {
			each(r.Key, r.At)
		}
		return nil
	}
	for chunk := range slices.Chunk(ids, 500) {
		q := tx.Table("activity_decisions").Select("activity_id AS key, created_at AS at").
			Where("activity_id IN ? AND cause IN ?", chunk, []string{CauseHome, CauseOwner, CauseValue})
		if err := scan(q, keep); err != nil {
			return nil, err
		}
	}
	for chunk := range slices.Chunk(drafts, 500) {
		for _, table := range []string{"reply_actions", "sends"} {
			q := tx.Table(table).Select("draft_id AS key, created_at AS at").Where("draft_id IN ?", chunk)
			err := scan(q, func(draft string, at time.Time) {
				for _, id := range draftOf[draft] {
					keep(id, at)
				}
			})
			if err != nil {
				return nil, err
			}
		}
	}
	return out, nil
}

// pushPolicy is whether a kind is notified, and why: the basis, the
// number of the kind's items it was learned from and how soon the owner
// usually acted on them.
type pushPolicy struct {
	on     bool
	basis  string
	judged int
	median time.Duration
}

// pushPolicies learns, per kind, from the owner's own decisions on the
// items of the last four weeks that are at least a day old: a kind the
// owner acted on within a day at least once is on, one they never did is
// off, and a kind with no such items yet is on.
func pushPolicies(tx *gorm.DB, now time.Time) (map[string]pushPolicy, error) {
	var items []pushItem
	err := tx.Table("activities").Select("id, kind, title, draft_id, created_at").
		Where("kind IN ? AND parent_id IS NULL AND created_at >= ? AND created_at < ?",
			activityKinds, now.Add(-pushLearnWindow).UTC(), now.Add(-pushActWithin).UTC()).
		Scan(&items).Error
	if err != nil {
		return nil, err
	}
	acted, err := actedAt(tx, items)
	if err != nil {
		return nil, err
	}
	runs, err := unknownRuns(tx, tx.Where("state = 'unknown' AND ((finished_at >= ? AND finished_at < ?) OR (finished_at IS NULL AND updated_at >= ? AND updated_at < ?))",
		now.Add(-pushLearnWindow).UTC(), now.Add(-pushActWithin).UTC(), now.Add(-pushLearnWindow).UTC(), now.Add(-pushActWithin).UTC()))
	if err != nil {
		return nil, err
	}
	// Keyed by push key: a run and an activity may share an ID.
	actedByKey := map[string]time.Time{}
	for _, it := range items {
		if at, ok := acted[it.ID]; ok {
			actedByKey[it.key()] = at
		}
	}
	for _, r := range runs {
		items = append(items, r.item)
		if r.resolvedAt != nil {
			actedByKey[r.item.key()] = *r.resolvedAt
		}
	}
	judged := map[string]int{}
	quick := map[string][]time.Duration{}
	if err := learnTracked(tx, now.Add(-pushLearnWindow), now.Add(-pushActWithin), judged, quick); err != nil {
		return nil, err
	}
	for _, it := range items {
		judged[it.Kind]++
		if at, ok := actedByKey[it.key()]; ok && at.Sub(it.CreatedAt) <= pushActWithin {
			quick[it.Kind] = append(quick[it.Kind], max(at.Sub(it.CreatedAt), 0))
		}
	}
	out := map[string]pushPolicy{}
	for kind := range pushKinds {
		switch {
		case judged[kind] == 0:
			out[kind] = pushPolicy{on: true, basis: BasisNew}
		case len(quick[kind]) == 0:
			out[kind] = pushPolicy{on: false, basis: BasisIgnored, judged: judged[kind]}
		default:
			out[kind] = pushPolicy{on: true, basis: BasisUsual, judged: judged[kind], median: median(quick[kind])}
		}
	}
	return out, nil
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// median is the middle of ds (the mean of the two middle ones for an even
// count); ds is left as it was. Push reasons and reply rates share it.
func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	if n := len(s); n%2 == 0 {
		return (s[n/2-1] + s[n/2]) / 2
	}
	return s[len(s)/2]
}

// preview is s cut to n characters at most, with an ellipsis when cut.
func preview(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return strings.TrimSpace(string(r[:n-1])) + "…"
}

// openPushItems are the activities still waiting on the owner among ids
// (not closed, retracted or acted on).
func openPushItems(tx *gorm.DB, q *gorm.DB) ([]pushItem, error) {
	var items []pushItem
	if err := q.Scan(&items).Error; err != nil {
		return nil, err
	}
	acted, err := actedAt(tx, items)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(items, func(it pushItem) bool { _, ok := acted[it.ID]; return ok }), nil
}

func activityPushKey(id string) string { return "activity:" + id }

// key is the item's push_notifications key.
func (it pushItem) key() string {
	if p, ok := keyPrefixes[it.Kind]; ok {
		return p + it.ID
	}
	return activityPushKey(it.ID)
}

// url opens the item in place: an activity's row on Home, a run on Runs,
// a tracked kind's where it is decided.
func (it pushItem) url() string {
	switch {
	case it.link != "":
		return it.link
	case it.Kind == kindRun:
		return "/runs#run-" + url.PathEscape(it.ID)
	}
	return "/activities/" + url.PathEscape(it.ID)
}

// body is the notification's text: the item's title cut short, or for a
// run its job.
func (it pushItem) body() string {
	if it.Kind == kindRun {
		return preview(it.Title+": how it ended is unknown", pushPreview)
	}
	return preview(it.Title, pushPreview)
}

// unknownRun is a run whose outcome is unknown, as a push item (its job as
// title, when it ended as its appearance), with when the owner resolved it.
type unknownRun struct {
	item       pushItem
	resolvedAt *time.Time
}

// unknownRuns reads the runs q selects.
func unknownRuns(tx *gorm.DB, q *gorm.DB) ([]unknownRun, error) {
	var rows []struct {
		ID         string
		Job        string
		FinishedAt *time.Time
		UpdatedAt  time.Time
		ResolvedAt *time.Time
	}
	if err := q.Table("runs").Select("id, job, finished_at, updated_at, resolved_at").Order("id").Scan(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]unknownRun, 0, len(rows))
	for _, r := range rows {
		at := r.UpdatedAt
		if r.FinishedAt != nil {
			at = *r.FinishedAt
		}
		out = append(out, unknownRun{item: pushItem{ID: r.ID, Kind: kindRun, Title: r.Job, CreatedAt: at}, resolvedAt: r.ResolvedAt})
	}
	return out, nil
}

// PlanPushes decides, in one commit, what to notify now and records it, so
// an item is considered once: new items waiting on the owner are sent
// (kinds the owner acts on), muted (kinds they do not) or held (quiet
// hours); after quiet hours the held items still waiting go out in one
// digest and those decided meanwhile are dropped; a notification whose
// items were all decided since is closed on the phone (a close push with
// its tag). Nothing is planned while no phone is subscribed, and only items
// that appeared since the first subscription and within the last day are
// considered.
func (s *Store) PlanPushes(ctx context.Context) ([]PushOut, error) {
	// The sender looks after every commit and every minute: without a
	// phone subscribed, a read answers and the write lock is left alone.
	var n int64
	if err := s.Read(ctx, func(tx *gorm.DB) error { return tx.Model(&PushSubscription{}).Limit(1).Count(&n).Error }); err != nil {
		return nil, classifyPush("plan pushes", err)
	}
	if n == 0 {
		return nil, nil
	}
	var outs []PushOut
	_, err := s.commit(ctx, func(t *txn) error {
		var subs []PushSubscription
		if err := t.Order("id").Find(&subs).Error; err != nil {
			return err
		}
		if len(subs) == 0 {
			return nil
		}
		first := subs[0].CreatedAt
		for _, sub := range subs {
			if sub.CreatedAt.Before(first) {
				first = sub.CreatedAt
			}
		}
		since := t.now.Add(-pushFresh)
		if first.After(since) {
			since = first
		}
		day, err := OwnerDay(t.DB, t.now, "")
		if err != nil {
			return err
		}
		quiet, err := quietHours(t.DB)
		if err != nil {
			return err
		}
		local := t.now.In(day.Zone)
		inQuiet := quiet.Contains(local)
		fresh, err := openPushItems(t.DB, t.Table("activities AS a").Select("a.id, a.kind, a.title, a.draft_id, a.created_at").
			Where("a.kind IN ? AND a.parent_id IS NULL AND a.closed_at IS NULL AND a.retracted_at IS NULL AND a.created_at >= ?",
				activityKinds, since.UTC()).
			Where("NOT EXISTS (SELECT 1 FROM push_notifications p WHERE p.item_key = 'activity:' || a.id)").
			Order("a.created_at, a.id"))
		if err != nil {
			return err
		}
		runs, err := unknownRuns(t.DB, t.Where("state = 'unknown' AND resolved_at IS NULL AND (finished_at >= ? OR (finished_at IS NULL AND updated_at >= ?))", since.UTC(), since.UTC()).
			Where("NOT EXISTS (SELECT 1 FROM push_notifications p WHERE p.item_key = 'run:' || runs.id)"))
		if err != nil {
			return err
		}
		for _, r := range runs {
			fresh = append(fresh, r.item)
		}
		tracked, err := freshTracked(t.DB, since)
		if err != nil {
			return err
		}
		fresh = append(fresh, tracked...)
		policies := map[string]pushPolicy{}
		if len(fresh) > 0 {
			if policies, err = pushPolicies(t.DB, t.now); err != nil {
				return err
			}
		}
		for _, it := range fresh {
			pol := policies[it.Kind]
			row := PushNotification{ItemKey: it.key(), Kind: it.Kind, Title: pushKinds[it.Kind].title,
				Body: it.body(), URL: it.url(), Basis: pol.basis, Judged: pol.judged, MedianSeconds: int64(pol.median / time.Second),
				CreatedAt: t.now.UTC(), UpdatedAt: t.now.UTC()}
			switch {
			case !pol.on:
				row.Status = PushMuted
			case inQuiet:
				row.Status, row.QuietStart, row.QuietEnd = PushHeld, quiet.Start, quiet.End
			default:
				row.Status, row.ShownUnder = PushSending, row.ItemKey
				outs = append(outs, PushOut{Key: row.ItemKey, Payload: row.payload(), Subscriptions: subs})
			}
			if err := t.Create(&row).Error; err != nil {
				return err
			}
		}
		if err := markDecided(t); err != nil {
			return err
		}
		if !inQuiet {
			digest, err := s.digest(t, local, subs)
			if err != nil {
				return err
			}
			if digest != nil {
				outs = append(outs, *digest)
			}
		}
		closing, err := closes(t, subs)
		outs = append(outs, closing...)
		return err
	})
	return outs, classifyPush("plan pushes", err)
}

func (n PushNotification) payload() PushPayload {
	return PushPayload{Title: n.Title, Body: n.Body, URL: n.URL, Tag: n.ItemKey}
}

// digest gathers the items held for quiet hours: those still waiting on
// the owner go out in one notification, those decided meanwhile
// (markDecided) are dropped.
func (s *Store) digest(t *txn, local time.Time, subs []PushSubscription) (*PushOut, error) {
	var held []PushNotification
	if err := t.Where("status = ?", PushHeld).Order("created_at, item_key").Find(&held).Error; err != nil {
		return nil, err
	}
	if len(held) == 0 {
		return nil, nil
	}
	key := "digest:" + t.now.UTC().Format(time.RFC3339)
	at := local.Format("15:04")
	counts := map[string]int{}
	var firstURL string
	for _, h := range held {
		change := map[string]any{"status": PushDropped, "digest_clock": at, "updated_at": t.now.UTC()}
		if h.DecidedAt == nil {
			change["status"], change["shown_under"] = PushDigested, key
			counts[h.Kind]++
			if firstURL == "" {
				firstURL = h.URL
			}
		}
		if err := t.Model(&PushNotification{}).Where("item_key = ?", h.ItemKey).Updates(change).Error; err != nil {
			return nil, err
		}
	}
	total := 0
	var parts []string
	for _, kind := range slices.Sorted(mapKeys(counts)) {
		total += counts[kind]
		parts = append(parts, fmt.Sprintf("%d %s", counts[kind], pushKinds[kind].plural))
	}
	if total == 0 {
		return nil, nil
	}
	sort.Strings(parts)
	url := "/"
	if total == 1 {
		url = firstURL
	}
	row := PushNotification{ItemKey: key, Kind: "digest",
		Title: fmt.Sprintf("While you were away: %d waiting on you", total), Body: strings.Join(parts, ", "), URL: url,
		Status: PushSending, Basis: BasisDigest, DigestClock: at, CreatedAt: t.now.UTC(), UpdatedAt: t.now.UTC()}
	if err := t.Create(&row).Error; err != nil {
		return nil, err
	}
	return &PushOut{Key: row.ItemKey, Payload: row.payload(), Subscriptions: subs}, nil
}

// SettlePush records how a planned notification went: sent when at least
// one push service took it, else failed; dead are the endpoints the push
// service said are gone (404, 410), whose subscriptions are deleted.
func (s *Store) SettlePush(ctx context.Context, key string, delivered bool, dead []string) error {
	status := PushFailed
	if delivered {
		status = PushSent
	}
	_, err := s.commit(ctx, func(t *txn) error {
		if len(dead) > 0 {
			if err := t.Where("endpoint IN ?", dead).Delete(&PushSubscription{}).Error; err != nil {
				return err
			}
		}
		// A close was recorded when planned (closed_at); it has no status.
		if strings.HasPrefix(key, closePrefix) {
			return nil
		}
		res := t.Model(&PushNotification{}).Where("item_key = ? AND status = ?", key, PushSending).
			Updates(map[string]any{"status": status, "updated_at": t.now.UTC()})
		if res.Error != nil {
			return res.Error
		}
		if res.RowsAffected == 0 {
			return errors.New("no notification being sent under " + key)
		}
		return nil
	})
	return classifyPush("settle push", err)
}

// classifyPush is Classify for the push services, nil staying nil.
func classifyPush(op string, err error) error {
	if err == nil {
		return nil
	}
	return Classify(op, err)
}
