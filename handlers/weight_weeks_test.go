package handlers_test

import (
	"encoding/csv"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestWeightPageListsEachEndedWeeksMeanAndTrendChange(t *testing.T) {
	ta, cookie := homeApp(t)
	file := weightCSV(40)
	if resp := ta.seeOther(t, ta.ownerRequest(http.MethodPost, "/weight/import", url.Values{"csv": {file}, "confirm": {"1"}}, false, cookie), cookie); resp.status != http.StatusOK {
		t.Fatalf("import: %s", resp)
	}
	// The file's days by week (Monday), before the week of testDate.
	today, _ := time.Parse(time.DateOnly, testDate)
	monday := func(d time.Time) time.Time { return d.AddDate(0, 0, -(int(d.Weekday())+6)%7) }
	sums, counts := map[time.Time]float64{}, map[time.Time]int{}
	rows, _ := csv.NewReader(strings.NewReader(file)).ReadAll()
	for _, r := range rows[1:] {
		d, _ := time.Parse(time.DateOnly, r[0])
		v, _ := strconv.ParseFloat(r[1], 64)
		if w := monday(d); w.Before(monday(today)) {
			sums[w] += v
			counts[w]++
		}
	}
	d := ta.get("/weight", "", cookie).doc(t)
	weeks := d.Find(`[data-testid="weight-weeks"] [data-testid="weight-week"]`)
	if weeks.Length() != len(counts) {
		t.Fatalf("%d weeks listed, want the file's %d ended weeks", weeks.Length(), len(counts))
	}
	newest := monday(today).AddDate(0, 0, -7)
	mean := math.Round(sums[newest]/float64(counts[newest])*10) / 10
	cells := weeks.First().Find("td")
	if got := cells.Eq(1).Text(); !strings.HasPrefix(got, fmt.Sprintf("%.1f kg", mean)) || !strings.Contains(got, fmt.Sprintf("(%d)", counts[newest])) {
		t.Fatalf("newest week's mean %q, want %.1f kg over %d weigh-ins", got, mean, counts[newest])
	}
	if got := cells.Eq(2).Text(); !strings.Contains(got, "−") {
		t.Fatalf("newest week's trend change %q, want a loss", got)
	}
	if got := weeks.Last().Find("td").Eq(2).Text(); !strings.Contains(got, "trend starts") {
		t.Fatalf("the first week's change %q: the trend had not started before it", got)
	}
	// No routine was ever tried: nothing to compare weeks by.
	if d.Find(`select#routine`).Length() != 0 || d.Find(`[data-testid="weight-split"]`).Length() != 0 {
		t.Fatal("the page offers to compare weeks by a routine when there is none")
	}
}
