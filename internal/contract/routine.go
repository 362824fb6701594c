package contract

import (
	"fmt"
	"regexp"
	"strings"
	"time"

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

// Routine trigger kinds, events, statuses and completion rules.
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

// HearthIDPrefix marks activities hearth itself creates (routine
// occurrences); a publication may not use it.
const HearthIDPrefix = "hearth:"

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

// BoundPayload is Payload bound to its kind's struct (a pointer, as
// NewStepPayload returns it) once ValidateShape has run; nil before.
func (st *RoutineStepIn) BoundPayload() any { return st.payload }

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
func (r *Result) validateRoutines(v *Validator) {
	if v.Count("/routineDefinitions", len(r.RoutineDefinitions), MaxRoutineDefinitions) {
		seen := map[string]bool{}
		for i := range r.RoutineDefinitions {
			d := &r.RoutineDefinitions[i]
			path := fmt.Sprintf("/routineDefinitions/%d", i)
			v.ID(path+"/id", d.ID)
			v.Unique(seen, path+"/id", fmt.Sprintf("%s@%d", d.ID, d.Revision), "routine revision")
			if d.Revision < 1 || d.Revision > MaxRoutineRevision {
				v.Add(path+"/revision", "revision out of range", fmt.Sprintf("integer from 1 to %d", MaxRoutineRevision), fmt.Sprint(d.Revision))
			}
			v.Text(path+"/title", d.Title, MaxTitleLen, true)
			v.Text(path+"/purpose", d.Purpose, MaxDetailLen, false)
			d.Trigger.validate(v, path+"/trigger")
			d.validateSteps(v, path)
			d.CompletionRule.validate(v, path+"/completionRule", len(d.Steps))
			v.Enum(path+"/status", d.Status, []string{RoutineIdeal, RoutineCandidate, RoutineRetired})
			v.evidenceShape(path+"/evidenceIds", d.EvidenceIDs)
		}
	}
	if v.Count("/reviews", len(r.Reviews), MaxReviews) {
		seen := map[string]bool{}
		for i, rv := range r.Reviews {
			path := fmt.Sprintf("/reviews/%d", i)
			v.ID(path+"/id", rv.ID)
			v.Unique(seen, path+"/id", rv.ID, "review")
			v.ID(path+"/routineId", rv.RoutineID)
			if rv.Revision < 1 || rv.Revision > MaxRoutineRevision {
				v.Add(path+"/revision", "revision out of range", fmt.Sprintf("integer from 1 to %d", MaxRoutineRevision), fmt.Sprint(rv.Revision))
			}
			from, ferr := instant.ParseDate(rv.Window.From)
			to, terr := instant.ParseDate(rv.Window.To)
			switch {
			case ferr != nil:
				v.Add(path+"/window/from", ferr.Error(), instant.DateExpected, QuoteFound(rv.Window.From))
			case terr != nil:
				v.Add(path+"/window/to", terr.Error(), instant.DateExpected, QuoteFound(rv.Window.To))
			case to.Before(from) || to.Sub(from) > 366*24*time.Hour:
				v.Add(path+"/window", "the window must run forward, at most a year", "from <= to, within 366 days", rv.Window.From+".."+rv.Window.To)
			}
			for _, list := range []struct {
				name  string
				items []string
			}{{"observations", rv.Observations}, {"uncertainties", rv.Uncertainties}} {
				if v.Count(path+"/"+list.name, len(list.items), MaxReviewItems) {
					for j, text := range list.items {
						v.Text(fmt.Sprintf("%s/%s/%d", path, list.name, j), text, MaxReasonLen, true)
					}
				}
			}
			if v.Count(path+"/proposals", len(rv.Proposals), MaxProposals) {
				pseen := map[string]bool{}
				for j, p := range rv.Proposals {
					pp := fmt.Sprintf("%s/proposals/%d", path, j)
					v.ID(pp+"/id", p.ID)
					if pseen[p.ID] {
						v.Add(pp+"/id", "duplicate proposal ID in this review", "unique IDs", QuoteFound(p.ID))
					}
					pseen[p.ID] = true
					v.Text(pp+"/text", p.Text, MaxReasonLen, true)
				}
			}
			v.evidenceShape(path+"/evidenceIds", rv.EvidenceIDs)
		}
	}
	for i, a := range r.Activities {
		if strings.HasPrefix(a.ID, HearthIDPrefix) {
			v.Add(fmt.Sprintf("/activities/%d/id", i), "IDs starting with hearth: belong to routine occurrences hearth creates",
				"an ID without the hearth: prefix", QuoteFound(a.ID))
		}
	}
	for i, rt := range r.Retractions {
		if strings.HasPrefix(rt.ID, HearthIDPrefix) {
			v.Add(fmt.Sprintf("/retractions/%d/id", i), "a routine occurrence is the owner's execution record, not the agent's suggestion to withdraw",
				"an ID without the hearth: prefix", QuoteFound(rt.ID))
		}
	}
}

func (t *TriggerIn) validate(v *Validator, path string) {
	v.Enum(path+"/kind", t.Kind, []string{TriggerDaily, TriggerWeekly, TriggerEvent})
	days := map[int]bool{}
	for i, d := range t.Days {
		if d < 1 || d > 7 || days[d] {
			v.Add(fmt.Sprintf("%s/days/%d", path, i), "not a distinct ISO weekday", "1 (Monday) to 7 (Sunday), each once", fmt.Sprint(d))
		}
		days[d] = true
	}
	switch t.Kind {
	case TriggerWeekly:
		if len(t.Days) == 0 {
			v.Add(path+"/days", "a weekly routine names its days", "1-7 ISO weekdays", "none")
		}
	case TriggerEvent:
		if t.Event == nil {
			v.Add(path+"/event", "an event routine names its event", "start-work or end-work", "absent")
		} else {
			v.Enum(path+"/event", *t.Event, []string{EventStartWork, EventEndWork})
		}
		if len(t.Days) > 0 {
			v.Add(path+"/days", "an event routine applies when its event happens, not on days", "absent", fmt.Sprint(t.Days))
		}
	}
	if t.Kind != TriggerEvent && t.Event != nil {
		v.Add(path+"/event", "only an event routine has an event", "absent", QuoteFound(*t.Event))
	}
	if t.TimeOfDay != nil && !timeOfDayPattern.MatchString(*t.TimeOfDay) {
		v.Add(path+"/timeOfDay", "not a time of day", "HH:MM, 00:00 to 23:59", QuoteFound(*t.TimeOfDay))
	}
}

func (d *RoutineDefinitionIn) validateSteps(v *Validator, path string) {
	if len(d.Steps) == 0 {
		v.Add(path+"/steps", "a routine needs at least one step", fmt.Sprintf("1-%d steps", MaxRoutineSteps), "0 items")
		return
	}
	if !v.Count(path+"/steps", len(d.Steps), MaxRoutineSteps) {
		return
	}
	seen := map[string]bool{}
	for j := range d.Steps {
		st := &d.Steps[j]
		sp := fmt.Sprintf("%s/steps/%d", path, j)
		v.ID(sp+"/id", st.ID)
		if seen[st.ID] {
			v.Add(sp+"/id", "duplicate step ID in this routine", "unique IDs", QuoteFound(st.ID))
		}
		seen[st.ID] = true
		v.Text(sp+"/title", st.Title, MaxTitleLen, true)
		target, ok := NewStepPayload(st.Kind)
		if !ok {
			v.Enum(sp+"/kind", st.Kind, StepKinds)
			continue
		}
		if !st.Payload.Present() {
			continue // the decoder reported it missing
		}
		if err := st.Payload.Bind(target); err != nil {
			if shape, ok := err.(*strictjson.ShapeError); ok {
				v.Errs = append(v.Errs, shape.Errors...)
			} else {
				v.Add(sp+"/payload", err.Error(), "object", "")
			}
			continue
		}
		st.payload = target
		switch p := target.(type) {
		case *MeasurementPayload:
			v.Enum(sp+"/payload/metric", p.Metric, Metrics)
			v.Enum(sp+"/payload/unit", p.Unit, Units)
		case *RoutineReplyPayload:
			if p.ChatID != nil {
				v.Text(sp+"/payload/chatId", *p.ChatID, 256, true)
			}
		}
	}
}

func (c *CompletionRule) validate(v *Validator, path string, steps int) {
	v.Enum(path+"/kind", c.Kind, []string{RuleAllRequired, RuleMinSteps})
	switch {
	case c.Kind == RuleMinSteps && c.N == nil:
		v.Add(path+"/n", "a min-steps rule says how many", fmt.Sprintf("integer 1-%d", max(steps, 1)), "absent")
	case c.Kind == RuleMinSteps && (*c.N < 1 || *c.N > max(steps, 1)):
		v.Add(path+"/n", "more steps than the routine has, or none", fmt.Sprintf("integer 1-%d", max(steps, 1)), fmt.Sprint(*c.N))
	case c.Kind == RuleAllRequired && c.N != nil:
		v.Add(path+"/n", "only a min-steps rule has n", "absent", fmt.Sprint(*c.N))
	}
}
