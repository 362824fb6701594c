package read

import (
	"context"
	"fmt"
	"hearth/internal/contract"
	"hearth/models"
	"time"

	"gorm.io/gorm"
)

// RecentRequests lists pending requests and those settled since, newest first.
func (s Store) RecentRequests(ctx context.Context, since time.Time) ([]contract.RequestView, error) {
	var rows []models.Request
	if err := s.Read(ctx, func(tx *gorm.DB) error {
		return tx.Where("status = ? OR updated_at >= ?", contract.RequestPending, since).
			Order("created_at DESC, request_id").Limit(contract.MaxPendingInContext).Find(&rows).Error
	}); err != nil {
		return nil, fmt.Errorf("models: recent requests: %w", err)
	}
	out := make([]contract.RequestView, len(rows))
	for i, r := range rows {
		out[i] = r.View()
	}
	return out, nil
}

// Requests lists requests in a state, oldest first, at most limit.
func (s Store) Requests(ctx context.Context, status string, limit int) ([]contract.RequestView, error) {
	var rows []models.Request
	if err := s.Read(ctx, func(tx *gorm.DB) error {
		return tx.Where("status = ?", status).Order("created_at, request_id").Limit(limit).Find(&rows).Error
	}); err != nil {
		return nil, fmt.Errorf("models: requests: %w", err)
	}
	out := make([]contract.RequestView, len(rows))
	for i, r := range rows {
		out[i] = r.View()
	}
	return out, nil
}
