package beeperflow

import (
	"context"
	"errors"
	"fmt"
	"time"

	"hearth/beeper"
	"hearth/models"
)

// FollowStore is what following sent replies needs of the store.
type FollowStore interface {
	Now() time.Time
	FollowedSends(ctx context.Context) ([]models.Send, error)
	RecordFollow(ctx context.Context, id int64, f models.SendFollow) (models.Send, error)
}

// FollowSends reads, for each sent reply still followed (models.FollowedSends:
// sent in the last 14 days, unanswered, delivery or read receipt unknown),
// its message in Beeper, and records when it was delivered and seen. A
// bare "seen" is dated now, the first time hearth read it. The answer is
// not read here: the watch records it from the chat's new messages. It
// returns how many sends learnt something; a message Beeper cannot read
// now is read again on the next pass, and one it does not know (older
// versions look up no pending IDs) is skipped without an error.
func FollowSends(ctx context.Context, st FollowStore, m MessageReader) (int, error) {
	sends, err := st.FollowedSends(ctx)
	if err != nil {
		return 0, err
	}
	changed := 0
	var firstErr error
	for _, sd := range sends {
		msg, err := m.Message(ctx, sd.ChatID, sd.PendingMessageID)
		if err != nil {
			if ctx.Err() != nil {
				return changed, ctx.Err()
			}
			if errors.Is(err, beeper.ErrNotFound) {
				continue // an older Beeper that cannot look the message up: nothing to learn, nothing to warn of
			}
			if firstErr == nil {
				firstErr = fmt.Errorf("follow send %d: %w", sd.ID, err)
			}
			continue
		}
		now := st.Now()
		var f models.SendFollow
		if at, ok := msg.Delivered(now); ok && sd.DeliveredAt == nil {
			f.DeliveredAt = &at
		}
		if at, ok := msg.Seen.When(now); ok && sd.SeenAt == nil {
			f.SeenAt = &at
		}
		if f.DeliveredAt == nil && f.SeenAt == nil {
			continue
		}
		if _, err := st.RecordFollow(ctx, sd.ID, f); err != nil {
			return changed, err
		}
		changed++
	}
	return changed, firstErr
}
