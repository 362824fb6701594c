package models

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"hearth/internal/contract"
	"hearth/internal/contract/schema"
	"hearth/internal/storetest"
)

// beeperReplyFixture has a run of job messages publish Ana's draft
// (draft-ana, source message 3 of her chat, reply activity reply-ana) and
// the watch take its baseline of Beeper.
func beeperReplyFixture(t *testing.T) (*Store, *storetest.Clock) {
	t.Helper()
	s, clock := newTestStore(t)
	runPublishing(t, s, "run-m", "messages", nil, storetest.AnaReply(anaChat, testAccount).With("runId", "run-m-1"))
	recordBaseline(t, s, beeperAt(clock.Now())...)
	clock.Advance(time.Minute)
	return s, clock
}

// draftFate is what the context and the run's fates say of draft-ana.
func draftFate(t *testing.T, s *Store) (*contract.DraftOutcomeView, contract.WorkFates, []contract.ReplyDecisionView) {
	t.Helper()
	ac, err := s.AgentContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var decisions []contract.ReplyDecisionView
	for _, d := range ac.ReplyDecisions.Items {
		if d.DraftID == "draft-ana" {
			decisions = append(decisions, d)
		}
	}
	return contextDraft(t, ac, "draft-ana").Outcome, runFates(t, s, "run-m"), decisions
}

// validContext fails the test when the agent context does not validate
// against the committed JSON Schema.
func validContext(t *testing.T, s *Store) {
	t.Helper()
	ac, err := s.AgentContext(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	contextValidates(t, ac)
}

// contextValidates fails the test when ac does not validate against the
// committed JSON Schema of the agent context.
func contextValidates(t *testing.T, ac contract.AgentContext) {
	t.Helper()
	b, _ := schema.Committed("agent-context.json")
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	const url = "https://hearth.invalid/schema/agent-context.json"
	if err := c.AddResource(url, doc); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile(url)
	if err != nil {
		t.Fatal(err)
	}
	out, _ := json.Marshal(ac)
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(out))
	if err := sch.Validate(inst); err != nil {
		t.Fatalf("the context does not validate: %v", err)
	}
}

func TestTheOwnersReplyTypedInBeeperReplacesTheRunsDraft(t *testing.T) {
	s, clock := beeperReplyFixture(t)
	ctx := context.Background()
	if o, f, _ := draftFate(t, s); o != nil || f.DraftsOpen != 1 {
		t.Fatalf("before: outcome %+v, fates %+v", o, f)
	}
	if n := recordPass(t, s, readChat(anaChat, "Ana Okafor", textMessage("m-own-4", "4", ownerID, "8 at the trailhead, see you there!", clock.Now()))); n != 1 {
		t.Fatalf("the pass recorded %d messages, want 1", n)
	}

	o, f, decisions := draftFate(t, s)
	if o == nil || o.Kind != DraftReplaced || o.Text != "8 at the trailhead, see you there!" || o.SendKey != "" {
		t.Fatalf("outcome %+v; want replaced with the owner's text and no sendKey", o)
	}
	if f.Replaced != 1 || f.DraftsOpen != 0 || f.Drafts != 1 {
		t.Fatalf("fates %+v; want the draft counted replaced", f)
	}
	if len(decisions) != 1 || decisions[0].Decision != ActionOwnReply || decisions[0].Text != o.Text || decisions[0].SendKey != "" {
		t.Fatalf("reply decisions %+v; want one own-reply with the text", decisions)
	}
	// Its reply row leaves Home as after an own reply, noted as the watch's doing.
	row, _, err := s.HomeRow(ctx, "reply-ana")
	if err != nil || row.UserState.State != StateCompleted {
		t.Fatalf("reply row %+v, %v; want completed", row.UserState, err)
	}
	ac, err := s.AgentContext(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var made []contract.ActivityDecisionView
	for _, d := range ac.ActivityDecisions.Items {
		if d.ActivityID == "reply-ana" {
			made = append(made, d)
		}
	}
	if len(made) != 1 || made[0].Cause != CauseOwner || made[0].Note != WatchAnsweredNote {
		t.Fatalf("decisions of reply-ana %+v; want one noted as the watch's", made)
	}
	var settled int
	if err := s.rdb.Raw("SELECT count(*) FROM reply_drafts WHERE id = 'draft-ana' AND settled_at IS NOT NULL").Scan(&settled).Error; err != nil || settled != 1 {
		t.Fatalf("draft-ana settled: %d, %v", settled, err)
	}
	validContext(t, s)

	// A second owner message changes nothing more.
	recordPass(t, s, readChat(anaChat, "Ana Okafor", textMessage("m-own-5", "5", ownerID, "Bring water.", clock.Now())))
	if o2, _, decisions := draftFate(t, s); o2.Text != o.Text || len(decisions) != 1 {
		t.Fatalf("after a second message: outcome %+v, decisions %+v", o2, decisions)
	}
}

func TestHearthsOwnSendEchoedByTheWatchIsNotTheOwnersReply(t *testing.T) {
	ctx := context.Background()
	own := SendCommand{SendKey: "own-1", ChatID: anaChat, Body: "I'll call you tonight.", SourceMessageRevision: "3"}
	for _, tc := range []struct {
		name string
		cmd  SendCommand
		// echo is when the watch sees the send's message: before the send
		// settles (pending, or accepted under the message's ID) or after.
		echo string
		// text is what Beeper shows of the message.
		text     string
		wantKind string
		wantKey  string
	}{
		{"own reply seen before it settles", own, "pending", own.Body, DraftReplaced, "own-1"},
		{"own reply seen before Beeper names it, its text changed", own, "pending", "I'll call you tonight", DraftReplaced, "own-1"},
		{"own reply seen while accepted, under its message ID", own, "accepted", "I'll call you tonight", DraftReplaced, "own-1"},
		{"own reply seen after it settled", own, "after", own.Body, DraftReplaced, "own-1"},
		{"draft send seen before it settles", confirm("key-1"), "pending", confirm("key-1").Body, DraftSentEdited, "key-1"},
		{"draft send seen after it settled", confirm("key-1"), "after", confirm("key-1").Body, DraftSentEdited, "key-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, clock := beeperReplyFixture(t)
			plan, err := s.PrepareSend(ctx, tc.cmd)
			if err != nil {
				t.Fatal(err)
			}
			send, _, err := s.PendingSend(ctx, plan.Target, tc.cmd)
			if err != nil {
				t.Fatal(err)
			}
			msg := textMessage("m-own-4", "4", ownerID, tc.text, clock.Now())
			switch tc.echo {
			case "accepted":
				if _, err := s.SettleSend(ctx, send.ID, SendPending, msg.ID, ""); err != nil {
					t.Fatal(err)
				}
			case "after":
				if _, err := s.SettleSend(ctx, send.ID, SendSent, msg.ID, ""); err != nil {
					t.Fatal(err)
				}
			}
			if n := recordPass(t, s, readChat(anaChat, "Ana Okafor", msg)); n != 1 {
				t.Fatalf("the pass recorded %d messages, want 1", n)
			}
			if tc.echo != "after" {
				if o, f, decisions := draftFate(t, s); o != nil || f.DraftsOpen != 1 || len(decisions) != 0 {
					t.Fatalf("hearth's send still going, seen by the watch: outcome %+v, fates %+v, decisions %+v", o, f, decisions)
				}
				if _, err := s.SettleSend(ctx, send.ID, SendSent, msg.ID, ""); err != nil {
					t.Fatal(err)
				}
			}
			o, f, decisions := draftFate(t, s)
			if o == nil || o.Kind != tc.wantKind || o.SendKey != tc.wantKey {
				t.Fatalf("outcome %+v; want %s with sendKey %q", o, tc.wantKind, tc.wantKey)
			}
			if f.DraftsOpen != 0 || f.Drafts != 1 {
				t.Fatalf("fates %+v", f)
			}
			if tc.wantKind == DraftReplaced && (len(decisions) != 1 || decisions[0].SendKey != tc.wantKey) {
				t.Fatalf("decisions %+v; want the one own-reply of the send", decisions)
			}
			if tc.wantKind != DraftReplaced && len(decisions) != 0 {
				t.Fatalf("decisions %+v; want none", decisions)
			}
		})
	}
}

func TestAnOwnerMessageOlderThanTheDraftsSourceReplacesNothing(t *testing.T) {
	s, clock := newTestStore(t)
	recordBaseline(t, s, beeperAt(clock.Now())...)
	clock.Advance(time.Minute)
	mine := textMessage("m-own-4", "4", ownerID, "Give me a minute.", clock.Now())
	hers := textMessage("m-ana-5", "5", anaID, "Sure, and 8 or 9?", clock.Now())
	p := storetest.AnaReply(anaChat, testAccount).With("runId", "run-m-1").With("expectedRevision", mustRevision(t, s))
	p.Set(t, "/replyDrafts/0/sourceMessageRevision", "5") // the agent read Beeper itself
	runPublishing(t, s, "run-m", "messages", nil, p)
	if n := recordPass(t, s, readChat(anaChat, "Ana Okafor", mine, hers)); n != 2 {
		t.Fatalf("the pass recorded %d messages, want 2", n)
	}
	if o, f, decisions := draftFate(t, s); o != nil || f.DraftsOpen != 1 || len(decisions) != 0 {
		t.Fatalf("outcome %+v, fates %+v, decisions %+v; want the draft open", o, f, decisions)
	}
}

func TestTheWatchsBaselineReplacesNothing(t *testing.T) {
	s, clock := newTestStore(t)
	runPublishing(t, s, "run-m", "messages", nil, storetest.AnaReply(anaChat, testAccount).With("runId", "run-m-1"))
	clock.Advance(time.Minute)
	// The owner's answer is the chat's newest message when the watch starts.
	recordBaseline(t, s, readChat(anaChat, "Ana Okafor", textMessage("m-own-4", "4", ownerID, "8 at the trailhead!", clock.Now())))
	if o, f, decisions := draftFate(t, s); o != nil || f.DraftsOpen != 1 || len(decisions) != 0 {
		t.Fatalf("outcome %+v, fates %+v, decisions %+v; want the draft open", o, f, decisions)
	}
}

func TestAHandedOffDraftStaysHandedOffWhenItsWordsAppearInBeeper(t *testing.T) {
	s, clock := beeperReplyFixture(t)
	ctx := context.Background()
	plan, err := s.PrepareHandOff(ctx, HandOff{ChatID: anaChat, DraftID: "draft-ana", Form: WordingForm{Body: "Saturday works! 8?"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.RecordHandOff(ctx, plan); err != nil {
		t.Fatal(err)
	}
	recordPass(t, s, readChat(anaChat, "Ana Okafor", textMessage("m-own-4", "4", ownerID, "Saturday works! 8?", clock.Now())))
	if o, f, _ := draftFate(t, s); o == nil || o.Kind != DraftHandedOff || f.HandedOff != 1 {
		t.Fatalf("outcome %+v, fates %+v; want handed off", o, f)
	}
	// The message the hand-off waited for has come: its reply row is done
	// and the draft settled (it leaves the hot reads), still handed off.
	row, _, err := s.HomeRow(ctx, "reply-ana")
	if err != nil || row.UserState.State != StateCompleted || row.UserState.Note != HandOffSentNote {
		t.Fatalf("reply row %+v, %v; want completed, noted %q", row.UserState, err, HandOffSentNote)
	}
	var settled int
	if err := s.rdb.Raw("SELECT count(*) FROM reply_drafts WHERE id = 'draft-ana' AND settled_at IS NOT NULL").Scan(&settled).Error; err != nil || settled != 1 {
		t.Fatalf("draft-ana settled: %d, %v", settled, err)
	}
}
