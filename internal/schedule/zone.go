package schedule

import (
	"errors"
	"strings"
	"time"

	"hearth/internal/zone"
)

// ZoneSource says where a schedule's zone came from, so answers can disclose it.
type ZoneSource string

// The zone sources of Timing A, in order of precedence.
const (
	ZoneExplicit ZoneSource = "explicit" // --zone / the request's zone
	ZoneClient   ZoneSource = "client"   // the client's TZ
	ZoneUTC      ZoneSource = "utc"      // neither given (or the client's was not a zone)
)

// LoadZone resolves an IANA zone name (internal/zone's one cache). "" and
// "Local" are refused: a schedule must not change meaning with the
// server's own zone.
func LoadZone(name string) (*time.Location, error) {
	loc, err := zone.Load(name)
	switch {
	case errors.Is(err, zone.ErrNotAZone):
		return nil, invalid("zone", "not an IANA zone", "an IANA zone name like Europe/Berlin", quote(name))
	case err != nil:
		return nil, invalid("zone", "unknown zone", "an IANA zone name like Europe/Berlin", quote(name))
	}
	return loc, nil
}

// ResolveZone applies Timing A's precedence: an explicit zone must be valid
// (an invalid one is an error, never a silent fallback); otherwise the
// client's TZ is used when it names a zone; otherwise UTC, disclosed as such.
func ResolveZone(explicit, client string) (*time.Location, ZoneSource, error) {
	if explicit != "" {
		loc, err := LoadZone(explicit)
		if err != nil {
			return nil, "", err
		}
		return loc, ZoneExplicit, nil
	}
	// POSIX allows TZ=":Europe/Berlin"; the colon only says "a file name follows".
	if c := strings.TrimPrefix(client, ":"); c != "" {
		if loc, err := LoadZone(c); err == nil {
			return loc, ZoneClient, nil
		}
	}
	return time.UTC, ZoneUTC, nil
}
