package models

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/internal/storetest"
)

// growingTables gain rows with every day of use; a read on a hot path that
// scans one of them gets slower for ever. Tables of bounded size (the
// workspace row, the one brief, the owner's people, credentials, sessions,
// definitions, schedules, watch state, settings; backup drills, one a day
// and read newest first) may be scanned.
var growingTables = []string{
	"receipts", "source_refs", "activities", "activity_states", "activity_decisions",
	"draft_edits", "reply_drafts", "reply_actions", "measurements", "sends", "requests",
	"routine_occurrences", "routine_outcomes", "routine_reviews", "observations",
	"schedule_occurrences", "schedule_journal", "runs", "run_invocations", "owner_client_keys",
}

// planRecorder keeps every statement GORM runs while it is on, with its
// arguments, so a test can ask SQLite how it would run each one.
type planRecorder struct {
	mu    sync.Mutex
	on    bool
	cur   string // the hot path being recorded
	stmts []recordedStmt
}

type recordedStmt struct {
	path string // the hot path that ran it
	sql  string
	vars []any
}

func (r *planRecorder) install(t testing.TB, dbs ...*gorm.DB) {
	t.Helper()
	record := func(tx *gorm.DB) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if !r.on || tx.Statement.SQL.Len() == 0 {
			return
		}
		r.stmts = append(r.stmts, recordedStmt{path: r.cur, sql: tx.Statement.SQL.String(), vars: slices.Clone(tx.Statement.Vars)})
	}
	for i, db := range dbs {
		cb := db.Callback()
		name := fmt.Sprintf("hearth:plan-%d", i)
		for _, err := range []error{
			cb.Query().After("gorm:query").Register(name, record),
			cb.Row().After("gorm:row").Register(name, record),
			cb.Raw().After("gorm:raw").Register(name, record),
			cb.Create().After("gorm:create").Register(name, record),
			cb.Update().After("gorm:update").Register(name, record),
			cb.Delete().After("gorm:delete").Register(name, record),
		} {
			if err != nil {
				t.Fatal(err)
			}
		}
	}
}

// during records the statements fn runs under the name of a hot path.
func (r *planRecorder) during(path string, fn func() error) error {
	r.mu.Lock()
	r.on, r.cur = true, path
	r.mu.Unlock()
	err := fn()
	r.mu.Lock()
	r.on = false
	r.mu.Unlock()
	return err
}

// fullScan matches a plan step that reads a whole table: "SCAN t" (with or
// without an index, which only orders the scan) as opposed to "SEARCH t
// USING INDEX …", which reads the matching rows.
var fullScan = regexp.MustCompile(`^SCAN (\w+)`)

// wholeByDesign are reads of a growing table that show all of it, and
// grow slowly: the Routines page lists every review of every routine, and a
// routine gets about one review a week.
var wholeByDesign = map[string]bool{
	"Routines routine_reviews": true,
}

// scanOfIndex names the index a scan reads.
var scanOfIndex = regexp.MustCompile(`^SCAN \w+ USING (?:COVERING )?INDEX (\w+)`)

// indexOf names the index a plan step reads, if any.
func indexOf(step string) string {
	if m := usingIndex.FindStringSubmatch(step); m != nil {
		return m[1]
	}
	return ""
}

var usingIndex = regexp.MustCompile(`USING (?:COVERING )?INDEX (\w+)`)

// rowidRange matches a search of a table by a range of its rowid alone.
var rowidRange = regexp.MustCompile(`^SEARCH (\w+) USING INTEGER PRIMARY KEY \(rowid[<>]=?\?\)$`)

// limitClause matches a statement that stops after a fixed number of rows.
var limitClause = regexp.MustCompile(`(?i)\bLIMIT\s+(\d+|\?)\s*$`)

// limitedSubquery matches a subquery read in an index's order and stopped
// by its own LIMIT (the newest few runs): it reads only the rows it returns.
var limitedSubquery = regexp.MustCompile(`(?i)\(SELECT [^()]* FROM (\w+)(?: WHERE [^()]*)? ORDER BY [^()]* LIMIT \d+\)`)

// anyRow matches an EXISTS of a whole table, which reads its first row.
var anyRow = regexp.MustCompile(`(?i)EXISTS \(SELECT 1 FROM (\w+)\)`)

// boundedDraftIndex matches a read of reply_drafts that touches only live
// drafts (the partial index reply_drafts_live), those settled after a
// cutoff, one draft by ID, or the drafts of given runs (run fates name the
// runs of their window, which bound the read). A search of retracted_at IS
// NULL (every draft not retracted: each one ever sent, 9,028 after five
// seeded years) or of a chat's drafts is a read of history, though its plan
// says SEARCH.
var boundedDraftIndex = regexp.MustCompile(`USING (?:COVERING )?INDEX (?:reply_drafts_live\b|reply_drafts_settled \(settled_at>\?\)|` +
	`reply_drafts_chat_settled \(chat_id=\? AND settled_at(?:=|>)\?\)|sqlite_autoindex_reply_drafts_1 \(id=\?\)|` +
	`reply_drafts_published \(published_run_id=\?\))`)

// newestDraftOfChat is the one read of a chat's drafts by reply_drafts_chat
// that stays bounded: its newest draft, the index walked backwards to LIMIT 1.
var newestDraftOfChat = regexp.MustCompile(`USING INDEX reply_drafts_chat \(chat_id=\?\)`)

// plansDays is how many days of use seedForPlans's database holds.
const plansDays = 120

// plansTemplate is seedForPlans's database, seeded once per test binary
// and copied per test: seeding it took most of a minute under -race, and
// four tests read it.
var plansTemplate = &storetest.Template{Name: "models-plans", Build: func(ctx context.Context, dir string, clock *storetest.Clock) (string, error) {
	s, err := Open(ctx, dir, Options{Clock: clock.Now})
	if err != nil {
		return "", err
	}
	if err := seedPlans(ctx, s, clock); err != nil {
		s.Close()
		return "", err
	}
	return s.Path(), s.Close()
}}

// seedForPlans opens a copy of a database with history in every growing
// table the hot paths read, and ANALYZE statistics, so the planner chooses
// as it would after months of use rather than on empty tables. Its clock
// stands where the seed ended.
func seedForPlans(t *testing.T) (*Store, *storetest.Clock) {
	t.Helper()
	dir := t.TempDir()
	plansTemplate.CopyTo(t, DatabasePath(dir))
	now := storetest.NewClock(storetest.Start.Add(plansDays * 24 * time.Hour))
	s, err := Open(context.Background(), dir, Options{Clock: now.Now})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, now
}

// seedPlans writes plansDays days of use into s, a few items a day, moving
// now a day at a time: the planner's statistics then look like long use
// (most rows older than any window a page reads). Each day's publication
// is a run's (what its work became is read by run).
func seedPlans(ctx context.Context, s *Store, now *storetest.Clock) error {
	const perDay = 8
	for day := 0; day < plansDays; day++ {
		if _, err := s.StartRun(ctx, "cred-test", contract.RunStartIn{RunID: fmt.Sprintf("plan-%03d", day), Job: "daily-brief", Trigger: contract.TriggerManual}, costpolicy.Policy{}); err != nil {
			return err
		}
		rev, err := s.Revision(ctx)
		if err != nil {
			return err
		}
		p := newPub(fmt.Sprintf("plan-%03d-1", day), rev)
		if day == 0 {
			p.Add("routineDefinitions", routineDef("morning", 1))
		} else {
			p.Add("completedRequests", map[string]any{"requestId": fmt.Sprintf("r%03d", day-1), "sourceRefIds": []any{"life-1"}})
		}
		for j := 0; j < perDay; j++ {
			p.Add("activities", task(fmt.Sprintf("a%03d-%d", day, j)))
		}
		p.Add("people", person(fmt.Sprintf("p%03d", day)))
		d := draft(fmt.Sprintf("d%03d", day), "Sounds good.")
		d["chatId"], d["personId"] = fmt.Sprintf("chat-%03d", day), fmt.Sprintf("p%03d", day)
		p.Add("replyDrafts", d)
		if _, _, err := publish(s, ctx, "cred-test", p.JSON()); err != nil {
			return fmt.Errorf("publish day %d: %w", day, err)
		}
		for j := 0; j < perDay-2; j++ {
			state := "completed"
			if j%3 == 0 {
				state = "dismissed"
			}
			if _, err := s.SetActivityState(ctx, fmt.Sprintf("a%03d-%d", day, j), state, "", ""); err != nil {
				return err
			}
		}
		items := make([]any, perDay)
		for j := range items {
			items[j] = map[string]any{"source": "beeper:chat-1", "ref": fmt.Sprintf("m%03d-%d", day, j), "changeType": "created", "actor": "agent",
				"payload": map[string]any{"kind": "message", "providerId": "beeper", "raw": map[string]any{"text": "hello"}}}
		}
		body, _ := json.Marshal(map[string]any{"observations": items})
		if _, err := postObservationBatch(s, ctx, "cred-test", body); err != nil {
			return err
		}
		if day%14 == 0 {
			if _, err := s.StartTrial(ctx, TrialCommand{RoutineID: "morning", Revision: 1, WindowDays: 14}); err != nil {
				return err
			}
		}
		if _, err := s.EnsureOccurrences(ctx); err != nil {
			return err
		}
		if _, _, err := createRequest(s, ctx, []byte(fmt.Sprintf(`{"requestId":"r%03d","kind":"note","text":"hi"}`, day))); err != nil {
			return err
		}
		if _, err := s.DecideNoReplyNeeded(ctx, ChatDecision{ChatID: fmt.Sprintf("chat-%03d", day), AccountID: "acc"}); err != nil {
			return err
		}
		now.Advance(24 * time.Hour)
	}
	return s.db.Exec("ANALYZE").Error
}

// TestHotPathsNeverScanAGrowingTable runs every hot path (Home and its row,
// the agent context and each of its pages, publish, the wake-up channel,
// due schedules, People's reads, Messages' draft lookup, Routines, Runs) on
// a database with
// history, records each statement it runs, and fails on any plan step that
// scans a table that grows with use. An OR without parentheses that turned
// an indexed lookup into a scan of every activity ever published is the
// defect this guards against.
func TestHotPathsNeverScanAGrowingTable(t *testing.T) {
	s, _ := seedForPlans(t)
	ctx := context.Background()
	rec := &planRecorder{}
	rec.install(t, s.db, s.rdb)

	paths := []struct {
		name string
		run  func() error
	}{
		{"Home", func() error { _, err := s.Home(ctx, costpolicy.Policy{}); return err }},
		{"HomeRow", func() error { _, _, err := s.HomeRow(ctx, "a119-7"); return err }},
		{"Today", func() error { _, err := s.Today(ctx); return err }},
		{"AgentContext", func() error { _, err := s.AgentContext(ctx); return err }},
		{"CompactContext", func() error { _, err := s.CompactContext(ctx); return err }},
		{"Publish", func() error {
			p := newPub("plan-publish", mustRevision(t, s)).Add("activities", task("fresh"))
			_, _, err := publish(s, ctx, "cred-test", p.JSON())
			return err
		}},
		{"MarkDirty", func() error { return s.MarkDirty(ctx, "messages", "new message", 0) }},
		{"LeaseWakes", func() error { _, err := s.LeaseWakes(ctx); return err }},
		{"NextWakeAt", func() error { _, _, err := s.NextWakeAt(ctx); return err }},
		{"DueSchedules", func() error { _, err := s.DueSchedules(ctx, s.Now()); return err }},
		{"ChatPeople", func() error { _, err := s.ChatPeople(ctx, []string{"chat-100", "chat-101"}); return err }},
		{"Person", func() error { _, err := s.Person(ctx, "p100"); return err }},
		{"ChatDrafts", func() error { _, err := s.ChatDrafts(ctx, "chat-100"); return err }},
		{"ChatDraft", func() error { _, err := s.ChatDraft(ctx, "chat-100", "d100"); return err }},
		{"People", func() error { _, err := s.People(ctx); return err }},
		{"FollowedSends", func() error { _, err := s.FollowedSends(ctx); return err }},
		{"OwedReplies", func() error { _, err := s.OwedReplies(ctx); return err }},
		{"Routines", func() error { _, err := s.Routines(ctx); return err }},
		{"Runs", func() error { _, err := s.Runs(ctx); return err }},
	}
	for _, c := range contract.ContextCollections {
		paths = append(paths, struct {
			name string
			run  func() error
		}{"ContextPage " + c, func() error { _, err := s.ContextPage(ctx, c, ""); return err }})
	}
	for _, p := range paths {
		if err := rec.during(p.name, p.run); err != nil {
			t.Fatalf("%s: %v", p.name, err)
		}
	}

	// A scan of a partial index reads only the rows its WHERE admits (open
	// drafts, proposal answers), which do not grow with history.
	var partial []string
	if err := s.rdb.Raw(`SELECT name FROM sqlite_master WHERE type = 'index' AND sql LIKE '% WHERE %'`).Scan(&partial).Error; err != nil {
		t.Fatal(err)
	}
	var draftIndexes []string
	if err := s.rdb.Raw(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'reply_drafts'`).Scan(&draftIndexes).Error; err != nil {
		t.Fatal(err)
	}
	ran := map[string]int{}
	for _, st := range rec.stmts {
		ran[st.path]++
		if !strings.HasPrefix(strings.TrimSpace(strings.ToUpper(st.sql)), "SELECT") &&
			!strings.HasPrefix(strings.TrimSpace(strings.ToUpper(st.sql)), "WITH") {
			continue // writes go through their key; their plans are SEARCH by construction
		}
		rows, err := s.rsqlDB.QueryContext(ctx, "EXPLAIN QUERY PLAN "+st.sql, st.vars...)
		if err != nil {
			t.Fatalf("%s: explain %q: %v", st.path, st.sql, err)
		}
		var steps []string
		for rows.Next() {
			var id, parent, notUsed int
			var detail string
			if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
				t.Fatal(err)
			}
			steps = append(steps, detail)
		}
		rows.Close()
		// A sort of only the last ORDER BY term (ties of the index's order)
		// still streams in index order and stops at the LIMIT.
		limited := limitClause.MatchString(st.sql) && !slices.ContainsFunc(steps, func(s string) bool {
			return strings.HasPrefix(s, "USE TEMP B-TREE") && !strings.Contains(s, "LAST TERM OF ORDER BY")
		})
		bounded := map[string]bool{}
		for _, m := range limitedSubquery.FindAllStringSubmatch(st.sql, -1) {
			bounded[m[1]] = true
		}
		for _, m := range anyRow.FindAllStringSubmatch(st.sql, -1) {
			bounded[m[1]] = true
		}
		for _, step := range steps {
			// A range of the rowid alone (a page's cursor, id > ?) walks from
			// the cursor to the newest row: every row ever for a first page,
			// LIMIT or not, when the window's filter keeps only a few.
			if m := rowidRange.FindStringSubmatch(step); m != nil && slices.Contains(growingTables, m[1]) {
				t.Errorf("%s walks %s from a cursor to its newest row:\n  %s\n  plan: %s", st.path, m[1], st.sql, strings.Join(steps, " | "))
				continue
			}
			if limited && strings.Contains(step, " USING ") {
				continue // an index read in order, stopped by LIMIT: reads only the rows it returns
			}
			if m := fullScan.FindStringSubmatch(step); m != nil && bounded[m[1]] && strings.Contains(step, " USING ") {
				continue // stopped by its subquery's LIMIT or by EXISTS at the first row
			}
			if m := scanOfIndex.FindStringSubmatch(step); m != nil && slices.Contains(partial, m[1]) {
				continue
			}
			if m := fullScan.FindStringSubmatch(step); m != nil && slices.Contains(growingTables, m[1]) && !wholeByDesign[st.path+" "+m[1]] {
				t.Errorf("%s scans %s, which grows with use:\n  %s\n  plan: %s", st.path, m[1], st.sql, strings.Join(steps, " | "))
			}
			if slices.Contains(draftIndexes, indexOf(step)) && !boundedDraftIndex.MatchString(step) &&
				!(newestDraftOfChat.MatchString(step) && strings.Contains(st.sql, "LIMIT 1")) {
				t.Errorf("%s reads reply drafts beyond the live and recent ones:\n  %s\n  plan: %s", st.path, st.sql, strings.Join(steps, " | "))
			}
		}
	}
	// A path that ran no statement was not tested: the recorder missed it.
	for _, p := range paths {
		if ran[p.name] == 0 {
			t.Errorf("%s ran no recorded statement", p.name)
		}
	}
}

// TestHomeNewestValuesNeverBuildTheSetOfEveryValue: Home reads each
// metric's newest 30 current values. NOT IN (SELECT supersedes_id …)
// built the set of every value of the metric ever recorded (2,917 daily
// weigh-ins after five seeded years) before the LIMIT applied; a lookup
// per row walked newest first stops at 30.
func TestHomeNewestValuesNeverBuildTheSetOfEveryValue(t *testing.T) {
	s, _ := seedForPlans(t)
	ctx := context.Background()
	rec := &planRecorder{}
	rec.install(t, s.db, s.rdb)
	if err := rec.during("recentMeasurements", func() error {
		return s.Read(ctx, func(tx *gorm.DB) error { _, err := recentMeasurements(tx, []string{"weight"}); return err })
	}); err != nil {
		t.Fatal(err)
	}
	if len(rec.stmts) == 0 {
		t.Fatal("recentMeasurements ran no recorded statement")
	}
	for _, st := range rec.stmts {
		rows, err := s.rsqlDB.QueryContext(ctx, "EXPLAIN QUERY PLAN "+st.sql, st.vars...)
		if err != nil {
			t.Fatal(err)
		}
		var steps []string
		for rows.Next() {
			var id, parent, notUsed int
			var detail string
			if err := rows.Scan(&id, &parent, &notUsed, &detail); err != nil {
				t.Fatal(err)
			}
			steps = append(steps, detail)
		}
		rows.Close()
		if slices.ContainsFunc(steps, func(s string) bool { return strings.HasPrefix(s, "LIST SUBQUERY") }) {
			t.Errorf("the newest values build a list before the LIMIT:\n  %s\n  plan: %s", st.sql, strings.Join(steps, " | "))
		}
	}
}
