// Package zone loads IANA time zones by name: the store, the contract's
// checks and the schedules share it, and none of them reaches the
// schedules' file store for it.
package zone

import (
	"errors"
	"strings"
	"time"
	_ "time/tzdata" // IANA zones on a machine without /usr/share/zoneinfo
)

// ErrNotAZone is a name that is no IANA zone name at all: empty, "Local"
// (the server's own zone, which must not change what a stored time means),
// a path, or too long.
var ErrNotAZone = errors.New("not an IANA zone name")

// ErrUnknown is a well-formed name the zone database does not have.
var ErrUnknown = errors.New("unknown zone")

// Loaded zones are not cached: a Home render loads three and the context
// read three, at 0.1-0.2 ms each (load ~35), a few percent of either, under
// the 2x a cache must pay.

// Load resolves an IANA zone name such as Europe/Berlin.
func Load(name string) (*time.Location, error) {
	if name == "" || name == "Local" || len(name) > 64 || strings.HasPrefix(name, "/") || strings.Contains(name, "..") {
		return nil, ErrNotAZone
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, ErrUnknown
	}
	return loc, nil
}
