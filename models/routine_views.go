package models

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"gorm.io/gorm"

	"hearth/internal/contract"
	"hearth/internal/ids"
)

// RoutinesView is the Routines page: the catalog with each routine's
// revisions, trials, counts and reviews, read in one transaction.
type RoutinesView struct {
	Revision int64
	Day      Day
	Routines []RoutineCard
}

// RoutineCard is one routine: its current revision, where it stands
// (ideal, candidate, active, retired), its history and what was recorded.
type RoutineCard struct {
	ID        string
	Current   contract.RoutineRevisionView
	Revisions []contract.RoutineRevisionView // newest first
	// Standing is "active" while a trial runs, else the current revision's status.
	Standing    string
	ActiveTrial *contract.TrialView
	Trials      []contract.TrialView // newest first, each with its counts (a named period)
	Reviews     []ReviewView
	Evidence    []EvidenceChip
	// RecordableDays are earlier planned days of the current review window
	// without an outcome, for "I did it yesterday".
	RecordableDays []string
}

// TrialName is how the page names the trial's period.
func TrialName(t contract.TrialView) string {
	return fmt.Sprintf("r%d, %s to %s", t.Revision, t.StartsOn, trialLastDay(t))
}

// trialLastDay is the trial's window end, or the day it was ended early.
func trialLastDay(t contract.TrialView) string { return lastDay(t.EndsOn, t.EndedOn) }

// ReviewView is an agent review with the counts it was based on and the
// owner's decision on each proposal.
type ReviewView struct {
	ID            string                  `json:"id"`
	RoutineID     string                  `json:"routineId"`
	Revision      int64                   `json:"revision"`
	Window        contract.WindowIn       `json:"window"`
	Observations  []string                `json:"observations"`
	Uncertainties []string                `json:"uncertainties"`
	Proposals     []ProposalView          `json:"proposals"`
	EvidenceIDs   []string                `json:"evidenceIds"`
	BasedOn       contract.RoutineMetrics `json:"basedOn"`
	// Current are the counts of the same window now (late records, days
	// that ended since), to show beside BasedOn when they differ.
	Current     contract.RoutineMetrics `json:"-"`
	PublishedAt time.Time               `json:"publishedAt"`
}

// ProposalView is a proposal and the owner's decision, if any.
type ProposalView struct {
	ID       string `json:"id"`
	Text     string `json:"text"`
	Decision string `json:"decision,omitempty"` // adopt, modify, reject
	Words    string `json:"words,omitempty"`    // the owner's own words (modify) or note
	Request  string `json:"requestId,omitempty"`
	// Status is the routine-change request's: pending until a publication completes it.
	Status string `json:"status,omitempty"`
}

func (d RoutineDefinition) View() contract.RoutineRevisionView {
	v := contract.RoutineRevisionView{RoutineID: d.RoutineID, Revision: d.Revision, Title: d.Title, Purpose: d.Purpose, Status: d.Status,
		Trigger: contract.TriggerView{Kind: d.TriggerKind, Event: d.TriggerEvent, TimeOfDay: d.TimeOfDay}, EvidenceIDs: evidenceList(d.EvidenceIDs),
		PublishedAt: d.UpdatedAt}
	_ = json.Unmarshal([]byte(d.TriggerDays), &v.Trigger.Days)
	_ = json.Unmarshal([]byte(d.Steps), &v.Steps)
	_ = json.Unmarshal([]byte(d.CompletionRule), &v.Rule)
	return v
}

func (t RoutineTrial) View() contract.TrialView {
	v := contract.TrialView{ID: t.ID, RoutineID: t.RoutineID, Revision: t.Revision, StartsOn: t.StartsOn, EndsOn: t.EndsOn, EndedOn: t.EndedOn,
		State: t.State, Zone: t.Zone}
	_ = json.Unmarshal([]byte(t.Days), &v.Days)
	return v
}

// Routines reads the Routines page.
func (s *Store) Routines(ctx context.Context) (RoutinesView, error) {
	var v RoutinesView
	err := s.Read(ctx, func(tx *gorm.DB) error {
		now := s.clock()
		var err error
		if v.Revision, err = WorkspaceRevision(tx); err != nil {
			return err
		}
		if v.Day, err = OwnerDay(tx, now, ""); err != nil {
			return err
		}
		var defs []RoutineDefinition
		if err := tx.Order("routine_id, revision DESC").Find(&defs).Error; err != nil {
			return err
		}
		var trials []RoutineTrial
		if err := tx.Order("id DESC").Find(&trials).Error; err != nil {
			return err
		}
		var reviews []RoutineReview
		if err := tx.Order("window_to DESC, id").Find(&reviews).Error; err != nil {
			return err
		}
		decisions, err := proposalDecisions(tx)
		if err != nil {
			return err
		}
		var evidence []string
		for _, d := range defs {
			dv := s.metrics.view(d)
			if len(v.Routines) == 0 || v.Routines[len(v.Routines)-1].ID != d.RoutineID {
				v.Routines = append(v.Routines, RoutineCard{ID: d.RoutineID, Current: dv})
				evidence = append(evidence, dv.EvidenceIDs...)
			}
			card := &v.Routines[len(v.Routines)-1]
			card.Revisions = append(card.Revisions, dv)
		}
		chips, err := evidenceChips(tx, evidence)
		if err != nil {
			return err
		}
		defByRev := map[string]RoutineDefinition{}
		for _, d := range defs {
			defByRev[fmt.Sprintf("%s@%d", d.RoutineID, d.Revision)] = d
		}
		trialsByRev := map[string][]RoutineTrial{}
		for i := len(trials) - 1; i >= 0; i-- { // by ID, as RoutineMetrics reads them
			t := trials[i]
			key := fmt.Sprintf("%s@%d", t.RoutineID, t.Revision)
			trialsByRev[key] = append(trialsByRev[key], t)
		}
		// metrics is RoutineMetrics over the rows already read, month by
		// month, reusing the months no commit has changed since (routine_memo.go).
		metrics := func(routineID string, revision int64, from, to string) (contract.RoutineMetrics, error) {
			rev := fmt.Sprintf("%s@%d", routineID, revision)
			def, ok := defByRev[rev]
			if !ok {
				return contract.RoutineMetrics{}, ErrNotFound
			}
			windows := monthWindows(from, to)
			parts, seqs := make([]contract.RoutineMetrics, 0, len(windows)), make([]uint64, 0, len(windows))
			for _, w := range windows {
				key := newMetricsKey(routineID, revision, w[0], w[1], v.Day)
				m, seq, ok := s.metrics.get(key, v.Revision, now)
				if !ok {
					in, err := loadMetricsInput(tx, def, trialsByRev[rev], w[0], w[1])
					if err != nil {
						return contract.RoutineMetrics{}, err
					}
					var until time.Time
					m, until = in.compute(w[0], w[1], v.Day, now)
					seq = s.metrics.put(key, v.Revision, until, m)
				}
				parts, seqs = append(parts, m), append(seqs, seq)
			}
			return s.metrics.window(newMetricsKey(routineID, revision, from, to, v.Day), seqs, parts), nil
		}
		for i := range v.Routines {
			card := &v.Routines[i]
			card.Standing = card.Current.Status
			for _, id := range card.Current.EvidenceIDs {
				if j := slices.IndexFunc(chips, func(c EvidenceChip) bool { return c.ID == id }); j >= 0 {
					card.Evidence = append(card.Evidence, chips[j])
				}
			}
			for _, t := range trials {
				if t.RoutineID != card.ID {
					continue
				}
				tv := t.View()
				to := min(t.LastDay(), v.Day.Date)
				if tv.Metrics, err = metrics(t.RoutineID, t.Revision, t.StartsOn, max(to, t.StartsOn)); err != nil {
					return err
				}
				card.Trials = append(card.Trials, tv)
				if t.State == "active" {
					active := tv
					card.ActiveTrial, card.Standing = &active, "active"
					for _, d := range tv.Metrics.Days {
						if d.Date < v.Day.Date && d.Outcome == OutcomeUnrecorded && card.Current.Trigger.Kind != contract.TriggerEvent {
							card.RecordableDays = append(card.RecordableDays, d.Date)
						}
					}
				}
			}
			for _, r := range reviews {
				if r.RoutineID == card.ID {
					rv := r.view(decisions)
					if rv.Current, err = metrics(r.RoutineID, r.Revision, r.WindowFrom, r.WindowTo); err != nil {
						return err
					}
					card.Reviews = append(card.Reviews, rv)
				}
			}
		}
		return nil
	})
	if err != nil {
		return RoutinesView{}, Classify("routines", err)
	}
	return v, nil
}

// RoutineReview is a stored review.
type RoutineReview struct {
	ID                string `gorm:"primaryKey"`
	RoutineID         string
	Revision          int64
	WindowFrom        string
	WindowTo          string
	Observations      string
	Uncertainties     string
	Proposals         string
	EvidenceIDs       string
	Metrics           string
	PublishedRevision int64
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

func (r RoutineReview) view(decisions map[string]Request) ReviewView {
	v := ReviewView{ID: r.ID, RoutineID: r.RoutineID, Revision: r.Revision, Window: contract.WindowIn{From: r.WindowFrom, To: r.WindowTo},
		EvidenceIDs: evidenceList(r.EvidenceIDs), PublishedAt: r.UpdatedAt}
	_ = json.Unmarshal([]byte(r.Observations), &v.Observations)
	_ = json.Unmarshal([]byte(r.Uncertainties), &v.Uncertainties)
	_ = json.Unmarshal([]byte(r.Metrics), &v.BasedOn)
	var props []contract.ProposalIn
	_ = json.Unmarshal([]byte(r.Proposals), &props)
	for _, p := range props {
		pv := ProposalView{ID: p.ID, Text: p.Text}
		if d, ok := decisions[r.ID+"/"+p.ID]; ok {
			pv.Decision, pv.Words, pv.Request, pv.Status = d.Decision, d.Text, d.RequestID, d.Status
		}
		v.Proposals = append(v.Proposals, pv)
	}
	return v
}

func proposalDecisions(tx *gorm.DB) (map[string]Request, error) {
	var rows []Request
	// review_id != '' is the condition of the partial index requests_proposal:
	// it lets SQLite read only the proposal answers, not every request.
	if err := tx.Where("review_id != '' AND kind = ?", contract.RequestRoutineChange).Find(&rows).Error; err != nil {
		return nil, err
	}
	out := map[string]Request{}
	for _, r := range rows {
		out[r.ReviewID+"/"+r.ProposalID] = r
	}
	return out, nil
}

// Proposal decisions: the owner's answer to a routine review's proposed change.
const (
	DecisionAdopt  = "adopt"
	DecisionModify = "modify"
	DecisionReject = "reject"
)

// ErrAlreadyDecided means the proposal has a decision; it stands.
var ErrAlreadyDecided = errors.New("this proposal was already decided")

// ProposalDecision is the owner's answer to one review proposal.
type ProposalDecision struct {
	RequestID  string
	ReviewID   string
	ProposalID string
	Decision   string // adopt, modify, reject
	Words      string // required for modify; optional note otherwise
}

// DecideProposal records the owner's decision on a proposal as an owner
// request of kind routine-change, for the agent: it updates life and
// publishes a new revision. The same requestId again is a replay.
func (s *Store) DecideProposal(ctx context.Context, d ProposalDecision) (contract.RequestView, error) {
	d.Words = strings.TrimSpace(d.Words)
	switch {
	case !ids.Valid(d.RequestID):
		return contract.RequestView{}, fmt.Errorf("models: request ID must be %s: %w", ids.Expected, ErrInvalidInput)
	case !slices.Contains([]string{DecisionAdopt, DecisionModify, DecisionReject}, d.Decision):
		return contract.RequestView{}, fmt.Errorf("models: decide adopt, modify or reject: %w", ErrInvalidInput)
	case d.Decision == DecisionModify && d.Words == "":
		return contract.RequestView{}, &FieldError{Field: "words", Message: "Say how you would change it."}
	case utf8.RuneCountInString(d.Words) > contract.MaxBodyLen:
		return contract.RequestView{}, &FieldError{Field: "words", Message: fmt.Sprintf("Your words are longer than %d characters.", contract.MaxBodyLen)}
	}
	var row Request
	_, err := s.commit(ctx, func(t *txn) error {
		var prior []Request
		if err := t.Where("request_id = ? OR (review_id = ? AND proposal_id = ?)", d.RequestID, d.ReviewID, d.ProposalID).Find(&prior).Error; err != nil {
			return err
		}
		for _, p := range prior {
			if p.RequestID == d.RequestID && p.ReviewID == d.ReviewID && p.ProposalID == d.ProposalID && p.Decision == d.Decision {
				row = p
				return nil // a double submit
			}
		}
		if len(prior) > 0 {
			row = prior[0]
			return ErrAlreadyDecided
		}
		var rv RoutineReview
		if err := t.Take(&rv, "id = ?", d.ReviewID).Error; err != nil {
			return notFound(err)
		}
		var props []contract.ProposalIn
		_ = json.Unmarshal([]byte(rv.Proposals), &props)
		i := slices.IndexFunc(props, func(p contract.ProposalIn) bool { return p.ID == d.ProposalID })
		if i < 0 {
			return ErrNotFound
		}
		text := map[string]string{
			DecisionAdopt:  "Adopt: " + props[i].Text,
			DecisionModify: "Modify \"" + props[i].Text + "\": " + d.Words,
			DecisionReject: "Reject: " + props[i].Text,
		}[d.Decision]
		if d.Decision != DecisionModify && d.Words != "" {
			text += " (" + d.Words + ")"
		}
		rev, err := t.bump()
		if err != nil {
			return err
		}
		row = Request{RequestID: d.RequestID, Kind: contract.RequestRoutineChange, EntityID: rv.RoutineID, SourceRevision: fmt.Sprint(rv.Revision),
			Text: text, PayloadHash: "", Status: contract.RequestPending, CompletedRefs: "[]", Revision: rev, CreatedAt: t.now, UpdatedAt: t.now,
			ReviewID: d.ReviewID, ProposalID: d.ProposalID, Decision: d.Decision}
		t.touch("request:"+d.RequestID, "routine:"+rv.RoutineID)
		return t.Create(&row).Error
	})
	if err != nil {
		if errors.Is(err, ErrAlreadyDecided) {
			return row.View(), err
		}
		return contract.RequestView{}, Classify("decide proposal", err)
	}
	return row.View(), nil
}
