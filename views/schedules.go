package views

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"hearth/internal/contract"
	"hearth/internal/schedule"
	"hearth/models"
)

// SchedulesData is the Schedules page's view-model.
type SchedulesData struct {
	Now      time.Time
	Revision int64
	List     models.ScheduleList
	// Day is the owner's day: due times are shown in its zone.
	Day models.Day
	// Refused is why an owner form of one schedule (ScheduleID) was
	// refused, shown in that schedule's row.
	Refused ScheduleRefusal
}

// ScheduleRefusal is a refused Approve again or Cancel of one schedule.
type ScheduleRefusal struct{ ScheduleID, Message string }

// refusedAt is the refusal's message when it is about schedule id.
func (r ScheduleRefusal) refusedAt(id string) string {
	if r.ScheduleID != id {
		return ""
	}
	return r.Message
}

// scheduleStateLabel names a schedule's state for the owner.
func scheduleStateLabel(v models.ScheduleView) string {
	switch schedule.Status(v.State) {
	case schedule.StatusActive:
		switch {
		case v.Unreadable != "":
			return "held: definition unreadable"
		case v.Hold == models.HoldQuarantined:
			return "held: file changed"
		case v.Hold == models.HoldApprovalRevoked:
			return "held: approval revoked"
		}
		return "active"
	case schedule.StatusRestorePending:
		return "restored: check it"
	}
	return v.State
}

// zoneSourceLabel says where a schedule's zone came from.
func zoneSourceLabel(source string) string {
	switch source {
	case "explicit":
		return "chosen"
	case "client":
		return "from the creator's TZ"
	}
	return "UTC: no zone given"
}

// ruleText is a schedule's rule as the owner reads it: "every day at
// 06:30 (Berlin)". A recurring rule is told in its own zone, the one it
// keeps across daylight saving; a one-off instant in the owner's.
func ruleText(v models.ScheduleView, day models.Day) string {
	if v.Unreadable != "" {
		return "Rule unknown: the approved definition cannot be read."
	}
	if v.At != "" {
		at, err := time.Parse(time.RFC3339, v.At)
		if err != nil {
			return "once"
		}
		return scheduleRuleWords(at, "", time.Time{}, v.Zone, day)
	}
	end, _ := time.Parse(time.RFC3339, v.EndAt) // zero when there is none
	return scheduleRuleWords(time.Time{}, v.Cron, end, v.Zone, day)
}

// scheduleRuleWords is a schedule rule in words: a one-off instant (at) in
// the owner's zone, else the cron expression in its own zone, until end.
func scheduleRuleWords(at time.Time, cron string, end time.Time, zone string, day models.Day) string {
	if !at.IsZero() {
		return "once, " + when(at, day)
	}
	s := cronWords(cron) + " (" + zoneCity(zone) + ")"
	if !end.IsZero() {
		s += ", until " + ownerDate(end, day)
	}
	return s
}

// changeLine is one change of a held schedule's file as the owner reads
// it: what changed, how it read when approved, and how the file reads now.
type changeLine struct{ What, Was, Now string }

// changeWords words a change with the row's own rule words; the raw field
// and values stay in the operator's details.
func changeWords(ch schedule.Change, day models.Day) changeLine {
	switch ch.Field {
	case "job":
		return changeLine{"Job", ch.From.Job, ch.To.Job}
	case "timing":
		return changeLine{"Timing", definitionRule(ch.From, day), definitionRule(ch.To, day)}
	case "zone":
		return changeLine{"Time zone", zoneCity(ch.From.Rule.Location().String()), zoneCity(ch.To.Rule.Location().String())}
	case "limits":
		return changeLine{"Limits", limitsWords(ch.From.Limits), limitsWords(ch.To.Limits)}
	case "notifyOnSuccess":
		return changeLine{"Tell me when it succeeds", yesNo(ch.From.NotifyOnSuccess), yesNo(ch.To.NotifyOnSuccess)}
	case "prompt":
		return changeLine{"Prompt", ch.Approved, ch.File}
	}
	// A field this page does not know yet reads as the API gives it.
	return changeLine{ch.Field, ch.Approved, ch.File}
}

// definitionRule is a definition's rule in words, as ruleText tells a row's.
func definitionRule(d schedule.Definition, day models.Day) string {
	r := d.Rule
	return scheduleRuleWords(r.At(), r.Cron(), r.EndAt(), r.Location().String(), day)
}

// limitsWords reads a definition's limits: "at most 2 tries, 5 minutes each".
func limitsWords(l schedule.Limits) string {
	tries := "tries"
	if l.MaxInvocations == 1 {
		tries = "try"
	}
	return fmt.Sprintf("at most %d %s, %s each", l.MaxInvocations, tries, durationWords(l.Deadline))
}

// durationWords is a deadline in minutes when whole, else in seconds.
func durationWords(d time.Duration) string {
	n, unit := int64(d/time.Second), "second"
	if d%time.Minute == 0 {
		n, unit = int64(d/time.Minute), "minute"
	}
	if n != 1 {
		unit += "s"
	}
	return fmt.Sprintf("%d %s", n, unit)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

var weekdayNames = []string{"Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"}

// cronWords reads the common cron forms (fixed times on every day, some
// weekdays, or one day of the month) in words; any other is "on a custom
// rule", with the expression in the operator's details.
func cronWords(expr string) string {
	f := strings.Fields(expr)
	const custom = "on a custom rule"
	if len(f) != 5 || f[3] != "*" {
		return custom
	}
	times, ok := cronTimes(f[0], f[1])
	if !ok {
		return custom
	}
	switch {
	case f[2] == "*" && (f[4] == "*" || f[4] == "?"):
		return "every day at " + times
	case f[2] == "*":
		days, ok := cronWeekdays(f[4])
		if !ok {
			return custom
		}
		return days + " at " + times
	case f[4] == "*" || f[4] == "?":
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 1 || n > 31 {
			return custom
		}
		return fmt.Sprintf("on day %d of every month at %s", n, times)
	}
	return custom
}

// cronTimes lists a rule's times of day, "06:30" or "08:00 and 20:00", from
// plain numbers and comma lists.
func cronTimes(minutes, hours string) (string, bool) {
	ms, ok1 := cronNumbers(minutes, 0, 59)
	hs, ok2 := cronNumbers(hours, 0, 23)
	if !ok1 || !ok2 || len(ms)*len(hs) > 6 {
		return "", false
	}
	var out []string
	for _, h := range hs {
		for _, m := range ms {
			out = append(out, fmt.Sprintf("%02d:%02d", h, m))
		}
	}
	return joinWords(out), true
}

// cronWeekdays names a day-of-week field: "Monday to Friday", "every Saturday and Sunday".
func cronWeekdays(field string) (string, bool) {
	if lo, hi, ok := strings.Cut(field, "-"); ok && !strings.Contains(field, ",") {
		a, err1 := strconv.Atoi(lo)
		b, err2 := strconv.Atoi(hi)
		if err1 != nil || err2 != nil || a < 0 || b > 7 || a >= b {
			return "", false
		}
		return weekdayNames[a%7] + " to " + weekdayNames[b%7], true
	}
	ds, ok := cronNumbers(field, 0, 7)
	if !ok {
		return "", false
	}
	names := make([]string, len(ds))
	for i, d := range ds {
		names[i] = weekdayNames[d%7]
	}
	return "every " + joinWords(names), true
}

// cronNumbers reads a plain number or a comma list of them within [lo, hi].
func cronNumbers(field string, lo, hi int) ([]int, bool) {
	var out []int
	for _, p := range strings.Split(field, ",") {
		n, err := strconv.Atoi(p)
		if err != nil || n < lo || n > hi {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// joinWords is "a", "a and b", "a, b and c".
func joinWords(items []string) string {
	if len(items) <= 1 {
		return strings.Join(items, "")
	}
	return strings.Join(items[:len(items)-1], ", ") + " and " + items[len(items)-1]
}

// fileProblem explains a failed file check in a sentence.
func fileProblem(f *models.FileCheck) string {
	if f == nil || f.OK() {
		return ""
	}
	switch f.Status {
	case "changed":
		return "The definition file was edited, replaced or restored since it was approved."
	case "symlink":
		return "The definition file is a symbolic link; hearth never follows one. Replace it with a regular file to approve it."
	case "missing":
		return "The definition file is missing."
	case "escape":
		return "The definition file's path leaves the schedules directory."
	case "not_regular":
		return "The definition file is not a regular file."
	case "invalid":
		return "The definition file is not a valid definition."
	}
	return "The definition file cannot be read."
}

// quarantineWords are a recorded quarantine's reasons in words; the raw
// reason and detail (a validator's message, a file mode) are in Details.
var quarantineWords = map[string]string{
	string(schedule.QuarantineChanged):    "the definition file was edited, replaced or restored since it was approved",
	string(schedule.QuarantineSymlink):    "the definition file was a symbolic link",
	string(schedule.QuarantineEscape):     "the definition file's path left the schedules directory",
	string(schedule.QuarantineNotRegular): "the definition file was not a regular file",
	string(schedule.QuarantineMissing):    "the definition file was missing",
	string(schedule.QuarantineInvalid):    "the definition file was not a valid definition",
	string(schedule.QuarantineUnapproved): "no approved version of it was recorded",
}

// stateReason says why a schedule is in its state, for the owner. Other
// reasons' details are already sentences (cancelled by whom, an add that
// could not be completed) and read as recorded.
func stateReason(v models.ScheduleView) string {
	switch {
	case schedule.Status(v.State) == schedule.StatusQuarantined && quarantineWords[v.StateReason] != "":
		return quarantineWords[v.StateReason]
	case schedule.Status(v.State) == schedule.StatusRestorePending:
		// The detail names the backup's time in UTC; Details keeps it.
		return "restored from a backup; check it and approve it again"
	case schedule.Status(v.State) == schedule.StatusExpired:
		return "no instant is left to run"
	}
	return v.StateDetail
}

// needsReview says whether the page offers Approve again.
func needsReview(v models.ScheduleView) bool {
	switch schedule.Status(v.State) {
	case schedule.StatusQuarantined, schedule.StatusRestorePending:
		return true
	case schedule.StatusActive:
		return v.Hold != ""
	}
	return false
}

// dueText shows a due instant in the owner's zone.
func dueText(t *time.Time, day models.Day) string {
	if t == nil {
		return "none"
	}
	return when(*t, day)
}

// approvable reports whether the row offers Approve again (the schedule is
// held for review and its file can be approved).
func approvable(v models.ScheduleView) bool {
	return needsReview(v) && v.File != nil && v.File.Approvable()
}

// capital starts words with a capital letter, for a job's words at the
// head of a row ("The daily brief").
func capital(words string) string {
	if words == "" {
		return words
	}
	return strings.ToUpper(words[:1]) + words[1:]
}

// triggerWordsOf says what started a run.
func triggerWordsOf(trigger string) string {
	switch trigger {
	case contract.TriggerSchedule:
		return "on schedule"
	case contract.TriggerManual:
		return "started by hand"
	case contract.TriggerWatch:
		return "for new messages"
	}
	return outside(trigger)
}
