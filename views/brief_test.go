package views

import (
	"testing"

	"hearth/models"
)

func TestBriefPartsMarkEachSettledTitleOnceInTextOrder(t *testing.T) {
	settled := []models.BriefMention{
		{ID: "b", Title: "Book the bike service", State: models.StateCompleted},
		{ID: "a", Title: "Answer Ana", State: models.StateSkipped},
		{ID: "x", Title: "Answer Ana about", State: models.StateDismissed}, // overlaps a: left unmarked
		{ID: "z", Title: "Call Zoë", State: models.StateCompleted},         // not in the text
	}
	text := "Ünïcode first: answer Ana about the hike, then book the bike service; answer Ana again."
	parts := briefParts(text, settled)
	var got []string
	joined := ""
	for _, p := range parts {
		joined += p.Text
		if p.Settled != nil {
			got = append(got, p.Settled.ID+":"+p.Text)
		}
	}
	if joined != text {
		t.Fatalf("parts join to %q", joined)
	}
	if len(got) != 2 || got[0] != "a:answer Ana" || got[1] != "b:book the bike service" {
		t.Fatalf("marked %q", got)
	}
	if parts := briefParts(text, nil); len(parts) != 1 || parts[0].Text != text {
		t.Fatalf("nothing settled: %+v", parts)
	}
}

func TestJobWordsNameTheJob(t *testing.T) {
	for key, want := range map[string]string{"daily-brief": "the daily brief", "weekly_plan": "the weekly plan job", "": "the agent"} {
		if got := jobWords(key); got != want {
			t.Errorf("jobWords(%q) = %q, want %q", key, got, want)
		}
	}
}
