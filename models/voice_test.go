package models

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"hearth/internal/contract"
	"hearth/internal/storetest"
	"hearth/migrations"
)

// voicePair is a draft the agent published for a person and what the
// owner sent of it ("" sends the first candidate as written).
type voicePair struct {
	person     string
	candidates []string
	sent       string
}

// publishVoiceDrafts publishes people ana and tomas and one draft per
// pair (voice-0, voice-1, ...), each in its person's chat.
func publishVoiceDrafts(t *testing.T, s *Store, run string, pairs []voicePair) {
	t.Helper()
	p := newPub(run, mustRevision(t, s)).Add("people", person("ana"), person("tomas"))
	for i, vp := range pairs {
		d := draft(fmt.Sprintf("voice-%d", i), vp.candidates...)
		d["personId"], d["chatId"] = vp.person, "chat-"+vp.person
		p.Add("replyDrafts", d)
	}
	mustPublish(t, s, p)
}

// sendVoice confirms body of draftID (an own reply in chat when draftID
// is empty) and settles it sent.
func sendVoice(t *testing.T, s *Store, key, draftID, chat, body string) {
	t.Helper()
	ctx := context.Background()
	cmd := SendCommand{SendKey: key, DraftID: draftID, ChatID: chat, Body: body, SourceMessageRevision: "10"}
	plan, err := s.PrepareSend(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if plan.Target.AccountID == "" {
		plan.Target.AccountID = "acc"
	}
	sd, _, err := s.PendingSend(ctx, plan.Target, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.SettleSend(ctx, sd.ID, SendSent, "m-"+key, ""); err != nil {
		t.Fatal(err)
	}
}

// voiceStore publishes pairs and sends each, a minute apart.
func voiceStore(t *testing.T, pairs []voicePair) (*Store, *storetest.Clock) {
	t.Helper()
	s, clock := newTestStore(t)
	publishVoiceDrafts(t, s, "run-voice", pairs)
	for i, vp := range pairs {
		clock.Advance(time.Minute)
		body := vp.sent
		if body == "" {
			body = vp.candidates[0]
		}
		sendVoice(t, s, fmt.Sprintf("key-%d", i), fmt.Sprintf("voice-%d", i), "chat-"+vp.person, body)
	}
	return s, clock
}

// anaShortens are four replies to Ana, each shorter than its draft, three
// without the draft's greeting.
var anaShortens = []voicePair{
	{"ana", []string{"Hi Ana, Saturday works for me! Shall we meet at the trailhead at 8?"}, "Saturday works, 8 at the trailhead?"},
	{"ana", []string{"Hi Ana, thanks so much for the photos, they are lovely!"}, "Lovely photos, thanks!"},
	{"ana", []string{"Hey Ana, I'm running a bit late, I will be there in ten minutes."}, "Running late, ten minutes."},
	{"ana", []string{"Hi Ana, sounds great, count me in for the climbing on Tuesday."}, "Hi Ana, count me in for Tuesday."},
}

// tomasInGerman are three replies to Tomas in German where the drafts were English.
var tomasInGerman = []voicePair{
	{"tomas", []string{"Thanks for the tip, I'll take the bike in on Thursday."}, "Danke für den Tipp, ich bringe das Rad am Donnerstag hin."},
	{"tomas", []string{"The chain is fixed, it runs like new."}, "Die Kette ist repariert, sie läuft wie neu."},
	{"tomas", []string{"Happy to lend you the pump, it's by the door."}, "Gerne, die Pumpe steht an der Tür, nimm sie dir."},
}

func voiceOf(t *testing.T, ac contract.AgentContext, personID string) *contract.VoiceView {
	t.Helper()
	for i := range ac.Voice {
		if ac.Voice[i].PersonID == personID {
			return &ac.Voice[i]
		}
	}
	return nil
}

func TestTheContextSumsUpHowTheOwnerEditsEachPersonsDrafts(t *testing.T) {
	s, _ := voiceStore(t, append(append([]voicePair{}, anaShortens...), tomasInGerman...))
	ac := storetest.Read(t, s.AgentContext)
	want := []contract.VoiceView{
		{PersonID: "ana", Compared: 4, Shortened: 4, MedianLengthChangePercent: -53,
			Greeting: &contract.FramingView{InDrafts: 4, Kept: 1, Dropped: 3}, Summary: "shortens by ~55%, drops the greeting"},
		{PersonID: "tomas", Compared: 3, Lengthened: 1, MedianLengthChangePercent: 6, LanguageSwitched: 3, SwitchedTo: "de", Summary: "switches to German"},
	}
	if got, wantText := jsonText(ac.Voice), jsonText(want); got != wantText {
		t.Fatalf("context voice\n got %s\nwant %s", got, wantText)
	}
	contextValidates(t, ac)
	if got := jsonText(storetest.Read(t, s.CompactContext).Voice); got != jsonText(want) {
		t.Errorf("compact context voice %s; want it kept whole: the next drafts need it", got)
	}
	people := storetest.Read(t, s.People)
	for _, p := range people.People {
		if p.Voice == nil || p.Voice.Words() != voiceOf(t, ac, p.Person.ID).Summary {
			t.Errorf("People's %s: voice %+v; want the context's words", p.Person.ID, p.Voice)
		}
	}
}

func TestTooFewComparedSendsSayNothingOfAPersonsVoice(t *testing.T) {
	s, _ := voiceStore(t, anaShortens[:2])
	if ac := storetest.Read(t, s.AgentContext); ac.Voice != nil {
		t.Fatalf("two sends: context voice %+v; want none below three", ac.Voice)
	}
	for _, p := range storetest.Read(t, s.People).People {
		if p.Voice != nil {
			t.Errorf("two sends: People's %s shows voice %+v", p.Person.ID, p.Voice)
		}
	}
}

func TestTheOwnersOwnWordsAreNotComparedWithAnyDraft(t *testing.T) {
	s, clock := voiceStore(t, anaShortens[:2])
	// Own replies in Ana's chat: her person is known (the chat's draft),
	// but there is no draft text to compare them with.
	for i, body := range []string{"Hi! All good?", "See you Saturday", "Thanks again"} {
		clock.Advance(time.Minute)
		sendVoice(t, s, fmt.Sprintf("own-%d", i), "", "chat-ana", body)
	}
	if ac := storetest.Read(t, s.AgentContext); ac.Voice != nil {
		t.Fatalf("two draft sends and three own replies: context voice %+v; want none (own words are not compared)", ac.Voice)
	}
}

func TestVoiceComparesWithTheDraftTextTheOwnerSentFromEvenAfterTheAgentRepublishedIt(t *testing.T) {
	asWritten := []voicePair{
		{"ana", []string{"See you at 8."}, ""},
		{"ana", []string{"Thanks, that helps!"}, ""},
		{"ana", []string{"Sure, Tuesday works."}, ""},
	}
	s, _ := voiceStore(t, asWritten)
	// The agent publishes the same drafts again with other words.
	publishVoiceDrafts(t, s, "run-again", []voicePair{
		{"ana", []string{"Hello Ana, see you at eight o'clock at the trailhead, I'll bring snacks."}, ""},
		{"ana", []string{"Hello Ana, thank you, that really helps a lot!"}, ""},
		{"ana", []string{"Hello Ana, Tuesday works for me, see you at the gym."}, ""},
	})
	v := voiceOf(t, storetest.Read(t, s.AgentContext), "ana")
	if v == nil || v.Compared != 3 || v.AsWritten != 3 || v.Summary != "sends drafts as written" {
		t.Fatalf("voice after a republication %+v; want three sends as written", v)
	}
}

func TestVoiceComparesAnEditWithTheCandidateTheOwnerChose(t *testing.T) {
	s, clock := newTestStore(t)
	long := "Hi Ana, Saturday works for me! Shall we meet at the trailhead at 8? I'll bring snacks."
	var pairs []voicePair
	for range 3 {
		pairs = append(pairs, voicePair{"ana", []string{long, "Yes to Saturday, 8am?"}, ""})
	}
	publishVoiceDrafts(t, s, "run-choose", pairs)
	for i := range pairs {
		clock.Advance(time.Minute)
		id := fmt.Sprintf("voice-%d", i)
		// The owner picks the short candidate, then touches it up.
		if _, err := s.SaveDraftWording(context.Background(), id, WordingForm{Body: "Yes to Saturday, 8am!", Candidate: "c1"}); err != nil {
			t.Fatal(err)
		}
		sendVoice(t, s, fmt.Sprintf("key-%d", i), id, "chat-ana", "Yes to Saturday, 8am!")
	}
	v := voiceOf(t, storetest.Read(t, s.AgentContext), "ana")
	if v == nil || v.Compared != 3 || v.Shortened != 0 || v.Greeting != nil || v.Summary != "edits drafts with no steady habit" {
		t.Fatalf("voice %+v; want edits compared with the chosen short candidate: not shortened, no greeting dropped", v)
	}
}

func TestMigration31KeepsTheDraftTextOfEarlierSendsWhereItIsCertain(t *testing.T) {
	s, clock := newTestStore(t)
	publishVoiceDrafts(t, s, "run-old", []voicePair{
		{"ana", []string{"See you at 8."}, ""},
		{"ana", []string{"Hi Ana, thanks so much for the photos!", "Lovely photos, thanks!"}, ""},
		{"ana", []string{"Hi Ana, count me in for Tuesday."}, ""},
		{"ana", []string{"Hi Ana, running late."}, ""},
		{"ana", []string{"Hi Ana, I'm on my way."}, ""},
	})
	ctx := context.Background()
	clock.Advance(time.Minute)
	sendVoice(t, s, "as-drafted", "voice-0", "chat-ana", "See you at 8.")
	if _, err := s.SaveDraftWording(ctx, "voice-1", WordingForm{Body: "Lovely, thanks!", Candidate: "c1"}); err != nil {
		t.Fatal(err)
	}
	sendVoice(t, s, "edited-chosen", "voice-1", "chat-ana", "Lovely, thanks!")
	sendVoice(t, s, "edited-first", "voice-2", "chat-ana", "Count me in!")
	sendVoice(t, s, "republished", "voice-3", "chat-ana", "Late, sorry")
	sendVoice(t, s, "own", "", "chat-ana", "Hi!")
	republish := func(run, id string) {
		d := draft(id, "Hello Ana, I am running late.")
		d["personId"], d["chatId"] = "ana", "chat-ana"
		mustPublish(t, s, newPub(run, mustRevision(t, s)).Add("replyDrafts", d))
	}
	// voice-3 published again after its send: its text then is not certain.
	clock.Advance(time.Minute)
	republish("run-later", "voice-3")
	// voice-4 published again between the send's claim and its outcome.
	clock.Advance(time.Minute)
	cmd := SendCommand{SendKey: "republished-mid", DraftID: "voice-4", ChatID: "chat-ana", Body: "On my way", SourceMessageRevision: "10"}
	plan, err := s.PrepareSend(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	claimed, _, err := s.PendingSend(ctx, plan.Target, cmd)
	if err != nil {
		t.Fatal(err)
	}
	clock.Advance(time.Second)
	republish("run-mid", "voice-4")
	if _, err := s.SettleSend(ctx, claimed.ID, SendSent, "m-mid", ""); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(s.Path())
	s.Close()

	db, err := sql.Open("sqlite", fileURI(DatabasePath(dir))+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	prov, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := prov.DownTo(ctx, 30); err != nil {
		t.Fatal(err)
	}
	if _, err := prov.Up(ctx); err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	rows, err := db.Query(`SELECT send_key, COALESCE(draft_body, 'NULL') FROM sends`)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var key, body string
		if err := rows.Scan(&key, &body); err != nil {
			t.Fatal(err)
		}
		got[key] = body
	}
	want := map[string]string{"as-drafted": "See you at 8.", "edited-chosen": "Lovely photos, thanks!", "edited-first": "Hi Ana, count me in for Tuesday.",
		"republished": "NULL", "republished-mid": "NULL", "own": "NULL"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("draft texts after migration 31\n got %v\nwant %v", got, want)
	}
}
