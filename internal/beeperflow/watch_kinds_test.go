package beeperflow

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/contract"
	"hearth/internal/storetest"
	"hearth/models"
	"hearth/models/read"
)

const anaID = "@ana:beeper.local"

// quietMessages are what Ana's side of a chat may show that nobody said to
// the owner: a reaction to the owner's message, a bridge notice, a hidden
// and a deleted message.
func quietMessages(reactsTo string) map[string]beeper.Message {
	return map[string]beeper.Message{
		"reaction": {SenderID: anaID, Type: beeper.TypeReaction, Text: "👍", LinkedMessageID: reactsTo},
		"notice":   {SenderID: anaID, Type: beeper.TypeNotice, Text: "Ana Okafor's security code changed."},
		"hidden":   {SenderID: anaID, Type: beeper.TypeText, Text: "edit of an earlier message", IsHidden: true},
		"deleted":  {SenderID: anaID, Type: beeper.TypeText, IsDeleted: true},
	}
}

// leaseAfter moves the clock past the debounce and leases the wake-ups due.
func leaseAfter(t *testing.T, s *models.Store, now *storetest.Clock, d time.Duration) []contract.Wake {
	t.Helper()
	now.Advance(d + time.Second)
	wakes, err := s.LeaseWakes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return wakes
}

// owedText is the owed reply of chatID's last text, and whether it is owed.
func owedText(t *testing.T, s *models.Store, chatID string) (string, bool) {
	t.Helper()
	for _, o := range storetest.Read(t, s.OwedReplies) {
		if o.ChatID == chatID {
			return o.LastText, true
		}
	}
	return "", false
}

func TestAReactionNoticeHiddenOrDeletedMessageWakesNoJobAndKeepsTheDraftSendable(t *testing.T) {
	for name, m := range quietMessages("m-ana-3") {
		t.Run(name, func(t *testing.T) {
			s, now, fake, client, w := kindsFixture(t, time.Minute)
			ctx := context.Background()
			now.Advance(3 * time.Hour) // Ana's question is owed by now
			before, owed := owedText(t, s, beepertest.AnaChatID)
			if !owed {
				t.Fatal("Ana's question is not owed before the test")
			}
			fake.Add(beepertest.AnaChatID, m)
			if _, err := w.Tick(ctx); err != nil {
				t.Fatal(err)
			}
			if wakes := leaseAfter(t, s, now, time.Minute); len(wakes) != 0 {
				t.Errorf("a %s woke %+v", name, wakes)
			}
			if after, _ := owedText(t, s, beepertest.AnaChatID); after != before {
				t.Errorf("the owed reply reads %q after a %s, want Ana's question %q", after, name, before)
			}
			d := storetest.MustFind(t, "draft", storetest.Read(t, read.Of(s).AgentContext).ReplyDrafts.Items, "draft-ana", func(d contract.DraftView) string { return d.ID })
			if d.Stale {
				t.Errorf("a %s made the draft stale", name)
			}
			send, err := ConfirmSend(ctx, s, client, confirm("key-"+name))
			var stale *StaleDraftError
			if errors.As(err, &stale) || err != nil || send.Status != models.SendSent {
				t.Errorf("sending the draft after a %s: %+v, %v; want it sent", name, send, err)
			}
		})
	}
}

func TestAReactionNoticeHiddenOrDeletedMessageLeavesAnAnsweredChatNotOwed(t *testing.T) {
	for name, m := range quietMessages("") {
		t.Run(name, func(t *testing.T) {
			s, now, fake, _, w := kindsFixture(t, time.Minute)
			ctx := context.Background()
			mine := fake.Incoming(beepertest.AnaChatID, beepertest.SelfID, "8 at the trailhead, see you there!")
			if _, err := w.Tick(ctx); err != nil {
				t.Fatal(err)
			}
			_ = leaseAfter(t, s, now, time.Minute)
			m.LinkedMessageID = map[bool]string{true: mine.ID}[name == "reaction"]
			now.Advance(time.Second)
			fake.Add(beepertest.AnaChatID, m)
			if _, err := w.Tick(ctx); err != nil {
				t.Fatal(err)
			}
			if wakes := leaseAfter(t, s, now, time.Minute); len(wakes) != 0 {
				t.Errorf("a %s woke %+v", name, wakes)
			}
			now.Advance(3 * time.Hour)
			if text, owed := owedText(t, s, beepertest.AnaChatID); owed {
				t.Errorf("a %s after the owner's answer made a reply owed (%q)", name, text)
			}
		})
	}
}

// kindsFixture is watchFixture with the client of the fake, for sends,
// and replies owed after a minute rather than a day.
func kindsFixture(t *testing.T, debounce time.Duration) (*models.Store, *storetest.Clock, *beepertest.Fake, *beeper.Client, *Watch) {
	t.Helper()
	s, now := newTestStoreWith(t, models.Options{OwedAfter: time.Minute})
	b := beepertest.Start(t, nil, beepertest.WithClock(now.Now))
	publishAnaReply(t, s)
	w := NewWatch(s, b.Client, WatchOptions{Debounce: debounce})
	if n, err := w.Tick(context.Background()); err != nil || n != 0 {
		t.Fatalf("baseline recorded %d, %v", n, err)
	}
	now.Advance(time.Second)
	return s, now, b.Fake, b.Client, w
}

// observationText is the text the agent sees of message ref: its newest
// pending observation's raw text, with its change type and raw payload.
func observationText(t *testing.T, s *models.Store, ref string) (text, change string, raw map[string]any) {
	t.Helper()
	for _, o := range storetest.Read(t, read.Of(s).AgentContext).Observations.Items {
		if o.Ref != ref {
			continue
		}
		raw = map[string]any{}
		if err := json.Unmarshal(o.Payload.Raw, &raw); err != nil {
			t.Fatal(err)
		}
		text, _ = raw["text"].(string)
		change = o.ChangeType
	}
	if raw == nil {
		t.Fatalf("no observation of message %s", ref)
	}
	return text, change, raw
}

func TestMediaReachesTheAgentAsWords(t *testing.T) {
	cases := []struct {
		name string
		msg  beeper.Message
		want string
	}{
		{"a photo without caption", beeper.Message{Type: beeper.TypeImage, Attachments: []beeper.Attachment{{Type: beeper.AttachmentImage, FileName: "IMG_0412.jpg"}}}, "a photo"},
		{"a photo named by its file", beeper.Message{Type: beeper.TypeImage, Text: "IMG_0412.jpg", Attachments: []beeper.Attachment{{Type: beeper.AttachmentImage, FileName: "IMG_0412.jpg"}}}, "a photo"},
		{"a photo with a caption", beeper.Message{Type: beeper.TypeImage, Text: "The view from the top!", Attachments: []beeper.Attachment{{Type: beeper.AttachmentImage}}}, "a photo, captioned: The view from the top!"},
		{"a voice message", beeper.Message{Type: beeper.TypeVoice, Attachments: []beeper.Attachment{{Type: beeper.AttachmentAudio, Duration: 42.4, IsVoiceNote: true}}}, "a voice message (0:42)"},
		{"a video", beeper.Message{Type: beeper.TypeVideo, Attachments: []beeper.Attachment{{Type: beeper.AttachmentVideo}}}, "a video"},
		{"a file", beeper.Message{Type: beeper.TypeFile, Attachments: []beeper.Attachment{{Type: beeper.AttachmentUnknown, FileName: "trail-map.pdf"}}}, "a file: trail-map.pdf"},
		{"a sticker", beeper.Message{Type: beeper.TypeSticker, Attachments: []beeper.Attachment{{Type: beeper.AttachmentImage, IsSticker: true}}}, "a sticker"},
		{"a location", beeper.Message{Type: beeper.TypeLocation}, "a location"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, now, fake, _, w := kindsFixture(t, 0)
			c.msg.SenderID = anaID
			m := fake.Add(beepertest.AnaChatID, c.msg)
			if _, err := w.Tick(context.Background()); err != nil {
				t.Fatal(err)
			}
			text, _, raw := observationText(t, s, m.ID)
			if text != c.want {
				t.Errorf("the agent sees %q, want %q", text, c.want)
			}
			if raw["type"] != c.msg.Type {
				t.Errorf("the observation's type is %v, want %s", raw["type"], c.msg.Type)
			}
			now.Advance(3 * time.Hour)
			if owed, _ := owedText(t, s, beepertest.AnaChatID); owed != c.want {
				t.Errorf("the owed reply reads %q, want %q", owed, c.want)
			}
		})
	}
}

func TestAnEditedMessageUpdatesWhatTheAgentSeesWithoutAnotherWakeUp(t *testing.T) {
	s, now, fake, _, w := kindsFixture(t, time.Minute)
	ctx := context.Background()
	m := fake.Incoming(beepertest.AnaChatID, anaID, "Meet at 7?")
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	now.Advance(10 * time.Second)
	if _, err := fake.Edit(beepertest.AnaChatID, m.ID, "Meet at 8?", false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if text, change, raw := observationText(t, s, m.ID); text != "Meet at 8?" || change != contract.ChangeModified || raw["editedAt"] == nil {
		t.Errorf("the agent sees %q (%s, %v), want the edited text, modified, with its edit time", text, change, raw)
	}
	wakes := leaseAfter(t, s, now, time.Minute)
	if len(wakes) != 1 || wakes[0].Marks != 1 {
		t.Errorf("wakes %+v; want the one wake-up of the message, none for its edit", wakes)
	}
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, "SELECT COUNT(*) FROM observations WHERE ref = ?", m.ID); n != 2 {
		t.Errorf("%d observations of the message after a pass with nothing new, want 2 (it and its edit)", n)
	}

	now.Advance(10 * time.Second)
	if _, err := fake.Edit(beepertest.AnaChatID, m.ID, "", true); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Tick(ctx); err != nil {
		t.Fatal(err)
	}
	if text, change, _ := observationText(t, s, m.ID); text != "" || change != contract.ChangeDeleted {
		t.Errorf("after Ana deleted it the agent sees %q (%s), want no text, deleted", text, change)
	}
}

func TestAnEditOfAMessageHearthNeverRecordedRecordsNothing(t *testing.T) {
	s, _, fake, _, w := kindsFixture(t, 0)
	if _, err := fake.Edit(beepertest.AnaChatID, "m-ana-3", "And what time? Early please.", false); err != nil {
		t.Fatal(err)
	}
	if _, err := w.Tick(context.Background()); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, s, "SELECT COUNT(*) FROM observations"); n != 0 {
		t.Errorf("%d observations from an edit of history before the watch began, want none", n)
	}
}

// The first pass reads only each chat's newest message; when that is a
// reaction, the question before it must still be the one owed.
func TestABaselineWhoseNewestMessageIsAReactionStillOwesTheQuestionBeforeIt(t *testing.T) {
	s, now := newTestStoreWith(t, models.Options{OwedAfter: time.Minute})
	b := beepertest.Start(t, nil, beepertest.WithClock(now.Now))
	b.Add(beepertest.AnaChatID, beeper.Message{SenderID: beepertest.SelfID, Type: beeper.TypeReaction, Text: "❤️", LinkedMessageID: "m-ana-1"})
	w := NewWatch(s, b.Client, WatchOptions{})
	if n, err := w.Tick(context.Background()); err != nil || n != 0 {
		t.Fatalf("baseline recorded %d, %v", n, err)
	}
	now.Advance(3 * time.Hour)
	if text, owed := owedText(t, s, beepertest.AnaChatID); !owed || text != "And what time should we meet? I'd like an early start." {
		t.Errorf("after a baseline ending in the owner's reaction Ana's chat is owed=%v (%q); want her last question owed", owed, text)
	}
}
