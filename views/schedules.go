package views

import (
	"time"

	"hearth/models"
	"hearth/models/schedules"
)

// SchedulesData is the Schedules page's view-model.
type SchedulesData struct {
	Now      time.Time
	Revision int64
	List     models.ScheduleList
}

// scheduleStateLabel names a schedule's state for the owner.
func scheduleStateLabel(v models.ScheduleView) string {
	switch schedules.Status(v.State) {
	case schedules.StatusActive:
		switch {
		case v.Unreadable != "":
			return "held: definition unreadable"
		case v.Hold == models.HoldQuarantined:
			return "held: file changed"
		case v.Hold == models.HoldApprovalRevoked:
			return "held: approval revoked"
		}
		return "active"
	case schedules.StatusRestorePending:
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

// ruleText is a schedule's rule as the owner reads it.
func ruleText(v models.ScheduleView) string {
	if v.Unreadable != "" {
		return "Rule unknown: the approved definition cannot be read."
	}
	if v.At != "" {
		return "once, at " + v.At
	}
	s := "cron " + v.Cron
	if v.EndAt != "" {
		s += ", until " + v.EndAt
	}
	return s
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
		return "The definition file is not a valid definition: " + f.Detail
	}
	return "The definition file cannot be read: " + f.Detail
}

// needsReview says whether the page offers Approve again.
func needsReview(v models.ScheduleView) bool {
	switch schedules.Status(v.State) {
	case schedules.StatusQuarantined, schedules.StatusRestorePending:
		return true
	case schedules.StatusActive:
		return v.Hold != ""
	}
	return false
}

// dueText shows an instant in the schedule's zone (the API already gives it
// with the zone's offset).
func dueText(t *time.Time) string {
	if t == nil {
		return "none"
	}
	return t.Format("Mon 2 Jan 2006 15:04 MST")
}
