package models

import (
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/calendar"
	"hearth/internal/contract"
	"hearth/internal/zone"
)

// Day is the owner's calendar day (internal/calendar): computed here, in
// the owner's zone, by OwnerDay.
type Day = calendar.Day

// DayOf is the calendar day in loc that contains now.
func DayOf(now time.Time, loc *time.Location) Day { return calendar.DayOf(now, loc) }

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
