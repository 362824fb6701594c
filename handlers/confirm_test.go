package handlers_test

import (
	"testing"

	"github.com/PuerkitoBio/goquery"

	"hearth/models"
)

// assertAsksOnce checks that the submit of a destructive form sits inside a
// closed <details> whose summary (the first tap) is no submit: the form is
// only posted by a second, explicit tap, with or without JavaScript.
func assertAsksOnce(t *testing.T, d *goquery.Document, first, confirm string) {
	t.Helper()
	summary := has(t, d, `details.confirm > summary[data-testid="`+first+`"]`)
	det := summary.Parent()
	if _, open := det.Attr("open"); open {
		t.Errorf("%s: the confirm step is open before the first tap", first)
	}
	if summary.Find("button, input").Length() != 0 {
		t.Errorf("%s: the first tap is itself a submit", first)
	}
	if det.Find(`form button[type="submit"][data-testid="`+confirm+`"]`).Length() != 1 {
		t.Errorf("%s: no confirming submit inside the step", first)
	}
}

func TestCancelScheduleAsksOnce(t *testing.T) {
	ta := newTestApp(t, withOwner())
	cookie := ta.login()
	ta.mustCreateSchedule(ta.agentToken(models.ScopeSchedulesAdmin), "k", "c")
	assertAsksOnce(t, schedulePage(t, ta, cookie).doc(t), "cancel-schedule", "cancel-schedule-confirm")
}

func TestEndTrialAsksOnce(t *testing.T) {
	ta, cookie := routineApp(t)
	ta.try("morning", 1, 7, cookie)
	assertAsksOnce(t, ta.routinesPage(cookie), "end-trial", "end-trial-confirm")
}
