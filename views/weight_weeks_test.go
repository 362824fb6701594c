package views

import (
	"context"
	"strings"
	"testing"

	"hearth/internal/weight"
)

func renderSplit(t *testing.T, s weight.Split) string {
	t.Helper()
	var b strings.Builder
	if err := weightSplit(s, "kg").Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestWeightSplitSaysBothSidesWithTheirWeeksAndClaimsNoCause(t *testing.T) {
	got := renderSplit(t, weight.Split{Routine: weight.RoutineChoice{ID: "walk", Title: "Evening walk"},
		Kept: weight.WeekGroup{Weeks: 4, PerWeek: -0.43}, NotKept: weight.WeekGroup{Weeks: 3, PerWeek: 0.12}, Enough: true})
	for _, want := range []string{"In the 4 weeks you kept Evening walk", "−0.4 kg a week", "in the 3 other weeks", "+0.1 kg a week", "does not show that the routine made the difference"} {
		if !strings.Contains(got, want) {
			t.Errorf("the split does not say %q:\n%s", want, got)
		}
	}
	for _, cause := range []string{"because", "caused", "helps", "made you"} {
		if strings.Contains(got, cause) {
			t.Errorf("the split claims a cause (%q):\n%s", cause, got)
		}
	}
}

func TestWeightSplitBelowTheThresholdSaysTooFewWeeksAndNoRates(t *testing.T) {
	got := renderSplit(t, weight.Split{Routine: weight.RoutineChoice{ID: "walk", Title: "Evening walk"},
		Kept: weight.WeekGroup{Weeks: 4, PerWeek: -0.43}, NotKept: weight.WeekGroup{Weeks: 1, PerWeek: 0.12}})
	if !strings.Contains(got, "Too few weeks to tell: 4 weeks kept and 1 week not kept") || !strings.Contains(got, "each side needs 3") || strings.Contains(got, "a week") {
		t.Fatalf("below the threshold:\n%s", got)
	}
}
