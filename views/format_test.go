package views

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"hearth/models"
)

// instantFormatting is how a view would format an instant itself.
var instantFormatting = regexp.MustCompile(`\.(Format|In|UTC)\(`)

// TestTimesAreFormattedOnlyInFormatGo: every time a page shows goes through
// format.go's ownerTime, so none can slip into the server's zone or UTC.
func TestTimesAreFormattedOnlyInFormatGo(t *testing.T) {
	files, err := filepath.Glob("*.*")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f == "format.go" || strings.HasSuffix(f, "_templ.go") || strings.HasSuffix(f, "_test.go") ||
			!(strings.HasSuffix(f, ".go") || strings.HasSuffix(f, ".templ")) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if instantFormatting.MatchString(line) {
				t.Errorf("%s:%d formats a time itself: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
}

func TestOwnerTimeIsInTheOwnersZone(t *testing.T) {
	berlin, err := time.LoadLocation("Europe/Berlin")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 5, 30, 0, 0, time.UTC)
	day := models.DayOf(at, berlin)
	if got := when(at, day); got != "06:30" {
		t.Errorf("today: %q", got)
	}
	if got := when(at.Add(-48*time.Hour), day); got != "Sat 28 Nov 06:30" {
		t.Errorf("earlier: %q", got)
	}
	if got := ownerDate(at, day); got != "Mon 30 Nov" {
		t.Errorf("date: %q", got)
	}
	if got := zoneWords(day); got != "Berlin time (Europe/Berlin)" {
		t.Errorf("zone: %q", got)
	}
	// No zone known yet (no brief): UTC, and the page says so.
	if got, z := when(at, models.Day{}), zoneWords(models.Day{}); got != "Mon 30 Nov 2026 05:30" || z != "UTC" {
		t.Errorf("no zone: %q, %q", got, z)
	}
}

func TestCronWords(t *testing.T) {
	for expr, want := range map[string]string{
		"30 6 * * *":   "every day at 06:30",
		"0 8,20 * * *": "every day at 08:00 and 20:00",
		"0 18 * * 1-5": "Monday to Friday at 18:00",
		"0 9 * * 6,0":  "every Saturday and Sunday at 09:00",
		"0 9 * * 1":    "every Monday at 09:00",
		"0 9 1 * *":    "on day 1 of every month at 09:00",
		"*/5 * * * *":  "on a custom rule",
		"0 9 * 1 *":    "on a custom rule",
	} {
		if got := cronWords(expr); got != want {
			t.Errorf("%q: %q, want %q", expr, got, want)
		}
	}
}
