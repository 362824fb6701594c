package models

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/storetest"
)

// tokyoOwner is a store whose owner lives in Tokyo (the brief's zone), at
// 2026-09-29 20:00 UTC: already 2026-09-30 05:00 there.
func tokyoOwner(t *testing.T) (*Store, *storetest.Clock) {
	t.Helper()
	s, clock := newTestStore(t)
	mustPublish(t, s, newPub("run-brief", 0).With("brief", map[string]any{
		"date": "2026-09-30", "timeZone": "Asia/Tokyo", "text": "A quiet day.", "evidenceIds": []any{},
	}))
	clock.Set(time.Date(2026, 9, 29, 20, 0, 0, 0, time.UTC))
	return s, clock
}

// mustAdd adds text a second after the item added before, so items are
// told apart by when they were added.
func mustAdd(t *testing.T, s *Store, clock *storetest.Clock, text string) OwnerItem {
	t.Helper()
	clock.Advance(time.Second)
	it, err := s.AddOwnerItem(context.Background(), text)
	if err != nil {
		t.Fatalf("add %q: %v", text, err)
	}
	return it
}

func ownerItemIDs(items []OwnerItem) []string {
	return storetest.IDs(items, func(o OwnerItem) string { return o.ID })
}

func TestAQuickAddIsInTheAgentContextAsTheOwnersOwnWithTheDayReadInTheOwnersZone(t *testing.T) {
	s, clock := tokyoOwner(t)
	before := mustRevision(t, s)
	it := mustAdd(t, s, clock, "call Ana tomorrow")
	if after := mustRevision(t, s); after != before+1 {
		t.Fatalf("revision %d after a quick add, want %d: the agent must see the workspace changed", after, before+1)
	}
	for name, read := range map[string]func(context.Context) (contract.AgentContext, error){"full": s.AgentContext, "compact": s.CompactContext} {
		ac := storetest.Read(t, read)
		got := storetest.MustFind(t, "owner item", ac.OwnerItems, it.ID, func(o contract.OwnerItemView) string { return o.ID })
		// Tomorrow in Tokyo, where it is already the 30th; in UTC it would be the 30th.
		if got.Text != "call Ana" || got.Day != "2026-10-01" || got.AddedBy != contract.AddedByOwner || got.DoneAt != nil {
			t.Errorf("%s context has %+v, want text %q, day 2026-10-01, addedBy owner, open", name, got, "call Ana")
		}
	}
}

func TestTheContextLeavesOutRemovedOwnerItemsAndTheCompactOneThoseDoneBeforeTheLastDay(t *testing.T) {
	s, clock := tokyoOwner(t)
	ctx := context.Background()
	removed, done, open := mustAdd(t, s, clock, "old idea"), mustAdd(t, s, clock, "buy stamps"), mustAdd(t, s, clock, "water plants")
	if err := s.RemoveOwnerItem(ctx, removed.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SetOwnerItemDone(ctx, done.ID, true); err != nil {
		t.Fatal(err)
	}
	clock.Advance(48 * time.Hour)
	idOf := func(o contract.OwnerItemView) string { return o.ID }
	if got, want := storetest.IDs(storetest.Read(t, s.AgentContext).OwnerItems, idOf), []string{done.ID, open.ID}; !slices.Equal(got, want) {
		t.Errorf("full context owner items %q, want %q (removed left out, done kept for 14 days)", got, want)
	}
	if got, want := storetest.IDs(storetest.Read(t, s.CompactContext).OwnerItems, idOf), []string{open.ID}; !slices.Equal(got, want) {
		t.Errorf("compact context owner items %q, want %q", got, want)
	}
}

func TestAQuickAddShowsOnHomeOnItsDayAndLeavesTheDayAfterItIsDone(t *testing.T) {
	s, clock := tokyoOwner(t)
	ctx := context.Background()
	call := mustAdd(t, s, clock, "call Ana tomorrow")
	milk := mustAdd(t, s, clock, "buy milk")
	card := mustAdd(t, s, clock, "send the card 3 Oct")

	home := storetest.Read(t, s.homeUncapped)
	if got := ownerItemIDs(home.Mine.Now); !slices.Equal(got, []string{milk.ID}) {
		t.Errorf("today's items %q, want only the one with no day %q", got, milk.ID)
	}
	var days []string
	for _, d := range home.Mine.Ahead {
		days = append(days, d.Day+":"+d.Items[0].Text)
	}
	if want := []string{"2026-10-01:call Ana", "2026-10-03:send the card"}; !slices.Equal(days, want) {
		t.Errorf("later days %q, want %q", days, want)
	}

	clock.Advance(24 * time.Hour) // 2026-10-01 in Tokyo
	home = storetest.Read(t, s.homeUncapped)
	if got := ownerItemIDs(home.Mine.Now); !slices.Equal(got, []string{call.ID, milk.ID}) {
		t.Fatalf("on its day, today's items %q, want %q", got, []string{call.ID, milk.ID})
	}
	if _, err := s.SetOwnerItemDone(ctx, call.ID, true); err != nil {
		t.Fatal(err)
	}
	home = storetest.Read(t, s.homeUncapped)
	if got := ownerItemIDs(home.Mine.Now); !slices.Equal(got, []string{milk.ID, call.ID}) || !home.Mine.Now[1].Done() {
		t.Errorf("after the tick, today's items %q (open first, done after), want %q with the call done", got, []string{milk.ID, call.ID})
	}
	clock.Advance(24 * time.Hour)
	home = storetest.Read(t, s.homeUncapped)
	if got := ownerItemIDs(home.Mine.Now); !slices.Equal(got, []string{milk.ID}) {
		t.Errorf("the day after it was done, today's items %q, want %q", got, []string{milk.ID})
	}
	if len(home.Mine.Ahead) != 1 || home.Mine.Ahead[0].Items[0].ID != card.ID {
		t.Errorf("later %+v, want only the card's day", home.Mine.Ahead)
	}
}

func TestTheOwnerEditsAndRemovesTheirItemAndNothingElse(t *testing.T) {
	s, clock := tokyoOwner(t)
	ctx := context.Background()
	it := mustAdd(t, s, clock, "call Ana tomorrow")
	edited, err := s.EditOwnerItem(ctx, it.ID, "call Ana about Sunday", "")
	if err != nil {
		t.Fatal(err)
	}
	// Words saved by Edit are taken as typed: "Sunday" stays text, and the day is the form's.
	if edited.Text != "call Ana about Sunday" || edited.Day != "" {
		t.Errorf("edited to %+v, want the words as typed and no day", edited)
	}
	var field *FieldError
	if _, err := s.EditOwnerItem(ctx, it.ID, "call Ana", "next week"); !errors.As(err, &field) || field.Field != "day" {
		t.Errorf("edit with day %q: %v, want a field error at day", "next week", err)
	}
	if _, err := s.EditOwnerItem(ctx, it.ID, "   ", ""); !errors.As(err, &field) || field.Field != "text" {
		t.Errorf("edit to blank words: %v, want a field error at text", err)
	}
	if _, err := s.AddOwnerItem(ctx, " \t "); !errors.As(err, &field) || field.Field != "text" {
		t.Errorf("a blank quick add: %v, want a field error at text", err)
	}
	if err := s.RemoveOwnerItem(ctx, it.ID); err != nil {
		t.Fatal(err)
	}
	if home := storetest.Read(t, s.homeUncapped); len(home.Mine.Now)+len(home.Mine.Ahead) != 0 {
		t.Errorf("Home still shows %+v after the remove", home.Mine)
	}
	if _, err := s.SetOwnerItemDone(ctx, it.ID, true); !errors.Is(err, ErrNotFound) {
		t.Errorf("tick of a removed item: %v, want ErrNotFound", err)
	}
	if _, err := s.SetOwnerItemDone(ctx, "own-nothing", true); !errors.Is(err, ErrNotFound) {
		t.Errorf("tick of an unknown item: %v, want ErrNotFound", err)
	}
}

func TestAPublicationThatNamesAnOwnerItemIsRefusedAndChangesNothing(t *testing.T) {
	s, clock := tokyoOwner(t)
	ctx := context.Background()
	it := mustAdd(t, s, clock, "call Ana tomorrow")
	gone := mustAdd(t, s, clock, "old idea")
	if err := s.RemoveOwnerItem(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	rev := mustRevision(t, s)
	rewrite := task(it.ID)
	rewrite["title"] = "Call Ana (agent's words)"
	p := newPub("run-rewrite", rev).Add("activities", task("fine-task"), rewrite, task(gone.ID)).
		Add("retractions", map[string]any{"kind": "activity", "id": it.ID}).
		Add("completedRequests", map[string]any{"requestId": it.ID, "sourceRefIds": []any{"life-1"}})
	_, _, err := publish(s, ctx, "cred-test", p.JSON())
	var invalid *contract.ValidationError
	if !errors.As(err, &invalid) {
		t.Fatalf("publish naming an owner item: %v, want a validation error", err)
	}
	var coded []string
	for _, fe := range invalid.Errors {
		if fe.Code == contract.CodeOwnerItemReadOnly {
			coded = append(coded, fe.Path)
			if fe.Expected != contract.ExpectedNotOwnerItem {
				t.Errorf("error at %s expects %q, want %q", fe.Path, fe.Expected, contract.ExpectedNotOwnerItem)
			}
		}
	}
	want := []string{"/activities/1/id", "/activities/2/id", "/completedRequests/0/requestId", "/retractions/0/id"}
	if !slices.Equal(coded, want) {
		t.Errorf("owner_item_readonly errors at %q, want %q (every one, the removed item's too)", coded, want)
	}
	if got := mustRevision(t, s); got != rev {
		t.Errorf("revision %d after the refusal, want %d", got, rev)
	}
	if _, found := findActivity(t, s, it.ID); found {
		t.Error("the refused publication stored an activity with the owner item's ID")
	}
	if got, err := s.OwnerItem(ctx, it.ID); err != nil || got.Text != "call Ana" || got.Day != "2026-10-01" {
		t.Errorf("owner item after the refusal: %+v, %v; want it as the owner typed it", got, err)
	}
	if _, err := dryRun(s, ctx, "cred-test", p.JSON()); !errors.As(err, &invalid) {
		t.Errorf("dry run of the same publication: %v, want the same refusal", err)
	}
}
