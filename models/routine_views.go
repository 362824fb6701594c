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

// View is r for the Routines page, with the owner's decisions on its proposals.
func (r RoutineReview) View(decisions map[string]Request) ReviewView {
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

// ProposalDecisions reads the owner's decisions on review proposals, by
// proposal.
func ProposalDecisions(tx *gorm.DB) (map[string]Request, error) { return proposalDecisions(tx) }
