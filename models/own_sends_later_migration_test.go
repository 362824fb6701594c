package models

import (
	"context"
	"database/sql"
	"path/filepath"
	"testing"
	"time"

	"github.com/pressly/goose/v3"

	"hearth/migrations"
)

func TestMigration36KeepsTheDraftsSendsLaterDownAndUp(t *testing.T) {
	s, clock := newTestStore(t)
	publishAnaReply(t, s)
	ctx := context.Background()
	due := clock.Now().Add(time.Hour)
	scheduleAna(t, s, "later-1", due)
	own := SendTarget{ChatID: anaChat}
	if _, err := s.ScheduleSend(ctx, own, ScheduleCommand{SendCommand: SendCommand{SendKey: "own-1", ChatID: anaChat, Body: "Hi!"}, DueAt: due}); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(s.Path())
	s.Close()

	db, err := sql.Open("sqlite", fileURI(DatabasePath(dir))+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, migrations.FS)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.DownTo(ctx, 30); err != nil {
		t.Fatal(err)
	}
	var keys []string
	rows, err := db.Query(`SELECT send_key FROM scheduled_sends ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, k)
	}
	rows.Close()
	// Before 00036 a send later needs a draft: the own one cannot stay.
	if len(keys) != 1 || keys[0] != "later-1" {
		t.Fatalf("down to 30 the table holds %v, want the draft's send only", keys)
	}
	if _, err := p.Up(ctx); err != nil {
		t.Fatal(err)
	}
	db.Close()

	s, err = Open(ctx, dir, Options{Clock: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sc, ok, err := s.ScheduledSendByKey(ctx, "later-1")
	if err != nil || !ok || sc.State != ScheduleWaiting || string(sc.DraftID) != "draft-ana" || !sc.DueAt.Equal(due) {
		t.Fatalf("after down and up: %+v %v %v", sc, ok, err)
	}
}
