package models

import (
	"database/sql/driver"
	"time"

	"hearth/models/instant"
)

// StoredTime is a DATETIME column that holds an instant from outside hearth
// (a source ref's observedAt), read leniently: a value an older hearth
// stored without the bound reads as not Valid instead of failing the whole
// query. (The SQLite driver writes a year-10000 instant as text that no
// DATETIME scan reads back, which once took Home down on every load.)
// Readers show such a row without its time.
type StoredTime struct {
	Time  time.Time
	Valid bool // false: NULL, unreadable, or outside the bound
}

// storedLayouts are the texts a DATETIME value may hold when the driver did
// not already turn it into a time.Time.
var storedLayouts = []string{"2006-01-02 15:04:05.999999999-07:00", time.RFC3339Nano, "2006-01-02 15:04:05.999999999"}

// Scan implements sql.Scanner; it never fails, so one row cannot fail a read.
func (t *StoredTime) Scan(v any) error {
	*t = StoredTime{}
	var s string
	switch x := v.(type) {
	case time.Time:
		t.Time, t.Valid = x, instant.InRange(x)
		return nil
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		return nil
	}
	for _, layout := range storedLayouts {
		if p, err := time.Parse(layout, s); err == nil {
			t.Time, t.Valid = p, instant.InRange(p)
			return nil
		}
	}
	return nil
}

// Value implements driver.Valuer: hearth only writes instants it accepted.
func (t StoredTime) Value() (driver.Value, error) {
	if !t.Valid {
		return nil, nil
	}
	return t.Time.UTC(), nil
}
