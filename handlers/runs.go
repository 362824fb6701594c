package handlers

import (
	"context"
	"errors"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"hearth/internal/contract"
	"hearth/internal/costpolicy"
	"hearth/models"
	"hearth/views"
)

// runsStore records the runner's runs.
type runsStore interface {
	Today(ctx context.Context) (models.Day, error)
	clock
	StartRun(ctx context.Context, runner string, in contract.RunStartIn, costs costpolicy.Policy) (contract.RunStart, error)
	StartInvocation(ctx context.Context, runner, runID string) (contract.RunView, error)
	FinishInvocation(ctx context.Context, runner, runID string, n int, in contract.InvocationFinishIn) (contract.InvocationView, error)
	FinishRun(ctx context.Context, runner, runID string, in contract.RunFinishIn) (contract.RunView, error)
	ResolveRun(ctx context.Context, runID string) (contract.RunView, error)
	Runs(ctx context.Context) (models.RunsView, error)
	ReportAgentHealth(ctx context.Context, credentialID string, in contract.AgentHealthIn) (models.AgentHealthView, error)
}

// reportAgentHealth is POST /api/agent-health: the runner's word on its
// agent's login (never the credential); 200 with the stored report.
func (s *runsHandlers) reportAgentHealth(c *fiber.Ctx) error {
	return apiWrite(c, writeSpec{invalidCode: "invalid_request", invalidMessage: "the health report was refused", refuse: runError},
		func(body []byte) (models.AgentHealthView, int, error) {
			in, err := contract.DecodeAgentHealth(body)
			if err != nil {
				return models.AgentHealthView{}, 0, err
			}
			h, err := s.store.ReportAgentHealth(c.UserContext(), identityOf(c).agent.ID, in)
			return h, fiber.StatusOK, err
		})
}

// runsHandlers record the runner's runs and serve the Runs page.
type runsHandlers struct {
	*Server
	store runsStore
}

// startRun is POST /api/runs: the runner starts a run (a schedule run
// claims its occurrence); 201 with the run, or 200 with admitted false and
// why it was held.
func (s *runsHandlers) startRun(c *fiber.Ctx) error {
	return apiWrite(c, writeSpec{invalidCode: "invalid_request", invalidMessage: "the run was refused", refuse: runError},
		func(body []byte) (contract.RunStart, int, error) {
			in, err := contract.DecodeRunStart(body)
			if err != nil {
				return contract.RunStart{}, 0, err
			}
			start, err := s.store.StartRun(c.UserContext(), identityOf(c).agent.ID, in, s.cfg.costs())
			return start, createdOr200(start.Admitted), err
		})
}

// startInvocation is POST /api/runs/:id/invocations: one more agent
// invocation (at most three), 409 attempts_exhausted beyond.
func (s *runsHandlers) startInvocation(c *fiber.Ctx) error {
	run, err := s.store.StartInvocation(c.UserContext(), identityOf(c).agent.ID, c.Params("id"))
	if err != nil {
		return runError(c, err)
	}
	return c.JSON(run)
}

// finishInvocation is POST /api/runs/:id/invocations/:n/finish: how one
// invocation ended and what it spent; the same report again answers as the
// first did, a different one is 409 idempotency_conflict.
func (s *runsHandlers) finishInvocation(c *fiber.Ctx) error {
	n, err := strconv.Atoi(c.Params("n"))
	if err != nil {
		return apiError(c, fiber.StatusUnprocessableEntity, "invalid_request", "the invocation is a number from 1", nil)
	}
	return apiWrite(c, writeSpec{invalidCode: "invalid_request", invalidMessage: "the invocation report was refused",
		conflictMessage: "this invocation was reported with a different outcome or usage", refuse: runError},
		func(body []byte) (contract.InvocationView, int, error) {
			in, err := contract.DecodeInvocationFinish(body)
			if err != nil {
				return contract.InvocationView{}, 0, err
			}
			inv, err := s.store.FinishInvocation(c.UserContext(), identityOf(c).agent.ID, c.Params("id"), n, in)
			return inv, fiber.StatusOK, err
		})
}

// finishRun is POST /api/runs/:id/finish.
func (s *runsHandlers) finishRun(c *fiber.Ctx) error {
	return apiWrite(c, writeSpec{invalidCode: "invalid_request", invalidMessage: "the outcome was refused", refuse: runError},
		func(body []byte) (contract.RunView, int, error) {
			in, err := contract.DecodeRunFinish(body)
			if err != nil {
				return contract.RunView{}, 0, err
			}
			run, err := s.store.FinishRun(c.UserContext(), identityOf(c).agent.ID, c.Params("id"), in)
			return run, fiber.StatusOK, err
		})
}

// runError maps the run services' refusals.
func runError(c *fiber.Ctx, err error) error {
	switch {
	case errors.Is(err, models.ErrNotFound):
		return apiError(c, fiber.StatusNotFound, "not_found", "no such run or schedule of this runner", nil)
	case errors.Is(err, models.ErrRunExists):
		return apiError(c, fiber.StatusConflict, "run_exists", "this runId belongs to another run", nil)
	case errors.Is(err, models.ErrRunFinished):
		return apiError(c, fiber.StatusConflict, "run_finished", "the run is finished", nil)
	case errors.Is(err, models.ErrInvocationNotStarted):
		return apiError(c, fiber.StatusConflict, "invocation_not_started", "the run has not started this invocation", nil)
	case errors.Is(err, models.ErrAttemptsExhausted):
		return apiError(c, fiber.StatusConflict, "attempts_exhausted", "the run used all its agent invocations", nil)
	case errors.Is(err, models.ErrOccurrenceClosed):
		return apiError(c, fiber.StatusConflict, "occurrence_closed", "the occurrence is cancelled, expired or its schedule is not active", nil)
	case errors.Is(err, models.ErrInvalidInput):
		return apiError(c, fiber.StatusUnprocessableEntity, "invalid_request", err.Error(), nil)
	}
	return err
}

// showRuns is the owner's Runs page.
func (s *runsHandlers) showRuns(c *fiber.Ctx) error {
	rev := s.store.LatestRevision()
	v, err := s.store.Runs(c.UserContext())
	if err != nil {
		return err
	}
	day, err := s.store.Today(c.UserContext())
	if err != nil {
		return err
	}
	return s.render(c, fiber.StatusOK, viewOf(views.Runs(views.RunsData{Now: s.store.Now(), Revision: rev, Runs: v, Costs: s.cfg.costs(), Day: day})))
}

// resolveRunForm is the owner's "I looked at it" on an unknown run.
func (s *runsHandlers) resolveRunForm(c *fiber.Ctx) error {
	if _, err := s.store.ResolveRun(c.UserContext(), c.Params("id")); err != nil {
		if errors.Is(err, models.ErrNotFound) {
			// An owner's form: a page (kept, post/redirect/get), not the API's JSON.
			return s.notFound(c, "no such run")
		}
		return err
	}
	return c.Redirect("/runs#run-"+c.Params("id"), fiber.StatusSeeOther)
}
