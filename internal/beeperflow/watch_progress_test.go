package beeperflow

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"hearth/beeper/beepertest"
	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/models"
)

// recordedRaws reads the raw payloads the watch recorded for chatID, in
// the order they were recorded.
func recordedRaws(t *testing.T, s *models.Store, chatID string) []map[string]any {
	t.Helper()
	db, err := sql.Open("sqlite", "file:"+s.Path()+"?mode=ro")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT raw FROM observations WHERE source = ? AND actor = ? ORDER BY id", "beeper:"+beepertest.AccountID, contract.ActorHearth)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []map[string]any
	for rows.Next() {
		var raw string
		if err := rows.Scan(&raw); err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(raw), &m); err != nil {
			t.Fatal(err)
		}
		if m["chatId"] == chatID {
			out = append(out, m)
		}
	}
	return out
}

func TestTheWatchRecordsAMessageOverTheLimitCutWithANoteAndGoesOn(t *testing.T) {
	s, _, fake, w := watchFixture(t, 0)
	ctx := context.Background()
	// Characters that take more room once escaped, so the cut cannot count on bytes in = bytes out.
	long := strings.Repeat("<\x01é", 7000) // 28,000 bytes of text
	fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", long)
	fake.Incoming(beepertest.TomasChatID, "@tomas:beeper.local", "See you at the shop")
	if n, err := w.Tick(ctx); err != nil || n != 2 {
		t.Fatalf("tick recorded %d, %v; want both messages", n, err)
	}
	ana := recordedRaws(t, s, beepertest.AnaChatID)
	if len(ana) != 1 {
		t.Fatalf("Ana's chat recorded %d messages", len(ana))
	}
	text, _ := ana[0]["text"].(string)
	if len(text) == 0 || !strings.HasPrefix(long, text) || len(text) >= len(long) {
		t.Fatalf("the long message was kept as %d bytes; want a cut prefix of its %d", len(text), len(long))
	}
	cut, _ := ana[0]["textCut"].(map[string]any)
	if cut == nil || cut["originalBytes"] != float64(len(long)) || cut["keptBytes"] != float64(len(text)) {
		t.Fatalf("the note on the cut: %v", ana[0]["textCut"])
	}
	if tomas := recordedRaws(t, s, beepertest.TomasChatID); len(tomas) != 1 {
		t.Fatalf("Tomas's chat recorded %d messages", len(tomas))
	}
	// The watch goes on in the chat that had the long message.
	fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "sorry, cat on the keyboard")
	if n, err := w.Tick(ctx); err != nil || n != 1 {
		t.Fatalf("the next tick recorded %d, %v", n, err)
	}
	if h, _ := s.WatchStatus(ctx); h.Failures != 0 {
		t.Fatalf("health %+v", h)
	}
}

func TestTheWatchRecordsANewChatWithAHostileTitleCutWithANote(t *testing.T) {
	s, _, fake, w := watchFixture(t, 0)
	ctx := context.Background()
	title := strings.Repeat("N", 20<<10)
	fake.AddChat("!noor:beeper.local", title, "hello, it's Noor")
	if n, err := w.Tick(ctx); err != nil || n != 1 {
		t.Fatalf("tick recorded %d, %v", n, err)
	}
	raws := recordedRaws(t, s, "!noor:beeper.local")
	if len(raws) != 1 || raws[0]["text"] != "hello, it's Noor" {
		t.Fatalf("recorded %v", raws)
	}
	if got, _ := raws[0]["chatTitle"].(string); len(got) >= len(title) || raws[0]["chatTitleCut"] == nil {
		t.Fatalf("the title was kept as %d bytes, noted %v", len(got), raws[0]["chatTitleCut"])
	}
}

func TestTheFirstMessagesOfANewChatAreRecordedAndWakeTheJob(t *testing.T) {
	s, _, fake, w := watchFixture(t, 0)
	ctx := context.Background()
	fake.AddChat("!noor:beeper.local", "Noor", "hello, it's Noor")
	fake.Incoming("!noor:beeper.local", "@noor-member:beeper.local", "are you around this week?")
	if n, err := w.Tick(ctx); err != nil || n != 2 {
		t.Fatalf("tick recorded %d, %v; want the new chat's two messages", n, err)
	}
	raws := recordedRaws(t, s, "!noor:beeper.local")
	if len(raws) != 2 || raws[0]["text"] != "hello, it's Noor" || raws[1]["text"] != "are you around this week?" {
		t.Fatalf("recorded %v", raws)
	}
	if wakes, err := s.LeaseWakes(ctx); err != nil || len(wakes) != 1 || wakes[0].JobKey != DefaultWatchJob {
		t.Fatalf("wakes %+v, %v: the new chat's message woke nothing", wakes, err)
	}
}

func TestTheWatchPagesBackToItsCursorHoweverManyMessagesArrived(t *testing.T) {
	s, fake, _, w := beeperReplyWatch(t)
	ctx := context.Background()
	for i := range 420 {
		if i == 10 {
			fake.Incoming(beepertest.AnaChatID, beepertest.SelfID, "8 at the trailhead, see you there!")
		}
		fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", fmt.Sprintf("message %d", i))
	}
	if n, err := w.Tick(ctx); err != nil || n != 421 {
		t.Fatalf("tick recorded %d, %v; want all 421", n, err)
	}
	raws := recordedRaws(t, s, beepertest.AnaChatID)
	if len(raws) != 421 || raws[0]["text"] != "message 0" || raws[10]["text"] != "8 at the trailhead, see you there!" || raws[420]["text"] != "message 419" {
		t.Fatalf("recorded %d messages", len(raws))
	}
	if o, _ := anaDraft(t, s); o == nil || o.Kind != models.DraftReplaced {
		t.Fatalf("the owner's reply among the older messages did not settle the draft: %+v", o)
	}
}

func TestTheWatchSaysItCannotMakeProgressWhenTheStoreRefusesAPass(t *testing.T) {
	s, _, fake, w := watchFixture(t, 0)
	ctx := context.Background()
	db, err := sql.Open("sqlite", "file:"+s.Path())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// A real refusal from the database, not a stand-in store.
	if _, err := db.Exec(`CREATE TRIGGER refuse_observations BEFORE INSERT ON observations BEGIN SELECT RAISE(ABORT, 'refused for the test'); END`); err != nil {
		t.Fatal(err)
	}
	fake.Incoming(beepertest.AnaChatID, "@ana:beeper.local", "hello?")
	for range 3 {
		if _, err := w.Tick(ctx); err == nil {
			t.Fatal("a refused pass was not reported")
		}
	}
	h, err := s.WatchStatus(ctx)
	if err != nil || h.Failures != 3 || !strings.Contains(h.LastError, "refused for the test") {
		t.Fatalf("health %+v, %v; want three failures with the store's reason", h, err)
	}
	if h, _ := s.Home(ctx, costpolicy.Policy{}); h.Runs.WatchFailing == nil || h.Runs.WatchFailing.Failures != 3 {
		t.Fatalf("Home's notice %+v; want the failing watch", h.Runs.WatchFailing)
	}
	if _, err := db.Exec(`DROP TRIGGER refuse_observations`); err != nil {
		t.Fatal(err)
	}
	if n, err := w.Tick(ctx); err != nil || n != 1 {
		t.Fatalf("after the refusal recorded %d, %v", n, err)
	}
	if h, _ := s.Home(ctx, costpolicy.Policy{}); h.Runs.WatchFailing != nil {
		t.Fatalf("Home still says the watch fails: %+v", h.Runs.WatchFailing)
	}
}
