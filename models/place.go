package models

import (
	"strings"
	"time"
)

// Place is where an activity is on Home on a day. It is decided here once,
// and Home's read, a row's answer and the handlers all read it.
type Place int

const (
	// PlaceOff is not on Home that day: an occurrence of another day, or
	// settled on an earlier day.
	PlaceOff Place = iota
	// PlaceOpen is in its section, open.
	PlaceOpen
	// PlaceDone is in Done today: settled that day.
	PlaceDone
	// PlaceLater is under Later: dismissed, or deferred past that day.
	PlaceLater
)

// OnHome reports whether Home lists the activity that day (a section or Done today).
func (p Place) OnHome() bool { return p == PlaceOpen || p == PlaceDone }

// placeOf is where an activity of occurrenceKey (empty: undated) is on
// day in state, with until for deferred and at, when the state was
// decided. A dated occurrence deferred to a date returns on that date
// only, an undated one from that date on.
func placeOf(state, until string, at *time.Time, occurrenceKey string, day Day) Place {
	date, _, _ := strings.Cut(occurrenceKey, "@")
	switch state {
	case StateDismissed:
		return PlaceLater
	case StateCompleted, StatePartial, StateSkipped:
		if at != nil && !at.Before(day.Start) {
			return PlaceDone
		}
		return PlaceOff
	case StateDeferred:
		switch {
		case until > day.Date:
			return PlaceLater
		case date == "" || until == day.Date:
			return PlaceOpen
		}
		return PlaceOff
	}
	if date == "" || date == day.Date {
		return PlaceOpen
	}
	return PlaceOff
}

// place is where r is on Home on day.
func (r activityRow) place(day Day) Place {
	return placeOf(deref(r.State), deref(r.Until), r.StateAt, r.OccurrenceKey, day)
}
