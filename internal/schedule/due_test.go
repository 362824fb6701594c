package schedule

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// skipStrings renders skips as "reason@instant" or "reason@wall" for comparison.
func skipStrings(skips []Skip) []string {
	out := []string{}
	for _, s := range skips {
		if s.DueAt.IsZero() {
			out = append(out, string(s.Reason)+"@"+s.WallTime)
		} else {
			out = append(out, string(s.Reason)+"@"+s.DueAt.Format(time.RFC3339))
		}
	}
	return out
}

func fmtTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.Format(time.RFC3339)
}

func fmtOcc(o *Occurrence) string {
	if o == nil {
		return ""
	}
	return fmtTime(o.DueAt)
}

func TestEvaluate(t *testing.T) {
	oneOff := RuleSpec{At: "2026-06-01T09:00:00Z"}
	hourly := RuleSpec{Cron: "0 * * * *"}
	daily9 := RuleSpec{Cron: "0 9 * * *"}
	created := "2026-05-01T00:00:00Z"
	tests := []struct {
		name        string
		spec        RuleSpec
		zone        string
		state       State
		now         string
		wantAdmit   string
		wantExpire  string
		wantHold    Hold
		wantSkipped []string
		wantStale   string
		wantNext    string
		wantEnded   bool
	}{
		{name: "one-off before its time is not due", spec: oneOff, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created)}, now: "2026-06-01T08:59:59Z",
			wantHold: HoldNotDue, wantNext: "2026-06-01T09:00:00Z"},
		{name: "one-off is due at its time", spec: oneOff, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created)}, now: "2026-06-01T09:00:00Z",
			wantAdmit: "2026-06-01T09:00:00Z", wantEnded: true},
		{name: "one-off while outstanding is held, and has nothing after", spec: oneOff, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-06-01T09:00:00Z"), Outstanding: true}, now: "2026-06-01T09:05:00Z",
			wantHold: HoldOutstanding, wantEnded: true},
		{name: "one-off never recurs", spec: oneOff, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-06-01T09:00:00Z"), LastFinishedAt: ts(t, "2026-06-01T09:04:00Z")}, now: "2027-06-01T09:00:00Z",
			wantHold: HoldNotDue, wantEnded: true},
		{name: "one-off missed by under 24 h is caught up", spec: oneOff, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created)}, now: "2026-06-02T08:59:00Z",
			wantAdmit: "2026-06-01T09:00:00Z", wantEnded: true},
		{name: "one-off missed by 24 h is stale", spec: oneOff, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created)}, now: "2026-06-02T09:00:00Z",
			wantHold: HoldNotDue, wantStale: "2026-06-01T09:00:00Z", wantEnded: true},
		{name: "catch-up runs only the latest missed instant", spec: hourly, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-06-01T03:00:00Z"), LastFinishedAt: ts(t, "2026-06-01T03:10:00Z")}, now: "2026-06-01T08:30:00Z",
			wantAdmit: "2026-06-01T08:00:00Z", wantNext: "2026-06-01T09:00:00Z",
			wantSkipped: []string{"superseded@2026-06-01T04:00:00Z", "superseded@2026-06-01T05:00:00Z", "superseded@2026-06-01T06:00:00Z", "superseded@2026-06-01T07:00:00Z"}},
		{name: "after days down, one catch-up within 24 h, older ones stale", spec: daily9, zone: "Europe/Berlin",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-05-28T09:00:00+02:00"), LastFinishedAt: ts(t, "2026-05-28T09:05:00+02:00")}, now: "2026-06-01T08:00:00+02:00",
			wantAdmit: "2026-05-31T09:00:00+02:00", wantStale: "2026-05-29T09:00:00+02:00", wantNext: "2026-06-01T09:00:00+02:00"},
		{name: "an instant exactly 24 h old is stale; the one due now runs", spec: daily9, zone: "Europe/Berlin",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-05-28T09:00:00+02:00"), LastFinishedAt: ts(t, "2026-05-28T09:05:00+02:00")}, now: "2026-06-01T09:00:00+02:00",
			wantAdmit: "2026-06-01T09:00:00+02:00", wantStale: "2026-05-29T09:00:00+02:00", wantNext: "2026-06-02T09:00:00+02:00"},
		{name: "outstanding occurrence blocks later instants: they are busy", spec: hourly, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-06-01T08:00:00Z"), Outstanding: true}, now: "2026-06-01T10:30:00Z",
			wantHold: HoldOutstanding, wantNext: "2026-06-01T11:00:00Z",
			wantSkipped: []string{"busy@2026-06-01T09:00:00Z", "busy@2026-06-01T10:00:00Z"}},
		{name: "instants due before the last occurrence finished stay busy", spec: hourly, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-06-01T08:00:00Z"), LastFinishedAt: ts(t, "2026-06-01T09:30:00Z")}, now: "2026-06-01T09:45:00Z",
			wantHold: HoldNotDue, wantNext: "2026-06-01T10:00:00Z", wantSkipped: []string{"busy@2026-06-01T09:00:00Z"}},
		{name: "outstanding occurrence expires 24 h after its due time; the instant due then runs", spec: daily9, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-05-31T09:00:00Z"), Outstanding: true}, now: "2026-06-01T09:00:30Z",
			wantAdmit: "2026-06-01T09:00:00Z", wantExpire: "2026-05-31T09:00:00Z", wantNext: "2026-06-02T09:00:00Z"},
		{name: "outstanding occurrence a second before expiry is still held", spec: daily9, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-05-31T09:00:00Z"), Outstanding: true}, now: "2026-06-01T08:59:59Z",
			wantHold: HoldOutstanding, wantNext: "2026-06-01T09:00:00Z"},
		{name: "an expired occurrence with a running attempt stops admission for investigation", spec: daily9, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-05-31T09:00:00Z"), Outstanding: true, Running: true}, now: "2026-06-01T09:00:30Z",
			wantExpire: "2026-05-31T09:00:00Z", wantHold: HoldInvestigate, wantNext: "2026-06-02T09:00:00Z",
			wantSkipped: []string{"busy@2026-06-01T09:00:00Z"}},
		{name: "cancelled schedule admits nothing", spec: hourly, zone: "UTC",
			state: State{Status: StatusCancelled, Since: ts(t, created), LastDueAt: ts(t, "2026-06-01T08:00:00Z"), LastFinishedAt: ts(t, "2026-06-01T08:01:00Z")}, now: "2026-06-01T10:30:00Z",
			wantHold: HoldInactive},
		{name: "quarantined schedule admits nothing", spec: hourly, zone: "UTC",
			state: State{Status: StatusQuarantined, Since: ts(t, created)}, now: "2026-06-01T10:30:00Z",
			wantHold: HoldInactive},
		{name: "a new schedule does not backfill before it existed", spec: daily9, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, "2026-06-01T09:30:00Z")}, now: "2026-06-01T10:00:00Z",
			wantHold: HoldNotDue, wantNext: "2026-06-02T09:00:00Z"},
		{name: "endAt stops recurrence", spec: RuleSpec{Cron: "0 * * * *", EndAt: "2026-06-01T06:00:00Z"}, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-06-01T05:00:00Z"), LastFinishedAt: ts(t, "2026-06-01T05:05:00Z")}, now: "2026-06-01T07:30:00Z",
			wantHold: HoldNotDue, wantEnded: true},
		{name: "the last instant before endAt still runs", spec: RuleSpec{Cron: "0 * * * *", EndAt: "2026-06-01T06:00:00Z"}, zone: "UTC",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-06-01T04:00:00Z"), LastFinishedAt: ts(t, "2026-06-01T04:05:00Z")}, now: "2026-06-01T05:00:00Z",
			wantAdmit: "2026-06-01T05:00:00Z", wantEnded: true},
		{name: "a gap in the window is reported, nothing runs for it", spec: RuleSpec{Cron: "30 2 * * *"}, zone: "America/New_York",
			state: State{Status: StatusActive, Since: ts(t, "2026-03-01T00:00:00Z"), LastDueAt: ts(t, "2026-03-07T02:30:00-05:00"), LastFinishedAt: ts(t, "2026-03-07T02:35:00-05:00")}, now: "2026-03-08T03:10:00-04:00",
			wantHold: HoldNotDue, wantNext: "2026-03-09T02:30:00-04:00", wantSkipped: []string{"nonexistent@2026-03-08T02:30"}},
		{name: "the fold's earlier instant is admitted", spec: RuleSpec{Cron: "30 1 * * *"}, zone: "America/New_York",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-10-31T01:30:00-04:00"), LastFinishedAt: ts(t, "2026-10-31T01:35:00-04:00")}, now: "2026-11-01T05:31:00Z",
			wantAdmit: "2026-11-01T01:30:00-04:00", wantNext: "2026-11-02T01:30:00-05:00"},
		{name: "the fold's repeat is not due again", spec: RuleSpec{Cron: "30 1 * * *"}, zone: "America/New_York",
			state: State{Status: StatusActive, Since: ts(t, created), LastDueAt: ts(t, "2026-11-01T05:30:00Z"), LastFinishedAt: ts(t, "2026-11-01T05:40:00Z")}, now: "2026-11-01T06:45:00Z",
			wantHold: HoldNotDue, wantNext: "2026-11-02T01:30:00-05:00"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := Evaluate("s1", mustRule(t, tt.spec, tt.zone), tt.state, ts(t, tt.now))
			if got := fmtOcc(d.Admit); !sameInstant(t, got, tt.wantAdmit) {
				t.Errorf("Admit = %q, want %q", got, tt.wantAdmit)
			}
			if got := fmtOcc(d.Expire); !sameInstant(t, got, tt.wantExpire) {
				t.Errorf("Expire = %q, want %q", got, tt.wantExpire)
			}
			if d.Hold != tt.wantHold {
				t.Errorf("Hold = %q, want %q", d.Hold, tt.wantHold)
			}
			want := tt.wantSkipped
			if want == nil {
				want = []string{}
			}
			if got := skipStrings(d.Skipped); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("Skipped = %v\nwant      %v", got, want)
			}
			if got := fmtTime(d.StaleSince); !sameInstant(t, got, tt.wantStale) {
				t.Errorf("StaleSince = %q, want %q", got, tt.wantStale)
			}
			if got := fmtTime(d.NextDueAt); !sameInstant(t, got, tt.wantNext) {
				t.Errorf("NextDueAt = %q, want %q", got, tt.wantNext)
			}
			if d.Ended != tt.wantEnded && tt.wantHold != HoldInactive {
				t.Errorf("Ended = %v, want %v", d.Ended, tt.wantEnded)
			}
		})
	}
}

// sameInstant compares two RFC 3339 strings as instants and, when the want
// carries an offset other than Z, also as written: the zone shown matters.
func sameInstant(t *testing.T, got, want string) bool {
	t.Helper()
	if got == "" || want == "" {
		return got == want
	}
	if !ts(t, got).Equal(ts(t, want)) {
		return false
	}
	return strings.HasSuffix(want, "Z") || got == want
}

func TestEvaluateBoundsSkips(t *testing.T) {
	r := mustRule(t, RuleSpec{Cron: "* * * * *"}, "UTC")
	now := ts(t, "2026-06-01T12:00:00Z")
	st := State{Status: StatusActive, Since: ts(t, "2026-05-01T00:00:00Z"), LastDueAt: now.Add(-3 * time.Hour), LastFinishedAt: now.Add(-3*time.Hour + time.Second)}
	d := Evaluate("s1", r, st, now)
	if d.Admit == nil || !d.Admit.DueAt.Equal(now) {
		t.Fatalf("Admit = %v, want %v", d.Admit, now)
	}
	if len(d.Skipped) != MaxSkips || d.SkippedOmitted != 179-MaxSkips {
		t.Errorf("Skipped %d, omitted %d; want %d and %d", len(d.Skipped), d.SkippedOmitted, MaxSkips, 179-MaxSkips)
	}
	if last := d.Skipped[len(d.Skipped)-1]; !last.DueAt.Equal(now.Add(-time.Minute)) || last.Reason != SkipSuperseded {
		t.Errorf("newest skip = %+v, want superseded %v", last, now.Add(-time.Minute))
	}
}

func TestOccurrenceIdentity(t *testing.T) {
	o := Occurrence{ScheduleID: "night-check", DueAt: ts(t, "2026-11-01T01:30:00-04:00")}
	if o.ID() != "night-check/2026-11-01T05:30:00Z" {
		t.Errorf("ID() = %q", o.ID())
	}
	if !o.ExpiresAt().Equal(ts(t, "2026-11-02T05:30:00Z")) {
		t.Errorf("ExpiresAt() = %v", o.ExpiresAt())
	}
}

// fakeLedger applies decisions the way the ledger slice is meant to, so a
// test can drive a schedule through many ticks of a fake clock.
type fakeLedger struct {
	st       State
	admitted []time.Time
	expired  []time.Time
}

func (l *fakeLedger) tick(t *testing.T, r Rule, now time.Time) Decision {
	t.Helper()
	d := Evaluate("s1", r, l.st, now)
	if d.Expire != nil {
		l.expired = append(l.expired, d.Expire.DueAt)
		if !l.st.Running {
			l.st.Outstanding, l.st.LastFinishedAt = false, d.Expire.ExpiresAt()
		}
	}
	if d.Admit != nil {
		if l.st.Outstanding {
			t.Fatalf("%v: admitted %v while %v is outstanding", now, d.Admit.DueAt, l.st.LastDueAt)
		}
		if d.Admit.DueAt.After(now) {
			t.Fatalf("%v: admitted %v before its time", now, d.Admit.DueAt)
		}
		l.admitted = append(l.admitted, d.Admit.DueAt)
		l.st.LastDueAt, l.st.Outstanding = d.Admit.DueAt, true
	}
	return d
}

func (l *fakeLedger) finish(now time.Time) {
	l.st.Outstanding, l.st.Running, l.st.LastFinishedAt = false, false, now
}

func TestOneOffIsAdmittedOnceAndNeverAgain(t *testing.T) {
	at := ts(t, "2026-06-01T09:00:00Z")
	r := mustRule(t, RuleSpec{At: "2026-06-01T09:00:00Z"}, "UTC")
	l := &fakeLedger{st: State{Status: StatusActive, Since: at.Add(-48 * time.Hour)}}
	for now := at.Add(-2 * time.Hour); now.Before(at.Add(30 * 24 * time.Hour)); now = now.Add(7 * time.Minute) {
		d := l.tick(t, r, now)
		if now.Before(at) && d.Hold != HoldNotDue {
			t.Fatalf("%v: before its time Hold = %q", now, d.Hold)
		}
		if l.st.Outstanding && now.Sub(l.st.LastDueAt) >= 20*time.Minute {
			l.finish(now)
		}
	}
	if len(l.admitted) != 1 || !l.admitted[0].Equal(at) {
		t.Errorf("admitted %v, want exactly [%v]", l.admitted, at)
	}
}

func TestOccurrencesNeverOverlap(t *testing.T) {
	// Hourly, each occurrence takes 90 minutes: the instant due while one
	// runs is skipped as busy, not queued behind it.
	r := mustRule(t, RuleSpec{Cron: "0 * * * *"}, "UTC")
	start := ts(t, "2026-06-01T00:00:00Z")
	l := &fakeLedger{st: State{Status: StatusActive, Since: start.Add(-time.Minute)}}
	for now := start; now.Before(start.Add(12 * time.Hour)); now = now.Add(5 * time.Minute) {
		if l.st.Outstanding && now.Sub(l.st.LastDueAt) >= 90*time.Minute {
			l.finish(now)
		}
		l.tick(t, r, now)
	}
	var got []string
	for _, a := range l.admitted {
		got = append(got, a.Format("15:04"))
	}
	if want := "00:00 02:00 04:00 06:00 08:00 10:00"; strings.Join(got, " ") != want {
		t.Errorf("admitted %v, want %s", got, want)
	}
}

func TestDowntimeGivesOneCatchUp(t *testing.T) {
	r := mustRule(t, RuleSpec{Cron: "0 9 * * *"}, "Asia/Tokyo")
	start := ts(t, "2026-06-01T08:00:00+09:00")
	l := &fakeLedger{st: State{Status: StatusActive, Since: start}}
	var log []string
	for now := start; now.Before(start.Add(10 * 24 * time.Hour)); now = now.Add(30 * time.Minute) {
		down := now.After(start.Add(30*time.Hour)) && now.Before(start.Add(5*24*time.Hour+3*time.Hour))
		if down {
			continue // hearth is off: nothing evaluates
		}
		d := l.tick(t, r, now)
		if d.Admit != nil {
			log = append(log, fmt.Sprintf("%s at %s", d.Admit.DueAt.Format("01-02 15:04"), now.In(r.Location()).Format("01-02 15:04")))
			l.finish(now.Add(time.Minute))
		}
	}
	// Up on 06-01 and 06-02, down until 06-06 11:00: 06-03..06-05 are lost
	// except 06-06 09:00, caught up once at 11:00; then daily again.
	want := "06-01 09:00 at 06-01 09:00, 06-02 09:00 at 06-02 09:00, 06-06 09:00 at 06-06 11:00, 06-07 09:00 at 06-07 09:00, " +
		"06-08 09:00 at 06-08 09:00, 06-09 09:00 at 06-09 09:00, 06-10 09:00 at 06-10 09:00"
	if got := strings.Join(log, ", "); got != want {
		t.Errorf("admissions:\n got %s\nwant %s", got, want)
	}
}

func TestExpiredOutstandingFreesTheSlot(t *testing.T) {
	// An occurrence waiting on the owner for more than a day expires; the
	// schedule then goes on, with no overlap and no pile-up.
	r := mustRule(t, RuleSpec{Cron: "0 9 * * *"}, "Europe/Berlin")
	start := ts(t, "2026-06-01T08:00:00+02:00")
	l := &fakeLedger{st: State{Status: StatusActive, Since: start}}
	for now := start; now.Before(start.Add(3 * 24 * time.Hour)); now = now.Add(15 * time.Minute) {
		l.tick(t, r, now) // never finished: every occurrence waits until it expires
	}
	var got []string
	for _, a := range l.admitted {
		got = append(got, a.Format("01-02"))
	}
	if strings.Join(got, " ") != "06-01 06-02 06-03" || len(l.expired) != 2 {
		t.Errorf("admitted %v, expired %v; want 06-01 06-02 06-03 and two expiries", got, l.expired)
	}
}
