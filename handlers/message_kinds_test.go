package handlers_test

import (
	"strings"
	"testing"

	"github.com/PuerkitoBio/goquery"

	"hearth/beeper"
	"hearth/beeper/beepertest"
)

func TestAConversationShowsAReactionUnderTheMessageItAnswersAndMediaAsWords(t *testing.T) {
	t.Parallel()
	ta, cookie, fake := messagesApp(t)
	const ana = "@ana:beeper.local"
	mine := fake.Add(beepertest.AnaChatID, beeper.Message{SenderID: beepertest.SelfID, Text: "Saturday at 8 works!"})
	fake.Add(beepertest.AnaChatID, beeper.Message{SenderID: ana, Type: beeper.TypeReaction, Text: "👍", LinkedMessageID: mine.ID})
	// Beeper may list a reaction on the message it answers instead.
	photo := fake.Add(beepertest.AnaChatID, beeper.Message{SenderID: ana, Type: beeper.TypeImage, Attachments: []beeper.Attachment{{Type: beeper.AttachmentImage, FileName: "IMG_0412.jpg"}},
		Reactions: []beeper.Reaction{{ID: beepertest.SelfID, ParticipantID: beepertest.SelfID, ReactionKey: "😍", Emoji: true}}})
	hidden := fake.Add(beepertest.AnaChatID, beeper.Message{SenderID: ana, Text: "an edit event", IsHidden: true})
	gone := fake.Add(beepertest.AnaChatID, beeper.Message{SenderID: ana, Text: "oops", IsDeleted: true})

	d := ta.get(anaPath, "", cookie).doc(t)
	var ids []string
	d.Find(`[data-testid="message"]`).Each(func(_ int, s *goquery.Selection) {
		id, _ := s.Attr("data-id")
		ids = append(ids, id)
	})
	if want := []string{"m-ana-1", "m-ana-2", "m-ana-3", mine.ID, photo.ID, gone.ID}; strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("messages shown %v, want %v: the reaction under its message, the hidden %s not at all", ids, want, hidden.ID)
	}
	answered := has(t, d, `[data-testid="message"][data-id="`+mine.ID+`"]`)
	if r := answered.Find(`[data-testid="reaction"]`); r.Length() != 1 || strings.Join(strings.Fields(r.Text()), " ") != "👍 Ana Okafor" {
		t.Errorf("reactions under the owner's message: %d, %q; want one, 👍 Ana Okafor", r.Length(), r.Text())
	}
	if r := has(t, d, `[data-testid="message"][data-id="`+photo.ID+`"] [data-testid="reaction"]`); strings.Join(strings.Fields(r.Text()), " ") != "😍 You" {
		t.Errorf("the reaction listed on the photo reads %q, want 😍 You", r.Text())
	}
	if n := d.Find(`[data-testid="reaction"]`).Length(); n != 2 {
		t.Errorf("%d reactions shown, want the two", n)
	}
	if p := has(t, d, `[data-testid="message"][data-id="`+photo.ID+`"]`); !strings.Contains(p.Text(), "a photo") || strings.Contains(p.Text(), "IMG_0412") {
		t.Errorf("the photo reads %q, want it said as a photo", p.Text())
	}
	if g := has(t, d, `[data-testid="message"][data-id="`+gone.ID+`"]`); strings.Contains(g.Text(), "oops") || !strings.Contains(g.Text(), "deleted") {
		t.Errorf("the deleted message reads %q, want it said deleted, without its text", g.Text())
	}
}
