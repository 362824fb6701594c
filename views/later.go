package views

import (
	"strconv"
	"time"

	"hearth/models"
)

// untilWords says when a deferred item returns, in the owner's words:
// "Tomorrow, Fri 4 Dec" or "Mon 7 Dec".
func untilWords(until string, day models.Day) string {
	if until == day.Tomorrow {
		return "Tomorrow, " + dayDate(until, day)
	}
	return dayDate(until, day)
}

// laterWhen is a Later item's date: when it returns, or when it was dismissed.
func laterWhen(it models.LaterItem, day models.Day) string {
	if it.State == models.StateDeferred {
		return untilWords(it.Until, day)
	}
	date := ownerTime(it.At, day, time.DateOnly)
	switch {
	case date == day.Date:
		return "Dismissed today"
	case nextDate(date) == day.Date:
		return "Dismissed yesterday"
	}
	return "Dismissed " + dayDate(date, day)
}

// undoWord is the short "what just happened" before an Undo.
func undoWord(u *models.UndoOffer, day models.Day) string {
	switch u.State {
	case models.StateCompleted:
		return "Done"
	case models.StateSkipped:
		return "Skipped"
	case models.StatePartial:
		return "Partly done"
	case models.StateDismissed:
		return "Dismissed"
	case models.StateDeferred:
		return "Moved to " + untilWords(u.Until, day)
	case models.StateAvailable:
		return "Brought back"
	}
	return "Saved"
}

// undoURL is the form action that undoes a decision.
func undoURL(u *models.UndoOffer) string {
	return "/decisions/" + strconv.FormatInt(u.DecisionID, 10) + "/undo"
}

// laterOpen keeps Later open while one of its items is (just moved there).
func (d HomeData) laterOpen() bool {
	for _, it := range d.Home.Later {
		if d.Open[it.ID] {
			return true
		}
	}
	return false
}

func itoaInt(n int) string { return strconv.Itoa(n) }
