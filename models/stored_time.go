package models

import (
	"database/sql/driver"
	"time"

	"hearth/internal/instant"
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

// Scan implements sql.Scanner; it never fails, so one row cannot fail a
// read. The driver hands a DATETIME column over as a time.Time whenever
// its text reads as a time in any layout SQLite or hearth writes; what
// comes as text instead is a value no layout reads (a year-10000 instant),
// so only a time.Time can be Valid.
func (t *StoredTime) Scan(v any) error {
	x, ok := v.(time.Time)
	*t = StoredTime{Time: x, Valid: ok && instant.InRange(x)}
	return nil
}

// Value implements driver.Valuer: hearth only writes instants it accepted.
func (t StoredTime) Value() (driver.Value, error) {
	if !t.Valid {
		return nil, nil
	}
	return t.Time.UTC(), nil
}
