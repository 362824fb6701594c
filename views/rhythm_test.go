package views

import (
	"context"
	"strings"
	"testing"
	"time"

	"hearth/models"
)

func renderRhythm(t *testing.T, r models.PersonRhythm) string {
	t.Helper()
	var b strings.Builder
	if err := personRhythm(r).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func TestPersonRhythmLine(t *testing.T) {
	day := 24 * time.Hour
	cases := []struct {
		name string
		r    models.PersonRhythm
		want string // "" for nothing rendered
	}{
		{"too few gaps", models.PersonRhythm{Conversations: 5, Gaps: 4, OwnerStarted: 3, Silence: 40 * day}, ""},
		{"steady, they start", models.PersonRhythm{Conversations: 6, Gaps: 5, Known: true, UsualGap: 9*day - time.Hour, P90Gap: 12 * day, OwnerStarted: 2, Silence: 3 * day},
			"Usually every 9 days · they usually start (4 of 6)"},
		{"steady, the owner starts", models.PersonRhythm{Conversations: 8, Gaps: 7, Known: true, UsualGap: 5 * day, P90Gap: 7 * day, OwnerStarted: 5, Silence: day},
			"Usually every 5 days · you usually start (5 of 8)"},
		{"turns", models.PersonRhythm{Conversations: 6, Gaps: 5, Known: true, UsualGap: 5 * day, P90Gap: 7 * day, OwnerStarted: 3},
			"Usually every 5 days · you take turns starting"},
		{"hours", models.PersonRhythm{Conversations: 6, Gaps: 5, Known: true, UsualGap: 20 * time.Hour, P90Gap: 30 * time.Hour, OwnerStarted: 1},
			"Usually every 20 hours · they usually start (5 of 6)"},
		{"drifting", models.PersonRhythm{Conversations: 6, Gaps: 5, Known: true, UsualGap: 9*day - time.Hour, P90Gap: 12*day - time.Hour, OwnerStarted: 2, Silence: 23*day - time.Hour, Drifting: true},
			"<strong data-testid=\"person-drifting\">Drifting:</strong> usually every 9 days, now 23 · they usually start (4 of 6)"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := renderRhythm(t, c.r)
			if c.want == "" {
				if strings.TrimSpace(got) != "" {
					t.Fatalf("rendered %q; want nothing", got)
				}
				return
			}
			if !strings.Contains(got, c.want) || !strings.Contains(got, `data-testid="person-rhythm"`) {
				t.Fatalf("rendered %q; want %q", got, c.want)
			}
			if !c.r.Drifting && strings.Contains(got, "Drifting") {
				t.Fatalf("a steady rhythm says drifting: %q", got)
			}
		})
	}
}
