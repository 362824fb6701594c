package models

import (
	"context"
	"time"

	"gorm.io/gorm"
	"gorm.io/gorm/clause"

	"hearth/internal/contract"
)

// AgentHealth is the stored report, one row per agent.
type AgentHealth struct {
	Agent        string `gorm:"primaryKey"`
	State        string
	Detail       string
	CredentialID string
	CheckedAt    time.Time
}

// TableName is agent_health (one row per agent, not a plural of reports).
func (AgentHealth) TableName() string { return "agent_health" }

// AgentHealthView is a report as the API answers and the pages show it.
type AgentHealthView struct {
	Agent     string    `json:"agent"`
	State     string    `json:"state"`
	Detail    string    `json:"detail,omitempty"`
	CheckedAt time.Time `json:"checkedAt"`
}

// ReportAgentHealth records the runner's report, decoded and checked by
// contract.DecodeAgentHealth, replacing the agent's previous one.
func (s *Store) ReportAgentHealth(ctx context.Context, credentialID string, in contract.AgentHealthIn) (AgentHealthView, error) {
	row := AgentHealth{Agent: in.Agent, State: in.State, Detail: in.Detail, CredentialID: credentialID}
	_, err := s.commit(ctx, func(t *txn) error {
		row.CheckedAt = t.now.UTC()
		return t.Clauses(clause.OnConflict{UpdateAll: true}).Create(&row).Error
	})
	if err != nil {
		return AgentHealthView{}, Classify("agent health", err)
	}
	return row.view(), nil
}

func (h AgentHealth) view() AgentHealthView {
	return AgentHealthView{Agent: h.Agent, State: h.State, Detail: h.Detail, CheckedAt: h.CheckedAt}
}

// AgentHealthViews reads every agent's newest report, by agent.
func AgentHealthViews(tx *gorm.DB) ([]AgentHealthView, error) {
	var rows []AgentHealth
	if err := tx.Order("agent").Find(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]AgentHealthView, len(rows))
	for i, r := range rows {
		out[i] = r.view()
	}
	return out, nil
}

// heldForAuth is the first report that is not ok, if any: Home's notice.
func heldForAuth(reports []AgentHealthView) *AgentHealthView {
	for i, r := range reports {
		if r.State != contract.HealthOK {
			return &reports[i]
		}
	}
	return nil
}
