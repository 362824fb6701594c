package models

import (
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/zone"
)

// Day is the owner's calendar day. It is computed here, once, in the
// owner's zone, and Home, row fragments, views and the agent context all
// use it, so "today" and "tomorrow" never fall back to UTC or the server's zone.
type Day struct {
	Date     string         // YYYY-MM-DD in Zone
	Tomorrow string         // the next date in Zone
	Zone     *time.Location // the brief's zone; else the occurrence key's; else UTC
	Start    time.Time      // the instant Date began, in UTC
	End      time.Time      // the instant Date ends (Tomorrow begins), in UTC
}

// DayOf is the calendar day in loc that contains now.
func DayOf(now time.Time, loc *time.Location) Day {
	local := now.In(loc)
	start := time.Date(local.Year(), local.Month(), local.Day(), 0, 0, 0, 0, loc)
	// AddDate on the wall date, not 24 hours: a DST day is 23 or 25 hours long.
	next := time.Date(local.Year(), local.Month(), local.Day()+1, 0, 0, 0, 0, loc)
	return Day{Date: start.Format(time.DateOnly), Tomorrow: next.Format(time.DateOnly), Zone: loc, Start: start.UTC(), End: next.UTC()}
}

// OwnerDay is the owner's day at now: in the brief's zone, else in the zone
// of occurrenceKey (when a row fragment has one), else in UTC.
func OwnerDay(tx *gorm.DB, now time.Time, occurrenceKey string) (Day, error) {
	var zones []string
	if err := tx.Model(&Brief{}).Limit(1).Pluck("time_zone", &zones).Error; err != nil {
		return Day{}, err
	}
	if _, zone, ok := strings.Cut(occurrenceKey, "@"); ok {
		zones = append(zones, zone)
	}
	for _, z := range zones {
		if loc, err := zone.Load(z); err == nil {
			return DayOf(now, loc), nil
		}
	}
	return DayOf(now, time.UTC), nil
}

// briefDay is OwnerDay(tx, now, "") from the brief already read (nil
// before any brief), without reading it again.
func briefDay(brief *contract.BriefView, now time.Time) Day { return dayFor(brief, now, "") }

// dayFor is OwnerDay(tx, now, occurrenceKey) from the brief already read.
func dayFor(brief *contract.BriefView, now time.Time, occurrenceKey string) Day {
	var zones []string
	if brief != nil {
		zones = append(zones, brief.TimeZone)
	}
	if _, zone, ok := strings.Cut(occurrenceKey, "@"); ok {
		zones = append(zones, zone)
	}
	for _, z := range zones {
		if loc, err := zone.Load(z); err == nil {
			return DayOf(now, loc)
		}
	}
	return DayOf(now, time.UTC)
}
