package contract

import "time"

// What became of a reply confirmed to send later (SendLaterView.Status).
const (
	SendLaterScheduled = "scheduled" // waiting for its time (or going now)
	SendLaterHeld      = "held"      // not sent: the chat moved on, the owner looks again
	SendLaterSent      = "sent"      // handed to the send at its time (its outcome is in sends)
)

// SendLaterView is a reply the owner confirmed to send at a later time: a
// draft's (DraftID) or the owner's own words (no DraftID). The agent reads
// it so it does not draft again a reply that is already waiting.
type SendLaterView struct {
	ChatID  string    `json:"chatId"`
	DraftID string    `json:"draftId,omitempty" jsonschema_description:"the draft it sends; absent for the owner's own words"`
	DueAt   time.Time `json:"dueAt"`
	Status  string    `json:"status" jsonschema:"enum=scheduled,enum=held,enum=sent"`
	// HeldBecause says, in the owner's words, why a held send did not go.
	HeldBecause string `json:"heldBecause,omitempty"`
}
