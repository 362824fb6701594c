package models

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"hearth/internal/instant"
	"hearth/internal/strictjson"
)

// Bounds of the routine part of a publication.
const (
	MaxRoutineDefinitions = 100
	MaxRoutineSteps       = 30
	MaxReviews            = 50
	MaxReviewItems        = 20
	MaxProposals          = 10
	MaxRoutineRevision    = 1_000_000
)

// Routine trigger kinds, events, statuses and completion rules (issue 9).
const (
	TriggerDaily  = "daily"
	TriggerWeekly = "weekly"
	TriggerEvent  = "event"

	EventStartWork = "start-work"
	EventEndWork   = "end-work"

	RoutineIdeal     = "ideal"
	RoutineCandidate = "candidate"
	RoutineRetired   = "retired"

	RuleAllRequired = "all-required"
	RuleMinSteps    = "min-steps"
)

// hearthIDPrefix marks activities hearth itself creates (routine
// occurrences); a publication may not use it.
const hearthIDPrefix = "hearth:"

var timeOfDayPattern = regexp.MustCompile(`^([01]\d|2[0-3]):[0-5]\d$`)

// RoutineDefinitionIn is one revision of a routine, as the agent projects it from life.
type RoutineDefinitionIn struct {
	ID             string          `json:"id"`
	Revision       int64           `json:"revision"`
	Title          string          `json:"title"`
	Purpose        string          `json:"purpose"`
	Trigger        TriggerIn       `json:"trigger"`
	Steps          []RoutineStepIn `json:"steps"`
	CompletionRule CompletionRule  `json:"completionRule"`
	Status         string          `json:"status"`
	EvidenceIDs    []string        `json:"evidenceIds"`
}

// TriggerIn says when a routine applies: daily or weekly on ISO weekdays
// (1 Monday … 7 Sunday), or on an event the owner taps on Home.
type TriggerIn struct {
	Kind      string  `json:"kind"`
	Days      []int   `json:"days,omitempty" jsonschema:"minimum=1,maximum=7"`
	Event     *string `json:"event"`
	TimeOfDay *string `json:"timeOfDay"`
}

// RoutineStepIn is one step; it becomes a child activity of each occurrence.
type RoutineStepIn struct {
	ID       string         `json:"id"`
	Title    string         `json:"title"`
	Kind     string         `json:"kind"`
	Required bool           `json:"required"`
	Payload  strictjson.Raw `json:"payload"`

	payload any
}

// StepKinds lists the kinds a routine step may have.
var StepKinds = []string{KindTask, KindMeasurement, KindReply}

// NewStepPayload returns a pointer to a new payload of a step kind's type;
// ok is false for an unknown kind. Like NewActivityPayload, the decoder and
// the JSON Schema share it.
func NewStepPayload(kind string) (payload any, ok bool) {
	switch kind {
	case KindTask:
		return &EmptyPayload{}, true
	case KindMeasurement:
		return &MeasurementPayload{}, true
	case KindReply:
		return &RoutineReplyPayload{}, true
	}
	return nil, false
}

// CompletionRule decides when an occurrence is completed: every required
// step completed, or at least N steps completed.
type CompletionRule struct {
	Kind string `json:"kind" jsonschema:"enum=all-required,enum=min-steps"`
	N    *int   `json:"n,omitempty" jsonschema:"minimum=1"`
}

// RoutineReplyPayload is a routine's reply step: it has no draft (a
// routine recurs; a draft is one message), and completes when the owner
// confirms a send in ChatID (any chat when absent) on the occurrence's day.
type RoutineReplyPayload struct {
	ChatID *string `json:"chatId"`
}

// ReviewIn is the agent's review of a routine revision over a window.
type ReviewIn struct {
	ID            string       `json:"id"`
	RoutineID     string       `json:"routineId"`
	Revision      int64        `json:"revision"`
	Window        WindowIn     `json:"window"`
	Observations  []string     `json:"observations"`
	Uncertainties []string     `json:"uncertainties"`
	Proposals     []ProposalIn `json:"proposals"`
	EvidenceIDs   []string     `json:"evidenceIds"`
}

// WindowIn is an inclusive range of local dates.
type WindowIn struct {
	From string `json:"from" jsonschema:"format=date"`
	To   string `json:"to" jsonschema:"format=date"`
}

// ProposalIn is one change the agent suggests trying next.
type ProposalIn struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// validateRoutines checks the shape of routineDefinitions and reviews.
func (r *Result) validateRoutines(v *validator) {
	if v.count("/routineDefinitions", len(r.RoutineDefinitions), MaxRoutineDefinitions) {
		seen := map[string]bool{}
		for i := range r.RoutineDefinitions {
			d := &r.RoutineDefinitions[i]
			path := fmt.Sprintf("/routineDefinitions/%d", i)
			v.id(path+"/id", d.ID)
			v.unique(seen, path+"/id", fmt.Sprintf("%s@%d", d.ID, d.Revision), "routine revision")
			if d.Revision < 1 || d.Revision > MaxRoutineRevision {
				v.add(path+"/revision", "revision out of range", fmt.Sprintf("integer from 1 to %d", MaxRoutineRevision), fmt.Sprint(d.Revision))
			}
			v.text(path+"/title", d.Title, MaxTitleLen, true)
			v.text(path+"/purpose", d.Purpose, MaxDetailLen, false)
			d.Trigger.validate(v, path+"/trigger")
			d.validateSteps(v, path)
			d.CompletionRule.validate(v, path+"/completionRule", len(d.Steps))
			v.enum(path+"/status", d.Status, []string{RoutineIdeal, RoutineCandidate, RoutineRetired})
			v.evidenceShape(path+"/evidenceIds", d.EvidenceIDs)
		}
	}
	if v.count("/reviews", len(r.Reviews), MaxReviews) {
		seen := map[string]bool{}
		for i, rv := range r.Reviews {
			path := fmt.Sprintf("/reviews/%d", i)
			v.id(path+"/id", rv.ID)
			v.unique(seen, path+"/id", rv.ID, "review")
			v.id(path+"/routineId", rv.RoutineID)
			if rv.Revision < 1 || rv.Revision > MaxRoutineRevision {
				v.add(path+"/revision", "revision out of range", fmt.Sprintf("integer from 1 to %d", MaxRoutineRevision), fmt.Sprint(rv.Revision))
			}
			from, ferr := instant.ParseDate(rv.Window.From)
			to, terr := instant.ParseDate(rv.Window.To)
			switch {
			case ferr != nil:
				v.add(path+"/window/from", ferr.Error(), instant.DateExpected, quoteFound(rv.Window.From))
			case terr != nil:
				v.add(path+"/window/to", terr.Error(), instant.DateExpected, quoteFound(rv.Window.To))
			case to.Before(from) || to.Sub(from) > 366*24*time.Hour:
				v.add(path+"/window", "the window must run forward, at most a year", "from <= to, within 366 days", rv.Window.From+".."+rv.Window.To)
			}
			for _, list := range []struct {
				name  string
				items []string
			}{{"observations", rv.Observations}, {"uncertainties", rv.Uncertainties}} {
				if v.count(path+"/"+list.name, len(list.items), MaxReviewItems) {
					for j, text := range list.items {
						v.text(fmt.Sprintf("%s/%s/%d", path, list.name, j), text, MaxReasonLen, true)
					}
				}
			}
			if v.count(path+"/proposals", len(rv.Proposals), MaxProposals) {
				pseen := map[string]bool{}
				for j, p := range rv.Proposals {
					pp := fmt.Sprintf("%s/proposals/%d", path, j)
					v.id(pp+"/id", p.ID)
					if pseen[p.ID] {
						v.add(pp+"/id", "duplicate proposal ID in this review", "unique IDs", quoteFound(p.ID))
					}
					pseen[p.ID] = true
					v.text(pp+"/text", p.Text, MaxReasonLen, true)
				}
			}
			v.evidenceShape(path+"/evidenceIds", rv.EvidenceIDs)
		}
	}
	for i, a := range r.Activities {
		if strings.HasPrefix(a.ID, hearthIDPrefix) {
			v.add(fmt.Sprintf("/activities/%d/id", i), "IDs starting with hearth: belong to routine occurrences hearth creates",
				"an ID without the hearth: prefix", quoteFound(a.ID))
		}
	}
	for i, rt := range r.Retractions {
		if strings.HasPrefix(rt.ID, hearthIDPrefix) {
			v.add(fmt.Sprintf("/retractions/%d/id", i), "a routine occurrence is the owner's execution record, not the agent's suggestion to withdraw",
				"an ID without the hearth: prefix", quoteFound(rt.ID))
		}
	}
}

func (t *TriggerIn) validate(v *validator, path string) {
	v.enum(path+"/kind", t.Kind, []string{TriggerDaily, TriggerWeekly, TriggerEvent})
	days := map[int]bool{}
	for i, d := range t.Days {
		if d < 1 || d > 7 || days[d] {
			v.add(fmt.Sprintf("%s/days/%d", path, i), "not a distinct ISO weekday", "1 (Monday) to 7 (Sunday), each once", fmt.Sprint(d))
		}
		days[d] = true
	}
	switch t.Kind {
	case TriggerWeekly:
		if len(t.Days) == 0 {
			v.add(path+"/days", "a weekly routine names its days", "1-7 ISO weekdays", "none")
		}
	case TriggerEvent:
		if t.Event == nil {
			v.add(path+"/event", "an event routine names its event", "start-work or end-work", "absent")
		} else {
			v.enum(path+"/event", *t.Event, []string{EventStartWork, EventEndWork})
		}
		if len(t.Days) > 0 {
			v.add(path+"/days", "an event routine applies when its event happens, not on days", "absent", fmt.Sprint(t.Days))
		}
	}
	if t.Kind != TriggerEvent && t.Event != nil {
		v.add(path+"/event", "only an event routine has an event", "absent", quoteFound(*t.Event))
	}
	if t.TimeOfDay != nil && !timeOfDayPattern.MatchString(*t.TimeOfDay) {
		v.add(path+"/timeOfDay", "not a time of day", "HH:MM, 00:00 to 23:59", quoteFound(*t.TimeOfDay))
	}
}

func (d *RoutineDefinitionIn) validateSteps(v *validator, path string) {
	if len(d.Steps) == 0 {
		v.add(path+"/steps", "a routine needs at least one step", fmt.Sprintf("1-%d steps", MaxRoutineSteps), "0 items")
		return
	}
	if !v.count(path+"/steps", len(d.Steps), MaxRoutineSteps) {
		return
	}
	seen := map[string]bool{}
	for j := range d.Steps {
		st := &d.Steps[j]
		sp := fmt.Sprintf("%s/steps/%d", path, j)
		v.id(sp+"/id", st.ID)
		if seen[st.ID] {
			v.add(sp+"/id", "duplicate step ID in this routine", "unique IDs", quoteFound(st.ID))
		}
		seen[st.ID] = true
		v.text(sp+"/title", st.Title, MaxTitleLen, true)
		target, ok := NewStepPayload(st.Kind)
		if !ok {
			v.enum(sp+"/kind", st.Kind, StepKinds)
			continue
		}
		if err := st.Payload.Bind(target); err != nil {
			if shape, ok := err.(*strictjson.ShapeError); ok {
				v.errs = append(v.errs, shape.Errors...)
			} else {
				v.add(sp+"/payload", err.Error(), "object", "")
			}
			continue
		}
		st.payload = target
		switch p := target.(type) {
		case *MeasurementPayload:
			v.enum(sp+"/payload/metric", p.Metric, Metrics)
			v.enum(sp+"/payload/unit", p.Unit, Units)
		case *RoutineReplyPayload:
			if p.ChatID != nil {
				v.text(sp+"/payload/chatId", *p.ChatID, 256, true)
			}
		}
	}
}

func (c *CompletionRule) validate(v *validator, path string, steps int) {
	v.enum(path+"/kind", c.Kind, []string{RuleAllRequired, RuleMinSteps})
	switch {
	case c.Kind == RuleMinSteps && c.N == nil:
		v.add(path+"/n", "a min-steps rule says how many", fmt.Sprintf("integer 1-%d", max(steps, 1)), "absent")
	case c.Kind == RuleMinSteps && (*c.N < 1 || *c.N > max(steps, 1)):
		v.add(path+"/n", "more steps than the routine has, or none", fmt.Sprintf("integer 1-%d", max(steps, 1)), fmt.Sprint(*c.N))
	case c.Kind == RuleAllRequired && c.N != nil:
		v.add(path+"/n", "only a min-steps rule has n", "absent", fmt.Sprint(*c.N))
	}
}

// immutableHash fingerprints what a revision may never change: everything
// but its status and evidence (catalog metadata the agent may update).
func (d *RoutineDefinitionIn) immutableHash() string {
	steps := make([]map[string]any, len(d.Steps))
	for i, s := range d.Steps {
		steps[i] = map[string]any{"id": s.ID, "title": s.Title, "kind": s.Kind, "required": s.Required, "payload": s.payload}
	}
	sum := sha256.Sum256([]byte(jsonText(map[string]any{"title": d.Title, "purpose": d.Purpose, "trigger": d.Trigger,
		"steps": steps, "rule": d.CompletionRule})))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// resolveRoutines checks routine references: evidence (life refs with a
// hash among them, so an imported routine cites its source), revisions that
// would change a stored one, and reviews naming a known routine revision.
func (r *Result) resolveRoutines(tx *gorm.DB, v *validator, pubRefs map[string]bool) error {
	refs := map[string]SourceRefIn{}
	for _, s := range r.SourceRefs {
		refs[s.ID] = s
	}
	pubRevs := map[string]bool{}
	for i := range r.RoutineDefinitions {
		d := &r.RoutineDefinitions[i]
		path := fmt.Sprintf("/routineDefinitions/%d", i)
		pubRevs[fmt.Sprintf("%s@%d", d.ID, d.Revision)] = true
		lifeWithHash := slices.ContainsFunc(d.EvidenceIDs, func(id string) bool {
			ref, ok := refs[id]
			return ok && ref.Kind == "life" && ref.ContentHash != nil
		})
		if !lifeWithHash {
			var n int64
			if err := tx.Model(&SourceRef{}).Where("id IN ? AND kind = 'life' AND content_hash != ''", d.EvidenceIDs).Count(&n).Error; err != nil {
				return err
			}
			if n == 0 {
				v.add(path+"/evidenceIds", "a routine definition cites the life file it was imported from",
					"at least one life source ref with a contentHash", fmt.Sprintf("%d refs, none a hashed life ref", len(d.EvidenceIDs)))
			}
		}
		var stored []string
		if err := tx.Table("routine_definitions").Where("routine_id = ? AND revision = ?", d.ID, d.Revision).Pluck("content_hash", &stored).Error; err != nil {
			return err
		}
		if len(stored) == 1 && stored[0] != d.immutableHash() {
			v.add(path+"/revision", fmt.Sprintf("revision %d of %q is stored with other content; a new revision never overwrites an old one", d.Revision, d.ID),
				"a new revision number, or this revision unchanged (status and evidence may change)", fmt.Sprint(d.Revision))
		}
	}
	for i, rv := range r.Reviews {
		if pubRevs[fmt.Sprintf("%s@%d", rv.RoutineID, rv.Revision)] {
			continue
		}
		var n int64
		if err := tx.Table("routine_definitions").Where("routine_id = ? AND revision = ?", rv.RoutineID, rv.Revision).Count(&n).Error; err != nil {
			return err
		}
		if n == 0 {
			v.add(fmt.Sprintf("/reviews/%d/revision", i), fmt.Sprintf("unknown routine revision %s@%d", rv.RoutineID, rv.Revision),
				"a routine revision in this publication or stored earlier", fmt.Sprint(rv.Revision))
		}
	}
	return nil
}

const upsertRoutineDefinition = `INSERT INTO routine_definitions (routine_id, revision, title, purpose, trigger_kind, trigger_days,
		trigger_event, time_of_day, steps, completion_rule, status, evidence_ids, content_hash, published_revision, created_at, updated_at)
	VALUES VALUES_ROWS
	ON CONFLICT (routine_id, revision) DO UPDATE SET status = excluded.status, evidence_ids = excluded.evidence_ids,
		published_revision = excluded.published_revision, updated_at = excluded.updated_at`

const upsertReview = `INSERT INTO routine_reviews (id, routine_id, revision, window_from, window_to, observations, uncertainties,
		proposals, evidence_ids, metrics, published_revision, created_at, updated_at)
	VALUES VALUES_ROWS
	ON CONFLICT (id) DO UPDATE SET routine_id = excluded.routine_id, revision = excluded.revision, window_from = excluded.window_from,
		window_to = excluded.window_to, observations = excluded.observations, uncertainties = excluded.uncertainties,
		proposals = excluded.proposals, evidence_ids = excluded.evidence_ids, metrics = excluded.metrics,
		published_revision = excluded.published_revision, updated_at = excluded.updated_at`

// applyRoutines stores definitions and reviews; each review keeps the
// counts hearth computed for its window when it arrived.
func (r *Result) applyRoutines(t *txn) error {
	tx, rev, now := t.DB, t.rev, t.now
	rows := make([][]any, 0, len(r.RoutineDefinitions))
	for i := range r.RoutineDefinitions {
		d := &r.RoutineDefinitions[i]
		steps := make([]RoutineStep, len(d.Steps))
		for j, s := range d.Steps {
			steps[j] = RoutineStep{ID: s.ID, Title: s.Title, Kind: s.Kind, Required: s.Required, Payload: []byte(jsonText(s.payload))}
		}
		var event, timeOfDay string
		if d.Trigger.Event != nil {
			event = *d.Trigger.Event
		}
		if d.Trigger.TimeOfDay != nil {
			timeOfDay = *d.Trigger.TimeOfDay
		}
		days := d.Trigger.Days
		if days == nil {
			days = []int{}
		}
		rows = append(rows, []any{d.ID, d.Revision, d.Title, d.Purpose, d.Trigger.Kind, jsonText(days), event, timeOfDay,
			jsonText(steps), jsonText(d.CompletionRule), d.Status, evidenceText(d.EvidenceIDs), d.immutableHash(), rev, now, now})
		t.touch("routine:" + d.ID)
	}
	if err := execRows(tx, upsertRoutineDefinition, rows); err != nil {
		return err
	}
	rows = rows[:0]
	for _, rv := range r.Reviews {
		m, err := routineMetrics(tx, rv.RoutineID, rv.Revision, rv.Window.From, rv.Window.To, now)
		if err != nil {
			return err
		}
		rows = append(rows, []any{rv.ID, rv.RoutineID, rv.Revision, rv.Window.From, rv.Window.To, jsonText(nonNil(rv.Observations)),
			jsonText(nonNil(rv.Uncertainties)), jsonText(rv.Proposals), evidenceText(rv.EvidenceIDs), jsonText(m), rev, now, now})
		t.touch("routine:" + rv.RoutineID)
	}
	return execRows(tx, upsertReview, rows)
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
