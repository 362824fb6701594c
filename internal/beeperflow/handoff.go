package beeperflow

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"hearth/beeper"
	"hearth/models"
)

// Composer is the part of the Beeper client a hand-off needs: the chat's
// composer draft (set, read, cleared) and opening Beeper Desktop on a chat.
type Composer interface {
	Chat(ctx context.Context, chatID string) (beeper.Chat, error)
	SetDraft(ctx context.Context, chatID, text string) (beeper.Chat, error)
	ClearDraft(ctx context.Context, chatID string) (beeper.Chat, error)
	Focus(ctx context.Context, req beeper.FocusRequest) (beeper.FocusResult, error)
}

// ErrComposerBusy means the chat's Beeper composer already holds text
// (perhaps the owner's typing), so Beeper refused hearth's: nothing was
// put there, opened or recorded.
var ErrComposerBusy = errors.New("beeperflow: the chat's Beeper composer is not empty")

// HandOffResult is a recorded hand-off and how it reached Beeper.
type HandOffResult struct {
	models.OwnerActionResult
	// Focused is set when this Beeper has no composer endpoint (before
	// v4.2.808): Beeper was opened on the chat with the text instead, and
	// hearth cannot take it back out.
	Focused bool
}

// HandOffToBeeper puts the text in the chat's Beeper composer (PATCH
// /v1/chats/{chatID} draft), which Beeper takes only while the composer is
// empty (else ErrComposerBusy), then opens Beeper on the chat. A Beeper
// without the endpoint (404 or 405) is opened with the text as draftText
// instead (POST /v1/focus). Either way it is recorded as handed off, never
// as sent, and only once Beeper took it (st.RecordHandOff); the hand-off
// is checked first (st.PrepareHandOff).
func HandOffToBeeper(ctx context.Context, st Store, b Composer, h models.HandOff) (HandOffResult, error) {
	plan, err := st.PrepareHandOff(ctx, h)
	if err != nil {
		return HandOffResult{}, err
	}
	chat, err := b.SetDraft(ctx, plan.ChatID, plan.Body)
	var apiErr *beeper.APIError
	switch {
	case err == nil:
		// Beeper keeps the draft as it converted it; withdrawing compares that.
		plan.Composer = plan.Body
		if chat.Draft != nil && chat.Draft.Text != "" {
			plan.Composer = chat.Draft.Text
		}
		// The text is in the composer already: a Beeper that does not come
		// to the front still has it, so a failed focus is not a failed hand-off.
		_, _ = b.Focus(ctx, beeper.FocusRequest{ChatID: plan.ChatID})
		res, err := st.RecordHandOff(ctx, plan)
		return HandOffResult{OwnerActionResult: res}, err
	case errors.As(err, &apiErr) && (apiErr.Status == http.StatusNotFound || apiErr.Status == http.StatusMethodNotAllowed):
		if _, err := b.Focus(ctx, beeper.FocusRequest{ChatID: plan.ChatID, DraftText: plan.Body}); err != nil {
			return HandOffResult{}, fmt.Errorf("models: hand off: %w", err)
		}
		res, err := st.RecordHandOff(ctx, plan)
		return HandOffResult{OwnerActionResult: res, Focused: true}, err
	case errors.As(err, &apiErr) && apiErr.Status >= 400 && apiErr.Status < 500 && composerBusy(ctx, b, plan.ChatID):
		// The API does not name the status of its refusal; a 4xx with text
		// in the composer is that refusal.
		return HandOffResult{}, ErrComposerBusy
	default:
		return HandOffResult{}, fmt.Errorf("models: hand off: %w", err)
	}
}

// composerBusy reads whether the chat's composer holds text.
func composerBusy(ctx context.Context, b Composer, chatID string) bool {
	chat, err := b.Chat(ctx, chatID)
	return err == nil && chat.Draft != nil && chat.Draft.Text != ""
}

// HandOffStore is what withdrawing composer hand-offs needs of the store.
type HandOffStore interface {
	ComposerHandOffsMovedOn(ctx context.Context) ([]models.ComposerHandOff, error)
	ForgetComposerHandOff(ctx context.Context, h models.ComposerHandOff) error
}

// WithdrawHandOffs takes hearth's text back out of the Beeper composer of
// each chat that moved on since its hand-off (draft null), only if the
// composer still holds exactly that text: the owner's edits, or anything
// else there, stay. A chat whose composer Beeper cannot read or clear any
// more (404, 405) is let go; other failures are tried again next time.
// The API has no compare-and-clear, so the read and the clear are two
// requests: typing that lands between them (milliseconds) would be lost.
func WithdrawHandOffs(ctx context.Context, st HandOffStore, b Composer) error {
	hs, err := st.ComposerHandOffsMovedOn(ctx)
	if err != nil {
		return err
	}
	var errs []error
	for _, h := range hs {
		if err := withdraw(ctx, b, h); err != nil && !gone(err) {
			errs = append(errs, err)
			continue
		}
		if err := st.ForgetComposerHandOff(ctx, h); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func withdraw(ctx context.Context, b Composer, h models.ComposerHandOff) error {
	chat, err := b.Chat(ctx, h.ChatID)
	if err != nil || chat.Draft == nil || chat.Draft.Text != h.Text {
		return err
	}
	_, err = b.ClearDraft(ctx, h.ChatID)
	return err
}

// gone reports a chat, or a composer endpoint, Beeper no longer has.
func gone(err error) bool {
	var apiErr *beeper.APIError
	return errors.As(err, &apiErr) && (apiErr.Status == http.StatusNotFound || apiErr.Status == http.StatusMethodNotAllowed)
}
