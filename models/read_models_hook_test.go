package models_test

import (
	"context"
	"time"

	"hearth/internal/contract"
	"hearth/internal/weight"
	"hearth/models"
	"hearth/models/read"
)

func init() {
	models.ReadModels.AgentContext = func(s *models.Store, ctx context.Context) (contract.AgentContext, error) {
		return read.Of(s).AgentContext(ctx)
	}
	models.ReadModels.CompactContext = func(s *models.Store, ctx context.Context) (contract.AgentContext, error) {
		return read.Of(s).CompactContext(ctx)
	}
	models.ReadModels.ContextPage = func(s *models.Store, ctx context.Context, collection, cursor string) (any, error) {
		return read.Of(s).ContextPage(ctx, collection, cursor)
	}
	models.ReadModels.Person = func(s *models.Store, ctx context.Context, id string) (contract.PersonView, error) {
		return read.Of(s).Person(ctx, id)
	}
	models.ReadModels.People = func(s *models.Store, ctx context.Context) (models.PeopleView, error) {
		return read.Of(s).People(ctx)
	}
	models.ReadModels.RoutineKeeping = func(s *models.Store, ctx context.Context, routineID string) (weight.RoutineKeeping, error) {
		return read.Of(s).RoutineKeeping(ctx, routineID)
	}
	models.ReadModels.Runs = func(s *models.Store, ctx context.Context) (models.RunsView, error) {
		return read.Of(s).Runs(ctx)
	}
	models.ReadModels.Routines = func(s *models.Store, ctx context.Context) (models.RoutinesView, error) {
		return read.Of(s).Routines(ctx)
	}
	models.ReadModels.CoverageGaps = func(s *models.Store, ctx context.Context, since time.Time) ([]contract.CoverageGapView, error) {
		return read.Of(s).CoverageGaps(ctx, since)
	}
	models.ReadModels.ChatDrafts = func(s *models.Store, ctx context.Context, chatID string) ([]models.ChatDraft, error) {
		return read.Of(s).ChatDrafts(ctx, chatID)
	}
	models.ReadModels.ChatPeople = func(s *models.Store, ctx context.Context, chatIDs []string) (map[string]string, error) {
		return read.Of(s).ChatPeople(ctx, chatIDs)
	}
	models.ReadModels.DecisionTables = func(s *models.Store, ctx context.Context) (map[string][]map[string]any, error) {
		ex, err := read.Of(s).ExportDecisions(ctx)
		return ex.Tables, err
	}
}
