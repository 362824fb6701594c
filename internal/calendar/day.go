// Package calendar is the owner's calendar day: the date, the next date
// and the instants they begin, in one zone. It is pure: the store decides
// which zone is the owner's (models.OwnerDay).
package calendar

import "time"

// Day is the owner's calendar day. It is computed once, in the owner's
// zone, and Home, row fragments, views and the agent context all use it, so
// "today" and "tomorrow" never fall back to UTC or the server's zone.
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
