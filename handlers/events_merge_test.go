package handlers_test

import (
	"slices"
	"testing"

	"hearth/handlers"
)

func TestSlowSubscriberKeepsEveryChangedKey(t *testing.T) {
	h := handlers.NewHub()
	events, leave := h.Subscribe()
	defer leave()
	h.Committed(1, []string{"activity:a"})
	h.Committed(2, []string{"draft:d", "activity:a"})
	h.Committed(3, []string{"chat:c"})
	ev := <-events
	if ev.Revision != 3 || ev.Since != 1 || !slices.Equal(ev.Changed, []string{"activity:a", "draft:d", "chat:c"}) {
		t.Fatalf("coalesced event %+v, want revision 3 since 1 naming every change", ev)
	}
	h.Committed(4, []string{"brief"})
	if ev := <-events; ev.Revision != 4 || ev.Since != 4 || !slices.Equal(ev.Changed, []string{"brief"}) {
		t.Fatalf("next event %+v", ev)
	}
}
