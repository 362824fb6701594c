package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// ErrClientKeyConflict means a client key already names another owner action.
var ErrClientKeyConflict = errors.New("client key already used for another action")

// OwnerClientKey records an owner action sent with a client key, so a
// replay of it is a no-op answered with the revision it committed.
type OwnerClientKey struct {
	Key       string `gorm:"primaryKey"`
	Action    string
	Revision  int64
	CreatedAt time.Time
}

// clientKeyPattern is what hearth.js makes (random, URL-safe); anything
// else is a client bug, refused rather than stored.
var clientKeyPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{16,64}$`)

func checkClientKey(key string) error {
	if key != "" && !clientKeyPattern.MatchString(key) {
		return fmt.Errorf("models: client key must be 16 to 64 letters, digits, - or _: %w", ErrInvalidInput)
	}
	return nil
}

// actionForm is an action's canonical form, compared on replay.
func actionForm(parts ...string) string {
	b, _ := json.Marshal(parts)
	return string(b)
}

// replayed looks key up: the revision it committed when it names this
// action, ErrClientKeyConflict when it names another, 0 when it is new.
func replayed(t *txn, key, action string) (int64, error) {
	if key == "" {
		return 0, nil
	}
	var rows []OwnerClientKey
	if err := t.Where("key = ?", key).Limit(1).Find(&rows).Error; err != nil {
		return 0, err
	}
	if len(rows) == 0 {
		return 0, nil
	}
	if rows[0].Action != action {
		return 0, ErrClientKeyConflict
	}
	return rows[0].Revision, nil
}

// spendClientKey records key as done by action at rev, in the action's
// own transaction: a refused action does not spend its key.
func spendClientKey(t *txn, key, action string, rev int64) error {
	if key == "" {
		return nil
	}
	return t.Create(&OwnerClientKey{Key: key, Action: action, Revision: rev, CreatedAt: t.now}).Error
}

// SetActivityStateOnce is SetActivityState as Home's rows send it: with
// the owner's client key (empty: none) and answered with the row
// (OwnerActionResult.Answer). A replay of the same action answers the
// revision it committed and changes nothing, even if the state changed
// since; the key with another action is ErrClientKeyConflict.
func (s *Store) SetActivityStateOnce(ctx context.Context, clientKey, activityID, state, until, note string) (OwnerActionResult, error) {
	if err := checkClientKey(clientKey); err != nil {
		return OwnerActionResult{}, err
	}
	return s.setActivityState(ctx, clientKey, activityID, state, until, note, true)
}

// RecordMeasurementOnce is RecordMeasurement as Home's rows send it: with
// the owner's client key (empty: none) and answered with the row. A replay
// of the same value answers the measurement it saved and adds no
// correction; the key with another action is ErrClientKeyConflict.
func (s *Store) RecordMeasurementOnce(ctx context.Context, clientKey, activityID string, value float64) (SavedMeasurement, error) {
	if err := checkClientKey(clientKey); err != nil {
		return SavedMeasurement{}, err
	}
	return s.recordMeasurement(ctx, clientKey, activityID, value, true)
}

// AddOwnerItemOnce is AddOwnerItem as Home's quick add sends it: with the
// owner's client key (empty: none). A replay of the same words stores
// nothing and answers the zero OwnerItem (the first send's item is on
// Home); the key with other words is ErrClientKeyConflict.
func (s *Store) AddOwnerItemOnce(ctx context.Context, clientKey, typed string) (OwnerItem, error) {
	if err := checkClientKey(clientKey); err != nil {
		return OwnerItem{}, err
	}
	return s.addOwnerItem(ctx, clientKey, typed)
}

func ownerItemAction(text string) string {
	return actionForm("owner-item", text)
}

func measurementAction(activityID string, value float64) string {
	return actionForm("measurement", activityID, strconv.FormatFloat(value, 'g', -1, 64))
}

func stateAction(activityID, state, until, note string) string {
	return actionForm("state", activityID, state, until, note)
}
