package demo

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/internal/privatefile"
	"hearth/models"
)

// YearDays is how many days a seeded year has.
const YearDays = 365.25

// Hours of a seeded day's publications: one an hour from seven to ten in
// the evening, each after a batch of the hour's Beeper messages.
const (
	seedFirstHour = 7
	seedLastHour  = 22
)

// seedSendsPerDay are the replies sent each seeded day.
const seedSendsPerDay = 5

// seedTrialDays is how long each seeded trial runs before the owner
// starts the routines again (a trial lasts at most models.MaxTrialDays).
const seedTrialDays = 84

// seedAccount is the Beeper account of the seeded chats.
const seedAccount = "whatsapp-demo"

// seedPeople are the owner's contacts in a seeded life; each has a chat.
var seedPeople = func() []struct{ id, name string } {
	first := []string{"Ana", "Tomas", "Mira", "Jonas", "Lea", "Karim", "Sofia", "Ben", "Yuki", "Noah", "Ines", "Pavel"}
	last := []string{"Okafor", "Lindqvist", "Berg", "Weber"}
	var out []struct{ id, name string }
	for i, f := range first {
		l := last[i%len(last)]
		out = append(out, struct{ id, name string }{id: fmt.Sprintf("%s-%s", strings.ToLower(f), strings.ToLower(l)), name: f + " " + l})
	}
	return out
}()

func seedChat(personID string) string { return "!" + personID + ":beeper.local" }

// seedTasks are the titles of a seeded day's suggested tasks.
var seedTasks = []string{"Book the bike service", "Pay the electricity bill", "Buy a birthday present", "Call the dentist",
	"Renew the library books", "Plan the weekend hike", "Fix the kitchen tap", "Order new running shoes",
	"Back up the laptop", "Water the balcony plants", "Answer the landlord's email", "Prepare Tuesday's meeting"}

// seedReplies are the wordings of a seeded day's reply drafts and sends.
var seedReplies = []string{"Sounds good, see you then!", "Thanks, I'll look at it tonight.", "Running ten minutes late, start without me.",
	"Happy to help, just tell me when.", "Saturday works for me.", "Can we move it to next week?"}

// seedMessages are the texts of seeded Beeper messages.
var seedMessages = []string{"Are we still on for Saturday?", "Did you see the photos?", "Can you send me the address?",
	"Thanks again for yesterday!", "Running late, sorry", "What time works for you?", "Look at this article", "Happy birthday!"}

// SeedPlan is what one seed writes.
type SeedPlan struct {
	Days    int
	Seed    uint64
	Horizon time.Duration // observation retention; 0 keeps them all
}

// SeedYears writes plan.Days of one owner's use ending at now into the
// empty data dir, through the store's own services at a seed clock, and
// reports progress, the database's size and rows per table to out.
// It returns what each day's generator wrote, by day.
func SeedYears(ctx context.Context, out io.Writer, dir string, plan SeedPlan, now time.Time) ([]SeedStats, error) {
	start := time.Now()
	clock := &Clock{}
	loc, err := time.LoadLocation(demoZone)
	if err != nil {
		return nil, err
	}
	today := now.In(loc)
	first := time.Date(today.Year(), today.Month(), today.Day()-plan.Days+1, 0, 0, 0, 0, loc)
	clock.set(first.Add(6 * time.Hour))
	store, err := models.Open(ctx, dir, models.Options{Clock: clock.Now, SeedWithoutSync: true})
	if err != nil {
		return nil, err
	}
	defer store.Close()
	if err := store.SetOwnerPassphrase(ctx, demoPassphrase); err != nil {
		return nil, err
	}
	cred, token, err := store.CreateCredential(ctx, "seed-agent", models.AllScopes)
	if err != nil {
		return nil, err
	}
	if err := privatefile.WriteAtomic(demoTokenPath(dir), []byte(token+"\n")); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(plan.Seed, plan.Seed))
	g := &seeder{
		life:  &demoLife{store: store, clock: clock, rng: rng, loc: loc},
		agent: cred.ID,
		now:   now,
		plan:  plan,
	}
	if err := g.begin(ctx, first); err != nil {
		return nil, err
	}
	lastReport := time.Now()
	var perDay []SeedStats
	for i := range plan.Days {
		day := first.AddDate(0, 0, i)
		before := g.stats
		if err := g.day(ctx, day, i); err != nil {
			return nil, fmt.Errorf("seed %s: %w", day.Format(time.DateOnly), err)
		}
		perDay = append(perDay, g.stats.minus(before))
		if (i+1)%365 == 0 || i+1 == plan.Days {
			size, _ := databaseSize(dir)
			fmt.Fprintf(out, "seeded %d of %d days (to %s): %s, database %.1f MB\n", i+1, plan.Days, day.Format(time.DateOnly),
				time.Since(lastReport).Round(time.Second), float64(size)/(1<<20))
			lastReport = time.Now()
		}
	}
	// Today's occurrences exist before the first page, as on any start.
	clock.set(now)
	if _, err := store.EnsureOccurrences(ctx); err != nil {
		return nil, err
	}
	clock.set(time.Time{})
	rows, err := store.CountRows(ctx)
	if err != nil {
		return nil, err
	}
	if err := store.Close(); err != nil {
		return nil, err
	}
	size, err := databaseSize(dir)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(out, "seeded %d days (%.2f years) into %s in %s\n", plan.Days, float64(plan.Days)/YearDays, dir, time.Since(start).Round(time.Second))
	fmt.Fprintf(out, "database: %.1f MB (%.1f MB per year)\n", float64(size)/(1<<20), float64(size)/(1<<20)/(float64(plan.Days)/YearDays))
	fmt.Fprintf(out, "rows per table:\n")
	for _, r := range rows {
		if r.Rows > 0 {
			fmt.Fprintf(out, "  %-28s %9d\n", r.Table, r.Rows)
		}
	}
	fmt.Fprintf(out, "owner passphrase: %s; agent token: %s\n", demoPassphrase, demoTokenPath(dir))
	return perDay, nil
}

// databaseSize is the bytes of the database file and its write-ahead log.
func databaseSize(dir string) (int64, error) {
	var total int64
	for _, suffix := range []string{"", "-wal"} {
		fi, err := os.Stat(filepath.Join(dir, "hearth.db"+suffix))
		if errors.Is(err, os.ErrNotExist) && suffix != "" {
			continue
		}
		if err != nil {
			return 0, err
		}
		total += fi.Size()
	}
	return total, nil
}

// seeder writes a seeded owner's days: the demo's routines (demoLife)
// plus an agent that publishes every hour, Beeper messages it consumes,
// suggestions the owner acts on, replies sent and requests asked.
type seeder struct {
	life  *demoLife
	agent string // the credential the agent publishes with
	now   time.Time
	plan  SeedPlan

	runs     int
	pending  []int64             // observation IDs the next publication consumes
	open     map[string]seedOpen // the agent's suggestions still open, by activity ID
	requests []string            // owner requests the next publication completes
	msgs     int
	// stats count what was written, for the test of a seeded day.
	stats SeedStats
}

// seedOpen is a suggestion left open, retracted by the next morning's brief.
type seedOpen struct {
	draftID string // a reply's draft, retracted with it
}

// SeedStats counts what a seed wrote.
type SeedStats struct {
	Date                                                                                string // the day, for one day's counts
	Publications, Activities, Observations, Sends, Measurements, Requests, OwnerActions int
}

// minus is what was written since before.
func (s SeedStats) minus(before SeedStats) SeedStats {
	return SeedStats{Date: s.Date, Publications: s.Publications - before.Publications, Activities: s.Activities - before.Activities,
		Observations: s.Observations - before.Observations, Sends: s.Sends - before.Sends, Measurements: s.Measurements - before.Measurements,
		Requests: s.Requests - before.Requests, OwnerActions: s.OwnerActions - before.OwnerActions}
}

func (g *seeder) store() *models.Store { return g.life.store }
func (g *seeder) rng() *rand.Rand      { return g.life.rng }

// past says whether t is still before now: a seed never writes the future.
func (g *seeder) past(t time.Time) bool { return t.Before(g.now) }

// begin imports the demo's routine definitions and starts their trials,
// with the weight goal, on the first day.
func (g *seeder) begin(ctx context.Context, first time.Time) error {
	g.open = map[string]seedOpen{}
	body, err := demoResult(g.life.at(first, 6, 30), demoZone)
	if err != nil {
		return err
	}
	var demo map[string]any
	if err := json.Unmarshal(body, &demo); err != nil {
		return err
	}
	p := g.publication(first, "setup")
	p["sourceRefs"] = []any{lifeRef("life-routines", g.life.at(first, 6, 30)), lifeRef("life-health", g.life.at(first, 6, 30))}
	p["routineDefinitions"] = demo["routineDefinitions"]
	g.life.clock.set(g.life.at(first, 6, 30))
	if err := g.publish(ctx, p); err != nil {
		return err
	}
	g.life.clock.set(g.life.at(first, 6, 40))
	if err := g.store().SetWeightGoal(ctx, &contract.WeightGoal{Value: 78, Unit: "kg"}); err != nil {
		return err
	}
	return nil
}

// day writes the i-th seeded day, up to now on today.
func (g *seeder) day(ctx context.Context, day time.Time, i int) error {
	s, l, rng := g.store(), g.life, g.rng()
	if t := l.at(day, 3, 0); g.plan.Horizon > 0 && g.past(t) {
		l.clock.set(t)
		if _, err := s.PruneObservations(ctx, g.plan.Horizon); err != nil {
			return err
		}
	}
	if i%seedTrialDays == 0 && g.past(l.at(day, 6, 50)) {
		l.clock.set(l.at(day, 6, 50))
		if err := l.startTrials(ctx, seedTrialDays); err != nil {
			return err
		}
	}
	date := day.Format(time.DateOnly)
	g.stats.Date = date
	// A slow drift between 76 and 84 kg over the years, ±0.4 kg a day.
	kg := func() float64 { return 80 + 4*math.Sin(float64(i)/200) + 0.4*rng.NormFloat64() }
	sendHours := map[int]bool{}
	for len(sendHours) < seedSendsPerDay {
		sendHours[9+rng.IntN(12)] = true
	}
	var replies []seedReply // today's drafts the owner may send
	for hour := seedFirstHour; hour <= seedLastHour; hour++ {
		at := l.at(day, hour, 0)
		if !g.past(at.Add(59 * time.Minute)) {
			return nil
		}
		if err := g.messages(ctx, at.Add(-5*time.Minute)); err != nil {
			return err
		}
		var made []seedActivity
		var err error
		if hour == seedFirstHour {
			made, err = g.morning(ctx, day, at)
		} else {
			made, err = g.hourly(ctx, day, at, 1+rng.IntN(5))
		}
		if err != nil {
			return err
		}
		if hour == seedFirstHour {
			if err := l.startWork(ctx, day, kg); err != nil {
				return err
			}
		}
		// The owner looks at the hour's suggestions at about half past.
		l.clock.set(l.at(day, hour, 30+rng.IntN(20)))
		for _, a := range made {
			if a.draftID != "" {
				replies = append(replies, seedReply{activity: a.id, draft: a.draftID, chat: a.chat, body: a.body})
				continue
			}
			if err := g.act(ctx, a); err != nil {
				return err
			}
		}
		if sendHours[hour] && len(replies) > 0 {
			r := replies[len(replies)-1]
			replies = replies[:len(replies)-1]
			key := fmt.Sprintf("seed-send-%s-%d", date, hour)
			if err := l.send(ctx, l.at(day, hour, 50), models.SendCommand{SendKey: key, DraftID: r.draft, ChatID: r.chat, Body: r.body, SourceMessageRevision: "1"}); err != nil {
				return err
			}
			// The confirmed send completes the reply.
			g.stats.Sends++
			delete(g.open, r.activity)
		}
		if hour == 17 {
			if err := l.weeklyReview(ctx, day); err != nil {
				return err
			}
		}
		if hour == 20 && i%3 == 2 {
			l.clock.set(l.at(day, 20, 15))
			id := "seed-request-" + date
			body, _ := json.Marshal(map[string]any{"requestId": id, "kind": "note", "text": "Remember that Ana prefers early starts."})
			if err := createRequest(ctx, s, body); err != nil {
				return fmt.Errorf("request %s: %w", id, err)
			}
			g.requests = append(g.requests, id)
			g.stats.Requests++
		}
		if hour == 21 {
			if err := l.windDown(ctx, day); err != nil {
				return err
			}
		}
	}
	return nil
}

// seedReply is a reply draft of today the owner may send.
type seedReply struct{ activity, draft, chat, body string }

// seedActivity is one suggestion a publication made.
type seedActivity struct {
	id, kind, draftID, chat, body string
}

// act is the owner's answer to a suggestion: mostly done, some dismissed,
// the rest left open (the next morning's brief retracts them). A weigh-in
// is always measured.
func (g *seeder) act(ctx context.Context, a seedActivity) error {
	s, rng := g.store(), g.rng()
	var err error
	switch p := rng.Float64(); {
	case a.kind == contract.KindMeasurement:
		// The morning weigh-in is a habit: every day, besides the
		// start-of-work one on most weekdays.
		_, err = s.RecordMeasurement(ctx, a.id, math.Round((80+2*rng.NormFloat64())*10)/10)
		g.stats.Measurements++
	case a.kind == contract.KindRoutine:
		return nil // settled by its steps
	case p < 0.6:
		_, err = s.SetActivityState(ctx, a.id, models.StateCompleted, "", "")
	case p < 0.75:
		_, err = s.SetActivityState(ctx, a.id, models.StateDismissed, "", "")
	default:
		return nil
	}
	if err != nil {
		return fmt.Errorf("act on %s: %w", a.id, err)
	}
	delete(g.open, a.id)
	g.stats.OwnerActions++
	return nil
}

// messages records the last hour's Beeper messages as one batch of
// observations (about 200 a day), the next publication consuming them.
func (g *seeder) messages(ctx context.Context, at time.Time) error {
	rng := g.rng()
	g.life.clock.set(at)
	n := 7 + rng.IntN(12) // 7-18, 12.5 on average
	var items []map[string]any
	for range n {
		person := seedPeople[rng.IntN(len(seedPeople))]
		g.msgs++
		msgID := fmt.Sprintf("m-%d", g.msgs)
		change := contract.ChangeCreated
		if g.msgs > 1 && rng.Float64() < 0.05 {
			msgID = fmt.Sprintf("m-%d", g.msgs-1) // an edit of the one before
			change = contract.ChangeModified
		}
		items = append(items, map[string]any{
			"source": "beeper:" + seedAccount, "ref": seedChat(person.id) + "/" + msgID, "changeType": change, "actor": contract.ActorAgent,
			"payload": map[string]any{"kind": "message", "providerId": msgID, "raw": map[string]any{
				"chatId": seedChat(person.id), "sender": person.name, "text": seedMessages[rng.IntN(len(seedMessages))],
				"timestamp": at.Add(-time.Duration(rng.IntN(55)) * time.Minute).UTC().Format(time.RFC3339), "seq": g.msgs,
			}},
		})
	}
	body, err := json.Marshal(map[string]any{"observations": items})
	if err != nil {
		return err
	}
	outcomes, err := recordObservations(ctx, g.store(), g.agent, body)
	if err != nil {
		return fmt.Errorf("observations: %w", err)
	}
	for _, o := range outcomes {
		if o.Err != nil {
			return fmt.Errorf("observation: %w", o.Err)
		}
		g.pending = append(g.pending, o.Receipt.ObservationID)
		g.stats.Observations++
	}
	return nil
}

// publication is the frame of one of the agent's publications at the
// clock's moment; publish fills in the revision and what it consumes.
func (g *seeder) publication(day time.Time, kind string) map[string]any {
	g.runs++
	return map[string]any{
		"runId":             fmt.Sprintf("seed-%s-%s-%d", day.Format(time.DateOnly), kind, g.runs),
		"jobKey":            "daily-brief",
		"sourceRefs":        []any{},
		"people":            []any{},
		"activities":        []any{},
		"replyDrafts":       []any{},
		"retractions":       []any{},
		"completedRequests": []any{},
	}
}

func lifeRef(id string, at time.Time) map[string]any {
	return map[string]any{"id": id, "kind": "life", "path": "areas/" + id + ".md",
		"contentHash": fmt.Sprintf("sha256:%064x", at.Unix()), "observedAt": at.UTC().Format(time.RFC3339)}
}

func chatRef(id, chat, msg string, at time.Time) map[string]any {
	return map[string]any{"id": id, "kind": "beeper", "accountId": seedAccount, "chatId": chat, "messageId": msg,
		"observedAt": at.UTC().Format(time.RFC3339)}
}

// publish runs the agent's run around publication p: started, published
// at the current revision with the pending observations and requests,
// finished with its receipt.
func (g *seeder) publish(ctx context.Context, p map[string]any) error {
	s := g.store()
	runID := p["runId"].(string)
	if _, err := s.StartRun(ctx, g.agent, contract.RunStartIn{RunID: runID, Job: p["jobKey"].(string), Trigger: contract.TriggerWatch}, costpolicy.Policy{}); err != nil {
		return fmt.Errorf("start run %s: %w", runID, err)
	}
	now := s.Now()
	p["generatedAt"] = now.UTC().Format(time.RFC3339)
	p["expectedRevision"] = s.LatestRevision()
	if len(g.pending) > 0 {
		n := min(len(g.pending), contract.MaxConsumedObservations)
		p["consumedObservations"] = g.pending[:n]
		g.pending = g.pending[n:]
	}
	var done []any
	for _, id := range g.requests {
		done = append(done, map[string]any{"requestId": id, "sourceRefIds": []any{}})
	}
	if done != nil {
		p["completedRequests"] = done
		g.requests = nil
	}
	body, err := json.Marshal(p)
	if err != nil {
		return err
	}
	receipt, _, err := publish(ctx, s, g.agent, body)
	if err != nil {
		return fmt.Errorf("publish %s: %w", runID, err)
	}
	g.stats.Publications++
	g.stats.Activities += len(p["activities"].([]any))
	tokens, cost := int64(20000+g.rng().IntN(30000)), 0.01+0.04*g.rng().Float64()
	if _, err := s.FinishRun(ctx, g.agent, runID, contract.RunFinishIn{Outcome: "succeeded", PublicationRunID: &runID,
		PublicationRevision: &receipt.Revision, DurationMS: int64(30000 + g.rng().IntN(90000)), Tokens: &tokens, CostUSD: &cost}); err != nil {
		return fmt.Errorf("finish run %s: %w", runID, err)
	}
	return nil
}

// morning is the day's first publication at at: the brief, a few people,
// the morning routine with its weigh-in, two replies and two tasks; it
// retracts what yesterday left open.
func (g *seeder) morning(ctx context.Context, day, at time.Time) ([]seedActivity, error) {
	rng := g.rng()
	g.life.clock.set(at)
	date := day.Format(time.DateOnly)
	occ := date + "@" + demoZone
	p := g.publication(day, "brief")
	refs := []any{lifeRef("life-health", at), lifeRef("life-routines", at)}
	var people []any
	for _, k := range rng.Perm(len(seedPeople))[:4] {
		person := seedPeople[k]
		ref := "life-people-" + person.id
		refs = append(refs, lifeRef(ref, at))
		people = append(people, map[string]any{"id": person.id, "name": person.name,
			"context": fmt.Sprintf("%s: %s", person.name, seedMessages[rng.IntN(len(seedMessages))]), "evidenceIds": []any{ref}})
	}
	p["people"] = people
	p["brief"] = map[string]any{"date": date, "timeZone": demoZone, "evidenceIds": []any{"life-health"},
		"text": fmt.Sprintf("Day %s. Weigh in and stretch before coffee, then the replies that wait.", date)}
	var retract []any
	for _, id := range slices.Sorted(maps.Keys(g.open)) {
		retract = append(retract, map[string]any{"kind": "activity", "id": id})
		if d := g.open[id].draftID; d != "" {
			retract = append(retract, map[string]any{"kind": "replyDraft", "id": d})
		}
		if len(retract) >= contract.MaxRetractions-1 {
			break
		}
	}
	for _, r := range retract {
		if r.(map[string]any)["kind"] == "activity" {
			delete(g.open, r.(map[string]any)["id"].(string))
		}
	}
	if retract != nil {
		p["retractions"] = retract
	}
	parent := "morning-routine-" + date
	acts := []any{
		map[string]any{"id": parent, "kind": "routine", "title": "Morning routine", "evidenceIds": []any{"life-health"}, "occurrenceKey": occ,
			"recommendation": map[string]any{"section": "routine", "rank": 1}, "payload": map[string]any{}},
		map[string]any{"id": "weigh-in-" + date, "kind": "measurement", "title": "Weigh in", "evidenceIds": []any{"life-health"}, "parentId": parent,
			"occurrenceKey": occ, "recommendation": map[string]any{"section": "routine", "rank": 1}, "payload": map[string]any{"metric": "weight", "unit": "kg"}},
		map[string]any{"id": "stretch-" + date, "kind": "task", "title": "Stretch for ten minutes", "evidenceIds": []any{"life-health"}, "parentId": parent,
			"occurrenceKey": occ, "recommendation": map[string]any{"section": "routine", "rank": 2}, "payload": map[string]any{}},
		map[string]any{"id": "water-" + date, "kind": "task", "title": "Drink a glass of water", "evidenceIds": []any{"life-health"}, "parentId": parent,
			"occurrenceKey": occ, "recommendation": map[string]any{"section": "routine", "rank": 3}, "payload": map[string]any{}},
	}
	made := []seedActivity{{id: parent, kind: "routine"}, {id: "weigh-in-" + date, kind: "measurement"}, {id: "stretch-" + date, kind: "task"}, {id: "water-" + date, kind: "task"}}
	for _, a := range made {
		g.open[a.id] = seedOpen{}
	}
	p["sourceRefs"] = refs
	p["activities"] = acts
	more := g.suggest(p, day, at, 4)
	return append(made, more...), g.publish(ctx, p)
}

// hourly is a publication of n new suggestions (a reply with its draft
// now and then) at at.
func (g *seeder) hourly(ctx context.Context, day, at time.Time, n int) ([]seedActivity, error) {
	g.life.clock.set(at)
	p := g.publication(day, "messages")
	p["jobKey"] = "messages"
	made := g.suggest(p, day, at, n)
	return made, g.publish(ctx, p)
}

// suggest adds n tasks and replies to publication p.
func (g *seeder) suggest(p map[string]any, day, at time.Time, n int) []seedActivity {
	rng := g.rng()
	date := day.Format(time.DateOnly)
	refs, _ := p["sourceRefs"].([]any)
	acts := p["activities"].([]any)
	var drafts []any
	var made []seedActivity
	for range n {
		g.runs++
		id := fmt.Sprintf("s-%s-%d", date, g.runs)
		section := []string{"focus", "optional"}[rng.IntN(2)]
		if rng.Float64() < 0.3 {
			person := seedPeople[rng.IntN(len(seedPeople))]
			chat, msg := seedChat(person.id), fmt.Sprintf("m-%d", g.msgs)
			ref := "beeper-" + id
			refs = append(refs, chatRef(ref, chat, msg, at))
			draftID := "draft-" + id
			body := seedReplies[rng.IntN(len(seedReplies))]
			acts = append(acts, map[string]any{"id": id, "kind": "reply", "title": "Answer " + person.name, "evidenceIds": []any{ref},
				"personId": person.id, "recommendation": map[string]any{"section": section, "rank": 1 + rng.IntN(9)},
				"payload": map[string]any{"draftId": draftID}})
			drafts = append(drafts, map[string]any{"id": draftID, "personId": person.id, "accountId": seedAccount, "chatId": chat,
				"replyToMessageId": msg, "sourceMessageRevision": "1", "reason": person.name + " asked a question.",
				"candidates": []any{map[string]any{"id": "c1", "style": "warm", "body": body}}, "evidenceIds": []any{ref}})
			if !slices.ContainsFunc(p["people"].([]any), func(x any) bool { return x.(map[string]any)["id"] == person.id }) {
				pref := "life-people-" + person.id + "-" + id
				refs = append(refs, lifeRef(pref, at))
				p["people"] = append(p["people"].([]any), map[string]any{"id": person.id, "name": person.name,
					"context": person.name + " wrote recently.", "evidenceIds": []any{pref}})
			}
			made = append(made, seedActivity{id: id, kind: "reply", draftID: draftID, chat: chat, body: body})
			g.open[id] = seedOpen{draftID: draftID}
			continue
		}
		a := map[string]any{"id": id, "kind": "task", "title": seedTasks[rng.IntN(len(seedTasks))], "evidenceIds": []any{},
			"recommendation": map[string]any{"section": section, "rank": 1 + rng.IntN(9)}, "payload": map[string]any{}}
		if rng.Float64() < 0.5 {
			a["occurrenceKey"] = date + "@" + demoZone
		}
		acts = append(acts, a)
		made = append(made, seedActivity{id: id, kind: "task"})
		g.open[id] = seedOpen{}
	}
	if refs == nil {
		refs = []any{}
	}
	p["sourceRefs"], p["activities"] = refs, acts
	if drafts != nil {
		p["replyDrafts"] = append(p["replyDrafts"].([]any), drafts...)
	}
	return made
}
