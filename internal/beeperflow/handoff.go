package beeperflow

import (
	"context"
	"fmt"

	"hearth/beeper"
	"hearth/models"
)

// Focuser opens Beeper Desktop on a chat (the Beeper client's Focus).
type Focuser interface {
	Focus(ctx context.Context, req beeper.FocusRequest) (beeper.FocusResult, error)
}

// HandOffToBeeper opens Beeper Desktop on the chat with the text in its
// message field (POST /v1/focus with draftText) and records the draft as
// handed off, never as sent: the owner finishes it on the desktop, and the
// watch sees the message when it goes. The hand-off is checked first
// (st.PrepareHandOff) and recorded only once Beeper opened it
// (st.RecordHandOff): nothing is recorded when Beeper refuses.
func HandOffToBeeper(ctx context.Context, st Store, f Focuser, h models.HandOff) (models.OwnerActionResult, error) {
	plan, err := st.PrepareHandOff(ctx, h)
	if err != nil {
		return models.OwnerActionResult{}, err
	}
	if _, err := f.Focus(ctx, beeper.FocusRequest{ChatID: plan.ChatID, DraftText: plan.Body}); err != nil {
		return models.OwnerActionResult{}, fmt.Errorf("models: hand off: %w", err)
	}
	return st.RecordHandOff(ctx, plan)
}
