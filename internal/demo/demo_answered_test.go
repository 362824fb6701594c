package demo

import (
	"bytes"
	"context"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/beeperflow"
	"hearth/models"
	"hearth/models/read"
	"hearth/views"
)

// demoConversation renders chatID's conversation as Messages shows it
// from the demo store (the chat's messages left out: they are Beeper's).
func demoConversation(t *testing.T, store *models.Store, chat views.ChatHead) *goquery.Document {
	t.Helper()
	ctx := context.Background()
	drafts, err := read.Of(store).ChatDrafts(ctx, chat.ID)
	if err != nil {
		t.Fatal(err)
	}
	day, err := store.Today(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := views.Conversation(views.ConversationData{Now: store.Now(), Chat: chat, Drafts: drafts, Day: day}).Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	doc, err := goquery.NewDocumentFromReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	return doc
}

func TestTheDemoShowsAReplySeenAndAnsweredOnMessagesAndPeople(t *testing.T) {
	now := time.Date(2026, 9, 29, 7, 0, 0, 0, time.UTC)
	_, store := demoStore(t, now)
	ctx := context.Background()

	doc := demoConversation(t, store, views.ChatHead{ID: beepertest.AnaChatID, Title: "Ana Okafor"})
	followed := strings.TrimSpace(doc.Find(`[data-testid="send-followed"]`).Text())
	if !regexp.MustCompile(`^Delivered · Seen .+ · answered .+ \(19 min\)$`).MatchString(followed) {
		t.Errorf("Messages says under the demo's reply to Ana %q; want it delivered, seen and answered", followed)
	}
	// Today's draft for Ana is still today's: the answered reply settled only its own.
	if d := doc.Find(`[data-testid="draft"][id="draft-draft-ana-hike"]`); d.Length() != 1 || d.Find(`[data-testid="send-sent"]`).Length() != 0 || d.Find(`[data-testid="draft-stale"]`).Length() != 0 {
		t.Errorf("today's draft for Ana is no longer open and fresh:\n%s", d.Text())
	}

	people, err := read.Of(store).People(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// Ana's card alone: other demo parts send older replies to others.
	var cards []views.PersonCard
	for _, p := range people.People {
		if p.Person.ID == "ana-okafor" {
			cards = append(cards, views.PersonCard{Person: p.Person, Replies: p.Replies})
		}
	}
	var b bytes.Buffer
	if err := views.People(views.PeopleData{Now: now, People: cards}).Render(ctx, &b); err != nil {
		t.Fatal(err)
	}
	pdoc, err := goquery.NewDocumentFromReader(&b)
	if err != nil {
		t.Fatal(err)
	}
	var rates []string
	pdoc.Find(`[data-testid="person-replies"]`).Each(func(_ int, s *goquery.Selection) { rates = append(rates, strings.TrimSpace(s.Text())) })
	if len(rates) != 1 || !regexp.MustCompile(`^Answered 1 of 1 reply \(100%\) in 90 days, typically within \d+ min$`).MatchString(rates[0]) {
		t.Errorf("People says %q; want Ana's one reply answered", rates)
	}
}

func TestTheDemoHandsADraftToBeepersComposerWhereTheLiveWatchLeavesIt(t *testing.T) {
	now := time.Date(2026, 9, 29, 7, 0, 0, 0, time.UTC)
	_, store := demoStore(t, now)
	ctx := context.Background()

	doc := demoConversation(t, store, views.ChatHead{ID: beepertest.GroupChatID, Title: "Climbing crew", Group: true})
	if got := doc.Find(`[data-testid="draft-outcome"][data-kind="` + models.DraftHandedOff + `"]`).Text(); !strings.Contains(got, "Handed to Beeper") {
		t.Errorf("Messages shows the crew's draft as %q; want it handed to Beeper", doc.Find(`[data-testid="draft"]`).Text())
	}

	// The demo's Beeper holds the text hearth put in its composer, and the
	// live watch's first reads (its baseline, then a pass) leave it there.
	fake := Beeper(beepertest.Token, func() time.Time { return now })
	srv := httptest.NewServer(fake)
	t.Cleanup(srv.Close)
	client := beeper.NewClient(srv.URL, beepertest.Token)
	if got := fake.Composer(beepertest.GroupChatID); got != demoHandOffText {
		t.Fatalf("the demo's Beeper composer holds %q; want hearth's %q", got, demoHandOffText)
	}
	watch := beeperflow.NewWatch(store, client, beeperflow.WatchOptions{})
	for range 2 {
		if _, err := watch.Tick(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if got := fake.Composer(beepertest.GroupChatID); got != demoHandOffText {
		t.Fatalf("after the live watch's first reads the composer holds %q; want hearth's text still there", got)
	}
	// The chat moving on takes it back out: the hand-off is live, not decoration.
	fake.Incoming(beepertest.GroupChatID, "@jules:beeper.local", "Sorted, Ana is driving.")
	if _, err := watch.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if got := fake.Composer(beepertest.GroupChatID); got != "" {
		t.Errorf("after a new message in the crew the composer still holds %q; want hearth's text withdrawn", got)
	}
}
