package models

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/instant"
	"hearth/internal/quickday"
)

// OwnerItem is a task or note the owner added in their own words (Home's
// quick add). It is owner-owned: no publication writes it.
type OwnerItem struct {
	ID        string `gorm:"primaryKey"`
	Text      string
	Day       string // YYYY-MM-DD in the owner's zone, "" when none was typed
	DoneAt    *time.Time
	RemovedAt *time.Time
	Revision  int64
	CreatedAt time.Time
	UpdatedAt time.Time
}

// ownerItemPrefix starts the IDs hearth gives owner items; the refusal of
// a publication that names one goes by the stored rows, not by this.
const ownerItemPrefix = "own-"

// MaxOwnerItemsInContext bounds ownerItems in the agent context.
const MaxOwnerItemsInContext = 200

// OwnerItemsView is what Home shows of the owner's items: Now are those of
// today, of no day and overdue (open, or done today), Ahead those of later
// days, grouped by day in date order.
type OwnerItemsView struct {
	Today string
	Now   []OwnerItem
	Ahead []OwnerItemDay
}

// OwnerItemDay is one later day's items.
type OwnerItemDay struct {
	Day   string
	Items []OwnerItem
}

// Done reports whether the owner ticked the item done.
func (o OwnerItem) Done() bool { return o.DoneAt != nil }

func (o OwnerItem) View() contract.OwnerItemView {
	return contract.OwnerItemView{ID: o.ID, Text: o.Text, Day: o.Day, DoneAt: o.DoneAt, AddedBy: contract.AddedByOwner, CreatedAt: o.CreatedAt, UpdatedAt: o.UpdatedAt}
}

// checkOwnerText trims the owner's words and bounds them as an activity's title is.
func checkOwnerText(text string) (string, error) {
	text = strings.Join(strings.Fields(text), " ")
	switch {
	case text == "":
		return "", &FieldError{Field: "text", Message: "Type a task or a note first."}
	case utf8.RuneCountInString(text) > contract.MaxTitleLen:
		return "", &FieldError{Field: "text", Message: fmt.Sprintf("Keep it under %d characters.", contract.MaxTitleLen+1)}
	}
	return text, nil
}

// AddOwnerItem stores a task or note in the owner's words. A day typed at
// its end or start ("call Ana tomorrow", quickday) is read in the owner's
// zone and taken out of the text.
func (s *Store) AddOwnerItem(ctx context.Context, typed string) (OwnerItem, error) {
	return s.addOwnerItem(ctx, "", typed)
}

func (s *Store) addOwnerItem(ctx context.Context, clientKey, typed string) (OwnerItem, error) {
	text, err := checkOwnerText(typed)
	if err != nil {
		return OwnerItem{}, err
	}
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return OwnerItem{}, fmt.Errorf("models: add owner item: %w", err)
	}
	var row OwnerItem
	action := ownerItemAction(text)
	_, err = s.commit(ctx, func(t *txn) error {
		if replay, err := replayed(t, clientKey, action); err != nil || replay != 0 {
			return err
		}
		day, err := t.ownerDay()
		if err != nil {
			return err
		}
		parsed := quickday.Parse(text, t.now, day.Zone)
		rev, err := t.bump()
		if err != nil {
			return err
		}
		if err := spendClientKey(t, clientKey, action, rev); err != nil {
			return err
		}
		row = OwnerItem{ID: ownerItemPrefix + hex.EncodeToString(b[:]), Text: parsed.Text, Day: parsed.Day, Revision: rev, CreatedAt: t.now, UpdatedAt: t.now}
		t.touch("owner-item:" + row.ID)
		return t.Create(&row).Error
	})
	if err != nil {
		return OwnerItem{}, Classify("add owner item", err)
	}
	return row, nil
}

// changeOwnerItem applies change to a live owner item in one commit.
func (s *Store) changeOwnerItem(ctx context.Context, op, id string, change func(*OwnerItem, time.Time) map[string]any) (OwnerItem, error) {
	var row OwnerItem
	_, err := s.commit(ctx, func(t *txn) error {
		if err := t.Where("id = ? AND removed_at IS NULL", id).Take(&row).Error; err != nil {
			return notFound(err)
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		updates := change(&row, t.now)
		updates["revision"], updates["updated_at"] = rev, t.now
		row.Revision, row.UpdatedAt = rev, t.now
		t.touch("owner-item:" + id)
		return t.Model(&OwnerItem{}).Where("id = ?", id).Updates(updates).Error
	})
	if err != nil {
		return OwnerItem{}, Classify(op, err)
	}
	return row, nil
}

// SetOwnerItemDone ticks an owner item done, or back to open.
func (s *Store) SetOwnerItemDone(ctx context.Context, id string, done bool) (OwnerItem, error) {
	return s.changeOwnerItem(ctx, "tick owner item", id, func(o *OwnerItem, now time.Time) map[string]any {
		o.DoneAt = nil
		if done {
			o.DoneAt = &now
		}
		return map[string]any{"done_at": o.DoneAt}
	})
}

// EditOwnerItem replaces an owner item's words and day (YYYY-MM-DD, or ""
// for none). The words are taken as typed: a day in them stays text.
func (s *Store) EditOwnerItem(ctx context.Context, id, typed, day string) (OwnerItem, error) {
	text, err := checkOwnerText(typed)
	if err != nil {
		return OwnerItem{}, err
	}
	if day != "" {
		if _, err := instant.ParseDate(day); err != nil {
			return OwnerItem{}, &FieldError{Field: "day", Message: "Enter a day from 2000-01-01 to 2199-12-31, as YYYY-MM-DD, or leave it empty."}
		}
	}
	return s.changeOwnerItem(ctx, "edit owner item", id, func(o *OwnerItem, _ time.Time) map[string]any {
		o.Text, o.Day = text, day
		return map[string]any{"text": text, "day": day}
	})
}

// RemoveOwnerItem takes an owner item off Home and out of the agent's context.
func (s *Store) RemoveOwnerItem(ctx context.Context, id string) error {
	_, err := s.changeOwnerItem(ctx, "remove owner item", id, func(o *OwnerItem, now time.Time) map[string]any {
		o.RemovedAt = &now
		return map[string]any{"removed_at": now}
	})
	return err
}

// OwnerItem reads one live owner item.
func (s *Store) OwnerItem(ctx context.Context, id string) (OwnerItem, error) {
	var row OwnerItem
	if err := s.rdb.WithContext(ctx).Where("id = ? AND removed_at IS NULL", id).Take(&row).Error; err != nil {
		return OwnerItem{}, Classify("owner item", notFound(err))
	}
	return row, nil
}

// ownerItemsOnHome reads the live items Home shows on day: every open
// one, and those done since the day began.
func ownerItemsOnHome(tx *gorm.DB, day Day) (OwnerItemsView, error) {
	v := OwnerItemsView{Today: day.Date}
	rows, err := scanRows(tx.Raw(`SELECT id, text, day, done_at, removed_at, revision, created_at, updated_at FROM owner_items
		WHERE removed_at IS NULL AND (done_at IS NULL OR done_at >= ?) ORDER BY day, created_at, id LIMIT `+strconv.Itoa(MaxOwnerItemsInContext), day.Start),
		func(r *OwnerItem) []any {
			return []any{&r.ID, &r.Text, &r.Day, &r.DoneAt, &r.RemovedAt, &r.Revision, &r.CreatedAt, &r.UpdatedAt}
		})
	if err != nil {
		return v, fmt.Errorf("owner items: %w", err)
	}
	for _, r := range rows {
		if r.Day <= day.Date {
			v.Now = append(v.Now, r)
			continue
		}
		if n := len(v.Ahead); n > 0 && v.Ahead[n-1].Day == r.Day {
			v.Ahead[n-1].Items = append(v.Ahead[n-1].Items, r)
			continue
		}
		v.Ahead = append(v.Ahead, OwnerItemDay{Day: r.Day, Items: []OwnerItem{r}})
	}
	// Open before done, each in the order added.
	slices.SortStableFunc(v.Now, func(a, b OwnerItem) int {
		switch {
		case a.Done() == b.Done():
			return a.CreatedAt.Compare(b.CreatedAt)
		case a.Done():
			return 1
		}
		return -1
	})
	return v, nil
}

// resolveOwnerItems refuses a publication that names an owner item by ID
// (any stored one, removed ones too) as an activity to upsert, a
// retraction or a request to complete: the owner's words are theirs, and
// the agent may not rewrite, remove or settle them.
func resolveOwnerItems(r *contract.Result, tx *gorm.DB, v *contract.Validator) error {
	type named struct{ path, id string }
	var refs []named
	for i, a := range r.Activities {
		refs = append(refs, named{fmt.Sprintf("/activities/%d/id", i), a.ID})
	}
	for i, rt := range r.Retractions {
		refs = append(refs, named{fmt.Sprintf("/retractions/%d/id", i), rt.ID})
	}
	for i, c := range r.CompletedRequests {
		refs = append(refs, named{fmt.Sprintf("/completedRequests/%d/requestId", i), c.RequestID})
	}
	if len(refs) == 0 {
		return nil
	}
	ids := make([]string, len(refs))
	for i, n := range refs {
		ids[i] = n.id
	}
	found, err := existing(tx, "owner_items", ids)
	if err != nil {
		return err
	}
	for _, n := range refs {
		if found[n.id] {
			v.AddCoded(n.path, contract.CodeOwnerItemReadOnly,
				fmt.Sprintf("%q is the owner's own item (ownerItems): the agent may read it but never rewrite, retract or complete it", n.id),
				contract.ExpectedNotOwnerItem, contract.QuoteFound(n.id))
		}
	}
	return nil
}
