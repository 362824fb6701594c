package schedule

import (
	"errors"
	"fmt"
	"iter"
	"strings"
	"time"

	"github.com/robfig/cron/v3"

	"hearth/internal/instant"
)

// RuleSpec is a rule as a user or a definition file writes it.
type RuleSpec struct {
	At    string // a one-off: RFC 3339 instant with Z or an offset
	Cron  string // recurring: "minute hour day-of-month month day-of-week"
	EndAt string // optional, cron only: RFC 3339 instant with Z or an offset
}

// Rule is when a schedule is due: one instant, or a cron expression read as
// wall-clock times in its own zone until an optional end. Build it with
// ParseRule; the zero Rule is never due.
type Rule struct {
	loc   *time.Location
	at    time.Time
	cron  string // fields joined by one space, lower-cased
	spec  *cron.SpecSchedule
	times []hourMinute // the spec's (hour, minute) pairs in order
	endAt time.Time
}

type hourMinute struct{ h, m int }

// robfig marks "*" (and "?") in a field with its top bit; plain cron treats
// day-of-month and day-of-week as "both" when either is a star, else "either".
const cronStarBit = 1 << 63

// horizonDays bounds the search for a due instant: long enough for a
// 29 February rule across a non-leap century year (8 years), short enough to
// end quickly for a rule that can never be due again.
const horizonDays = 3700

// MaxNext bounds Next's count, so one request cannot ask for years of minutes.
const MaxNext = 100

// maxCronLen bounds a cron expression; real ones are far shorter.
const maxCronLen = 128

// cronParser reads exactly five fields. Descriptors (@daily, @every) and a
// TZ= prefix are refused: the zone is the rule's own field, and @every has
// no wall-clock meaning.
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow)

const cronExpected = `5 fields "minute hour day-of-month month day-of-week", like "30 2 * * *"`

// ParseRule checks a rule's syntax and binds it to loc. It does not compare
// with the clock: a stored one-off stays readable after its time has passed.
// Call CheckNew on creation.
func ParseRule(spec RuleSpec, loc *time.Location) (Rule, error) {
	if loc == nil {
		return Rule{}, invalid("zone", "missing", "an IANA zone", "")
	}
	switch {
	case spec.At != "" && spec.Cron != "":
		return Rule{}, invalid("at", "at and cron are exclusive", "exactly one of at or cron", "both")
	case spec.At == "" && spec.Cron == "":
		return Rule{}, invalid("at", "a rule needs at or cron", "exactly one of at or cron", "neither")
	case spec.At != "":
		if spec.EndAt != "" {
			return Rule{}, invalid("endAt", "a one-off never recurs, so it has no end", "endAt only with cron", quote(spec.EndAt))
		}
		at, err := ParseInstant("at", spec.At)
		if err != nil {
			return Rule{}, err
		}
		return Rule{loc: loc, at: at}, nil
	}
	r, err := parseCron(spec.Cron)
	if err != nil {
		return Rule{}, err
	}
	r.loc = loc
	if spec.EndAt != "" {
		if r.endAt, err = ParseInstant("endAt", spec.EndAt); err != nil {
			return Rule{}, err
		}
	}
	return r, nil
}

// ParseInstant reads a rule's instant (field names it in errors): RFC 3339
// with an offset, inside hearth's bound (package instant). A bare wall time
// means different instants in different zones, so Timing A refuses it; an
// instant past the bound once made a schedule whose due time no answer
// could encode. The CLI checks its flags with it too.
func ParseInstant(field, s string) (time.Time, error) {
	t, err := instant.Parse(s)
	if err == nil {
		return t, nil
	}
	if errors.Is(err, instant.ErrSyntax) {
		for _, layout := range []string{"2006-01-02T15:04:05.999999999", "2006-01-02T15:04", "2006-01-02 15:04:05.999999999", "2006-01-02 15:04", "2006-01-02"} {
			if _, err := time.Parse(layout, s); err == nil {
				return time.Time{}, invalid(field, "has no offset", instant.Expected, quote(s))
			}
		}
	}
	return time.Time{}, invalid(field, err.Error(), instant.Expected, quote(s))
}

func parseCron(expr string) (Rule, error) {
	fields := strings.Fields(expr)
	if len(expr) > maxCronLen {
		return Rule{}, invalid("cron", fmt.Sprintf("too long: %d bytes", len(expr)), fmt.Sprintf("at most %d bytes", maxCronLen), quote(expr))
	}
	if len(fields) != 5 {
		return Rule{}, invalid("cron", fmt.Sprintf("has %d fields", len(fields)), cronExpected, quote(expr))
	}
	for _, f := range fields {
		// Checked before robfig sees it: its parser panics on "TZ=x" without a space.
		if strings.Trim(f, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ*/,-?") != "" {
			return Rule{}, invalid("cron", "unexpected character", cronExpected+"; the zone is its own field", quote(expr))
		}
	}
	norm := strings.ToLower(strings.Join(fields, " "))
	sched, err := cronParser.Parse(norm)
	if err != nil {
		return Rule{}, invalid("cron", err.Error(), cronExpected, quote(expr))
	}
	spec, ok := sched.(*cron.SpecSchedule)
	if !ok {
		return Rule{}, invalid("cron", "not a field schedule", cronExpected, quote(expr))
	}
	r := Rule{cron: norm, spec: spec}
	for h := range 24 {
		for m := range 60 {
			if spec.Hour&(1<<h) != 0 && spec.Minute&(1<<m) != 0 {
				r.times = append(r.times, hourMinute{h, m})
			}
		}
	}
	if !r.matchable() {
		return Rule{}, invalid("cron", "names no day that exists", "a day of month that exists in one of its months", quote(expr))
	}
	return r, nil
}

// matchable refuses "0 0 31 2 *" and the like, which would search to the
// horizon on every call and never be due. Only "day of month AND any weekday"
// can be empty: a weekday occurs in every month.
func (r Rule) matchable() bool {
	s := r.spec
	if s.Dow&cronStarBit == 0 || s.Dom&cronStarBit != 0 {
		return true
	}
	longest := [13]int{0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}
	for mo := 1; mo <= 12; mo++ {
		for d := 1; d <= longest[mo] && s.Month&(1<<mo) != 0; d++ {
			if s.Dom&(1<<d) != 0 {
				return true
			}
		}
	}
	return false
}

// CheckNew applies Timing A's create-time checks: a one-off must be in the
// future, and a recurring rule must have an instant before its end.
func (r Rule) CheckNew(now time.Time) error {
	if r.loc == nil {
		return invalid("at", "empty rule", "exactly one of at or cron", "")
	}
	if r.OneOff() {
		if !r.at.After(now) {
			return invalid("at", "is not in the future", "an instant after "+now.UTC().Format(time.RFC3339), r.at.Format(time.RFC3339Nano))
		}
		return nil
	}
	if !r.endAt.IsZero() && !r.endAt.After(now) {
		return invalid("endAt", "is not in the future", "an instant after "+now.UTC().Format(time.RFC3339), r.endAt.Format(time.RFC3339Nano))
	}
	if next, _ := r.Next(now, 1); len(next) == 0 {
		return invalid("cron", "is never due before endAt", "a rule with an instant ahead", quote(r.cron))
	}
	return nil
}

// OneOff reports whether the rule is a single instant.
func (r Rule) OneOff() bool { return r.spec == nil }

// At is a one-off's instant (zero for cron).
func (r Rule) At() time.Time { return r.at }

// Cron is the normalised expression (empty for a one-off).
func (r Rule) Cron() string { return r.cron }

// EndAt is the recurring rule's end, zero when it has none.
func (r Rule) EndAt() time.Time { return r.endAt }

// Location is the zone the rule's wall times are read in.
func (r Rule) Location() *time.Location { return r.loc }

// Spec gives the rule back in its textual form, as a definition file writes it.
func (r Rule) Spec() RuleSpec {
	if r.OneOff() {
		if r.at.IsZero() {
			return RuleSpec{}
		}
		return RuleSpec{At: r.at.Format(time.RFC3339Nano)}
	}
	s := RuleSpec{Cron: r.cron}
	if !r.endAt.IsZero() {
		s.EndAt = r.endAt.Format(time.RFC3339Nano)
	}
	return s
}

// SkipReason says why a wall time or due instant was not admitted.
type SkipReason string

// The reasons a wall time or due instant was not admitted.
const (
	SkipNonexistent SkipReason = "nonexistent" // the wall time falls in a DST gap
	SkipSuperseded  SkipReason = "superseded"  // an older missed instant: catch-up runs only the latest
	SkipBusy        SkipReason = "busy"        // due while an earlier occurrence was outstanding
)

// Skip is a wall time (gap) or a due instant that will not run.
type Skip struct {
	DueAt    time.Time  `json:"dueAt,omitzero"`
	WallTime string     `json:"wallTime,omitempty"` // "2026-03-08T02:30", for a gap
	Reason   SkipReason `json:"reason"`
}

// Next returns up to count due instants strictly after from (at most
// MaxNext), in the rule's zone, and the wall times skipped on the way
// because they do not exist there. A one-off yields its instant if it is
// after from.
func (r Rule) Next(from time.Time, count int) ([]time.Time, []Skip) {
	due, skipped := []time.Time{}, []Skip{}
	count = min(count, MaxNext)
	if count <= 0 {
		return due, skipped
	}
	for c := range r.candidates(from) {
		if c.due.IsZero() {
			skipped = append(skipped, Skip{WallTime: c.wall, Reason: SkipNonexistent})
			continue
		}
		if due = append(due, c.due); len(due) == count {
			break
		}
	}
	return due, skipped
}

// NextDue is one entry of NextResult.Next.
type NextDue struct {
	DueAt time.Time `json:"dueAt"` // in the schedule's zone, so it prints with that offset
}

// NextResult is the answer of `hearth schedule next ID --json`.
type NextResult struct {
	ScheduleID string     `json:"scheduleId"`
	Zone       string     `json:"zone"`
	ZoneSource ZoneSource `json:"zoneSource"`
	Next       []NextDue  `json:"next"`
	Skipped    []Skip     `json:"skipped"`
}

// NextReport builds the `schedule next` answer. zoneSource comes from the
// ledger: the file stores the zone, not how it was chosen.
func NextReport(scheduleID string, r Rule, zoneSource ZoneSource, from time.Time, count int) NextResult {
	due, skipped := r.Next(from, count)
	res := NextResult{ScheduleID: scheduleID, ZoneSource: zoneSource, Next: make([]NextDue, len(due)), Skipped: skipped}
	if r.loc != nil {
		res.Zone = r.loc.String()
	}
	for i, t := range due {
		res.Next[i] = NextDue{DueAt: t}
	}
	return res
}

// candidate is a matching wall time: due is its instant, or zero when the
// wall time falls in a gap. pos orders candidates on the time line: due, or
// for a gap the instant the clock jumped over it.
type candidate struct {
	due  time.Time
	wall string
	pos  time.Time
}

// candidates yields, in time order, the rule's wall times whose position is
// after from, up to endAt (exclusive) or the search horizon. Wall times are
// enumerated from the schedule's fields and mapped to instants by
// resolveWall; robfig's own Next is not used because its DST handling is
// not Timing A's.
func (r Rule) candidates(from time.Time) iter.Seq[candidate] {
	return func(yield func(candidate) bool) {
		if r.loc == nil {
			return
		}
		if r.OneOff() {
			if !r.at.IsZero() && r.at.After(from) {
				yield(candidate{due: r.at.In(r.loc), pos: r.at})
			}
			return
		}
		y, mo, d := from.In(r.loc).Date()
		for i := range horizonDays {
			// Civil dates are stepped in UTC, where every day has 24 hours.
			day := time.Date(y, mo, d+i, 0, 0, 0, 0, time.UTC)
			if !r.dayMatches(day) {
				continue
			}
			for _, t := range r.times {
				c := resolveWall(day.Year(), day.Month(), day.Day(), t.h, t.m, r.loc)
				if !c.pos.After(from) {
					continue
				}
				if !r.endAt.IsZero() && !c.pos.Before(r.endAt) {
					return
				}
				if !yield(c) {
					return
				}
			}
		}
	}
}

func (r Rule) dayMatches(day time.Time) bool {
	s := r.spec
	if s.Month&(1<<uint(day.Month())) == 0 {
		return false
	}
	dom := s.Dom&(1<<uint(day.Day())) != 0
	dow := s.Dow&(1<<uint(day.Weekday())) != 0
	if s.Dom&cronStarBit != 0 || s.Dow&cronStarBit != 0 {
		return dom && dow
	}
	return dom || dow
}

// resolveWall maps a wall time in loc to its instant. The instants that
// could show this wall time are wall−offset for the offsets in force around
// it (before and after any nearby transition, and the one time.Date picked);
// those that really show it are kept. None: the wall time is in a gap.
// Two: it is in a fold, and Timing A runs it once, at the earlier one.
func resolveWall(y int, mo time.Month, d, h, m int, loc *time.Location) candidate {
	u := time.Date(y, mo, d, h, m, 0, 0, time.UTC)
	_, before := u.Add(-48 * time.Hour).In(loc).Zone()
	_, after := u.Add(48 * time.Hour).In(loc).Zone()
	_, picked := time.Date(y, mo, d, h, m, 0, 0, loc).Zone()
	var best time.Time
	for _, off := range [...]int{before, after, picked} {
		t := u.Add(-time.Duration(off) * time.Second).In(loc)
		ty, tmo, td := t.Date()
		if ty == y && tmo == mo && td == d && t.Hour() == h && t.Minute() == m && (best.IsZero() || t.Before(best)) {
			best = t
		}
	}
	if !best.IsZero() {
		return candidate{due: best, pos: best}
	}
	// Read with the earlier offset, the wall time lands just after the jump;
	// the zone period it lands in starts at the jump itself.
	jumped, _ := u.Add(-time.Duration(before) * time.Second).In(loc).ZoneBounds()
	if jumped.IsZero() {
		jumped = u.Add(-time.Duration(before) * time.Second)
	}
	return candidate{wall: u.Format("2006-01-02T15:04"), pos: jumped}
}
