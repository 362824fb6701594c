package beeperflow

import (
	"context"
	"errors"
	"net/http"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/models"
	"hearth/models/read"
)

// handOffAna hands draft-ana off with text a day after it was written.
func handOffAna(t *testing.T, s *models.Store, client Composer, text string) (HandOffResult, error) {
	t.Helper()
	return HandOffToBeeper(context.Background(), s, client, models.HandOff{ChatID: beepertest.AnaChatID, DraftID: "draft-ana", Form: models.WordingForm{Body: text}})
}

func TestHandOffPutsTheTextIntoAnEmptyBeeperComposer(t *testing.T) {
	s, now, fake, client, _ := owedFixture(t)
	now.Advance(24 * time.Hour)
	res, err := handOffAna(t, s, client, "Let me check and get back to you")
	if err != nil || res.Focused {
		t.Fatalf("hand off: %+v, %v; want into the composer", res, err)
	}
	if got := fake.Composer(beepertest.AnaChatID); got != "Let me check and get back to you" {
		t.Fatalf("Beeper's composer holds %q", got)
	}
	// Beeper is opened on the chat, without a second copy of the text.
	if f := fake.Focuses(); len(f) != 1 || f[0].ChatID != beepertest.AnaChatID || f[0].DraftText != "" {
		t.Fatalf("Beeper was focused with %+v", f)
	}
	if len(fake.Sends()) != 0 {
		t.Fatal("a hand-off sent a message")
	}
	ac, err := read.Of(s).AgentContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if o := contextDraft(t, ac, "draft-ana").Outcome; o == nil || o.Kind != models.DraftHandedOff || o.Text != "Let me check and get back to you" {
		t.Fatalf("the agent reads the draft's outcome as %+v", o)
	}
}

func TestHandOffIntoABusyComposerIsRefusedAndLeavesTheOwnersText(t *testing.T) {
	s, now, fake, client, _ := owedFixture(t)
	now.Advance(24 * time.Hour)
	fake.Type(beepertest.AnaChatID, "Half a thought of my own")
	_, err := handOffAna(t, s, client, "Let me check and get back to you")
	if !errors.Is(err, ErrComposerBusy) {
		t.Fatalf("a hand-off over the owner's typing answered %v, want ErrComposerBusy", err)
	}
	if got := fake.Composer(beepertest.AnaChatID); got != "Half a thought of my own" {
		t.Fatalf("the owner's text became %q", got)
	}
	if len(fake.Focuses()) != 0 {
		t.Fatal("a refused hand-off still opened Beeper with the text")
	}
	ac, _ := read.Of(s).AgentContext(context.Background())
	if o := contextDraft(t, ac, "draft-ana").Outcome; o != nil {
		t.Fatalf("a refused hand-off was recorded: %+v", o)
	}
}

func TestHandOffFallsBackToOpeningBeeperWithTheTextWhereTheComposerCannotBeSet(t *testing.T) {
	for _, status := range []int{http.StatusNotFound, http.StatusMethodNotAllowed} {
		t.Run(http.StatusText(status), func(t *testing.T) {
			old := func(f *beepertest.Fake) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					if r.Method == http.MethodPatch {
						http.Error(w, `{"code":"NOT_FOUND","message":"no such route"}`, status)
						return
					}
					f.ServeHTTP(w, r)
				})
			}
			s, now, fake, client := replyFixture(t, old)
			if _, err := NewWatch(s, client, WatchOptions{}).Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
			now.Advance(24 * time.Hour)
			res, err := handOffAna(t, s, client, "Let me check")
			if err != nil || !res.Focused {
				t.Fatalf("hand off to an older Beeper: %+v, %v; want focused with the text", res, err)
			}
			if f := fake.Focuses(); len(f) != 1 || f[0].DraftText != "Let me check" {
				t.Fatalf("Beeper was focused with %+v", f)
			}
			ac, _ := read.Of(s).AgentContext(context.Background())
			if o := contextDraft(t, ac, "draft-ana").Outcome; o == nil || o.Kind != models.DraftHandedOff {
				t.Fatalf("the fallback was not recorded as a hand-off: %+v", o)
			}
		})
	}
}

func TestAChatThatMovesOnWithdrawsTheHandedOffTextOnlyIfUnchanged(t *testing.T) {
	for _, tc := range []struct {
		name   string
		typed  string // what the owner made of the composer after the hand-off
		moveOn func(*testing.T, *models.Store, *beepertest.Fake)
		want   string // the composer afterwards
	}{
		{name: "a newer incoming message, the text untouched", moveOn: incoming, want: ""},
		{name: "a newer incoming message, the owner edited the text", typed: "Let me check, Ana", moveOn: incoming, want: "Let me check, Ana"},
		{name: "the owner's own reply, the text left behind", moveOn: ownReply, want: ""},
		{name: "a decline in hearth", moveOn: decline, want: ""},
		{name: "a reaction does not move the chat on", moveOn: reaction, want: "Let me check"},
		{name: "nothing happened", moveOn: func(*testing.T, *models.Store, *beepertest.Fake) {}, want: "Let me check"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, now, fake, client, w := owedFixture(t)
			now.Advance(24 * time.Hour)
			if _, err := handOffAna(t, s, client, "Let me check"); err != nil {
				t.Fatal(err)
			}
			if tc.typed != "" {
				fake.Type(beepertest.AnaChatID, tc.typed)
			}
			now.Advance(time.Minute)
			tc.moveOn(t, s, fake)
			if _, err := w.Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
			if got := fake.Composer(beepertest.AnaChatID); got != tc.want {
				t.Fatalf("the composer holds %q, want %q", got, tc.want)
			}
			// Once settled, the watch leaves the composer alone: text typed later stays.
			fake.Type(beepertest.AnaChatID, "")
			fake.Type(beepertest.AnaChatID, "Let me check")
			if _, err := w.Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
			if tc.want == "" && fake.Composer(beepertest.AnaChatID) != "Let me check" {
				t.Fatal("a withdrawn hand-off was withdrawn again")
			}
		})
	}
}

func incoming(_ *testing.T, _ *models.Store, f *beepertest.Fake) {
	f.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "Never mind, see you there")
}

func ownReply(_ *testing.T, _ *models.Store, f *beepertest.Fake) {
	f.Incoming(beepertest.AnaChatID, beepertest.SelfID, "8 it is")
}

func reaction(_ *testing.T, _ *models.Store, f *beepertest.Fake) {
	f.Add(beepertest.AnaChatID, beeper.Message{SenderID: "@ana:beeper.local", Type: beeper.TypeReaction, Text: "👍"})
}

func decline(t *testing.T, s *models.Store, _ *beepertest.Fake) {
	if _, err := s.DecideNoReplyNeeded(context.Background(), models.ChatDecision{ChatID: beepertest.AnaChatID}); err != nil {
		t.Fatal(err)
	}
}
