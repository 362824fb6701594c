// Package quickday reads the day the owner typed into a quick add ("call
// Ana tomorrow", "dentist fri", "card 12 Dec") as a date in the owner's
// zone. It is deterministic and pure: the same text, instant and zone give
// the same answer, and it reads no clock, file or network.
//
// Recognised, at the end of the text or at its start (then followed by a
// space, ":" or ","), in any case, optionally after "on":
//   - today, tonight; tomorrow, tmrw, tmr
//   - a weekday (mon, monday, tue, tues, tuesday, wed, weds, wednesday, thu,
//     thur, thurs, thursday, fri, friday, sat, saturday, sun, sunday): the
//     next such day after today, so "fri" typed on a Friday is a week on
//     (today is "today"); after "the" or "a" it is the text's ("the sun")
//   - a day and month ("12 Dec", "3rd January", "Dec 12"), with an
//     optional year; without one, the next such date from today on
//   - an ISO date (2026-12-12)
//
// Anything else ("next week", "in 3 days", "12/12", whose order of day and
// month is a guess) is left in the text with no day. A day phrase that is
// the whole text stays the text.
package quickday

import (
	"strconv"
	"strings"
	"time"
)

// Result is the owner's text without the day phrase, and the day it names
// (YYYY-MM-DD), or the whole text and "" when none was recognised.
type Result struct{ Text, Day string }

var relative = map[string]int{"today": 0, "tonight": 0, "tomorrow": 1, "tmrw": 1, "tmr": 1}

var weekdays = map[string]time.Weekday{
	"sun": time.Sunday, "sunday": time.Sunday,
	"mon": time.Monday, "monday": time.Monday,
	"tue": time.Tuesday, "tues": time.Tuesday, "tuesday": time.Tuesday,
	"wed": time.Wednesday, "weds": time.Wednesday, "wednesday": time.Wednesday,
	"thu": time.Thursday, "thur": time.Thursday, "thurs": time.Thursday, "thursday": time.Thursday,
	"fri": time.Friday, "friday": time.Friday,
	"sat": time.Saturday, "saturday": time.Saturday,
}

var months = map[string]time.Month{
	"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3, "apr": 4, "april": 4,
	"may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
	"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11, "dec": 12, "december": 12,
}

// date is a civil date. Its arithmetic goes through time.Date at noon UTC,
// so a DST change in the owner's zone never moves a day (a 23- or 25-hour
// day is still one day).
type date struct {
	y int
	m time.Month
	d int
}

func (d date) add(days int) date {
	t := time.Date(d.y, d.m, d.d+days, 12, 0, 0, 0, time.UTC)
	return date{t.Year(), t.Month(), t.Day()}
}

func (d date) weekday() time.Weekday {
	return time.Date(d.y, d.m, d.d, 12, 0, 0, 0, time.UTC).Weekday()
}

func (d date) String() string {
	return time.Date(d.y, d.m, d.d, 12, 0, 0, 0, time.UTC).Format(time.DateOnly)
}

func (d date) before(o date) bool { return d.String() < o.String() }

// valid reports whether y-m-d is a real date (not 31 Feb).
func valid(y int, m time.Month, d int) bool {
	t := time.Date(y, m, d, 12, 0, 0, 0, time.UTC)
	return t.Year() == y && t.Month() == m && t.Day() == d
}

// Parse finds the day phrase of text as typed at now in loc (the owner's zone).
func Parse(text string, now time.Time, loc *time.Location) Result {
	words := strings.Fields(text)
	whole := strings.Join(words, " ")
	local := now.In(loc)
	today := date{local.Year(), local.Month(), local.Day()}
	// The longest phrase first: "12 Dec 2027" before "Dec 2027".
	for n := min(3, len(words)-1); n >= 1; n-- {
		if day, ok := phrase(words[len(words)-n:], today); ok {
			rest := words[:len(words)-n]
			if last := len(rest) - 1; strings.EqualFold(rest[last], "on") {
				if last == 0 {
					continue // "on fri" alone: no words would be left
				}
				rest = rest[:last]
			}
			if w := lower(rest[len(rest)-1]); n == 1 && isWeekday(words[len(words)-1]) && (w == "the" || w == "a") {
				continue
			}
			return Result{Text: strings.Join(rest, " "), Day: day.String()}
		}
		head := words[:n]
		lastHead := strings.TrimRight(head[n-1], ":,")
		if day, ok := phrase(append(head[:n-1:n-1], lastHead), today); ok && len(words) > n {
			return Result{Text: strings.Join(words[n:], " "), Day: day.String()}
		}
	}
	return Result{Text: whole}
}

func lower(s string) string { return strings.ToLower(s) }

func isWeekday(s string) bool {
	_, ok := weekdays[lower(s)]
	return ok
}

// phrase reads words as one whole day phrase.
func phrase(words []string, today date) (date, bool) {
	switch len(words) {
	case 1:
		w := lower(words[0])
		if n, ok := relative[w]; ok {
			return today.add(n), true
		}
		if wd, ok := weekdays[w]; ok {
			ahead := (int(wd) - int(today.weekday()) + 7) % 7
			if ahead == 0 {
				ahead = 7
			}
			return today.add(ahead), true
		}
		if t, err := time.Parse(time.DateOnly, w); err == nil {
			return date{t.Year(), t.Month(), t.Day()}, true
		}
	case 2, 3:
		day, month, ok := dayMonth(words[0], words[1])
		if !ok {
			return date{}, false
		}
		if len(words) == 3 {
			y, err := strconv.Atoi(words[2])
			if err != nil || len(words[2]) != 4 || !valid(y, month, day) {
				return date{}, false
			}
			return date{y, month, day}, true
		}
		for y := today.y; y <= today.y+4; y++ { // 29 Feb is at most four years off
			if d := (date{y, month, day}); valid(y, month, day) && !d.before(today) {
				return d, true
			}
		}
	}
	return date{}, false
}

// dayMonth reads "12 Dec", "3rd January" or "Dec 12".
func dayMonth(a, b string) (int, time.Month, bool) {
	if m, ok := months[lower(a)]; ok {
		a, b = b, a
		if d, ok := dayOfMonth(a); ok {
			return d, m, true
		}
		return 0, 0, false
	}
	m, ok := months[lower(b)]
	if !ok {
		return 0, 0, false
	}
	d, ok := dayOfMonth(a)
	return d, m, ok
}

func dayOfMonth(s string) (int, bool) {
	s = lower(s)
	for _, suffix := range []string{"st", "nd", "rd", "th"} {
		s = strings.TrimSuffix(s, suffix)
	}
	d, err := strconv.Atoi(s)
	if err != nil || d < 1 || d > 31 || len(s) > 2 {
		return 0, false
	}
	return d, true
}

// Label names day (YYYY-MM-DD) as Home shows it, seen from today: "Today",
// "Tomorrow", else the weekday and date, with the year when not today's.
// Text that is no date is returned as it is.
func Label(day, today string) string {
	d, err := time.Parse(time.DateOnly, day)
	if err != nil {
		return day
	}
	t, err := time.Parse(time.DateOnly, today)
	if err != nil {
		return day
	}
	switch {
	case day == today:
		return "Today"
	case day == t.AddDate(0, 0, 1).Format(time.DateOnly):
		return "Tomorrow"
	case d.Year() != t.Year():
		return d.Format("Mon 2 Jan 2006")
	}
	return d.Format("Mon 2 Jan")
}
