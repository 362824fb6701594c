// Package zone loads IANA time zones by name, once: the store, the
// contract's checks and the schedules share one cache, and none of them
// reaches the schedules' file store for it.
package zone

import (
	"errors"
	"strings"
	"sync"
	"time"
	_ "time/tzdata" // IANA zones on a machine without /usr/share/zoneinfo
)

// ErrNotAZone is a name that is no IANA zone name at all: empty, "Local"
// (the server's own zone, which must not change what a stored time means),
// a path, or too long.
var ErrNotAZone = errors.New("not an IANA zone name")

// ErrUnknown is a well-formed name the zone database does not have.
var ErrUnknown = errors.New("unknown zone")

// zones caches loaded zones: time.LoadLocation reads the zone database on
// every call, which showed as a sixth of Home's render time.
var zones sync.Map // name → *time.Location

// Load resolves an IANA zone name such as Europe/Berlin.
func Load(name string) (*time.Location, error) {
	if loc, ok := zones.Load(name); ok {
		return loc.(*time.Location), nil
	}
	if name == "" || name == "Local" || len(name) > 64 || strings.HasPrefix(name, "/") || strings.Contains(name, "..") {
		return nil, ErrNotAZone
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, ErrUnknown
	}
	zones.Store(name, loc)
	return loc, nil
}
