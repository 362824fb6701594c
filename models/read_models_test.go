package models

import (
	"context"
	"time"

	"hearth/internal/contract"
	"hearth/internal/weight"
)

// ReadModels reach models/read from the store's own tests, so a test of a
// write can read what it left as the agent does. models/read imports
// models, so these tests cannot import it: read_models_hook_test.go, an
// external test file of this package, sets the fields.
var ReadModels struct {
	AgentContext   func(*Store, context.Context) (contract.AgentContext, error)
	CompactContext func(*Store, context.Context) (contract.AgentContext, error)
	ContextPage    func(s *Store, ctx context.Context, collection, cursor string) (any, error)
	Person         func(s *Store, ctx context.Context, id string) (contract.PersonView, error)
	DecisionTables func(*Store, context.Context) (map[string][]map[string]any, error)
	People         func(*Store, context.Context) (PeopleView, error)
	RoutineKeeping func(s *Store, ctx context.Context, routineID string) (weight.RoutineKeeping, error)
	Runs           func(*Store, context.Context) (RunsView, error)
	Routines       func(*Store, context.Context) (RoutinesView, error)
	CoverageGaps   func(s *Store, ctx context.Context, since time.Time) ([]contract.CoverageGapView, error)
	ChatDrafts     func(s *Store, ctx context.Context, chatID string) ([]ChatDraft, error)
	ChatPeople     func(s *Store, ctx context.Context, chatIDs []string) (map[string]string, error)
}

func (s *Store) AgentContext(ctx context.Context) (contract.AgentContext, error) {
	return ReadModels.AgentContext(s, ctx)
}

func (s *Store) CompactContext(ctx context.Context) (contract.AgentContext, error) {
	return ReadModels.CompactContext(s, ctx)
}

func (s *Store) ContextPage(ctx context.Context, collection, cursor string) (any, error) {
	return ReadModels.ContextPage(s, ctx, collection, cursor)
}

func (s *Store) Person(ctx context.Context, id string) (contract.PersonView, error) {
	return ReadModels.Person(s, ctx, id)
}

func (s *Store) People(ctx context.Context) (PeopleView, error) { return ReadModels.People(s, ctx) }

func (s *Store) RoutineKeeping(ctx context.Context, routineID string) (weight.RoutineKeeping, error) {
	return ReadModels.RoutineKeeping(s, ctx, routineID)
}

func (s *Store) Runs(ctx context.Context) (RunsView, error) { return ReadModels.Runs(s, ctx) }

func (s *Store) Routines(ctx context.Context) (RoutinesView, error) {
	return ReadModels.Routines(s, ctx)
}

func (s *Store) CoverageGaps(ctx context.Context, since time.Time) ([]contract.CoverageGapView, error) {
	return ReadModels.CoverageGaps(s, ctx, since)
}

func (s *Store) ChatDrafts(ctx context.Context, chatID string) ([]ChatDraft, error) {
	return ReadModels.ChatDrafts(s, ctx, chatID)
}

func (s *Store) ChatPeople(ctx context.Context, chatIDs []string) (map[string]string, error) {
	return ReadModels.ChatPeople(s, ctx, chatIDs)
}
