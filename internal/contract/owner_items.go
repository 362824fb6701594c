package contract

import (
	"time"

	"hearth/internal/strictjson"
)

// AddedByOwner marks an item as the owner's own (OwnerItemView.AddedBy).
const AddedByOwner = "owner"

// CodeOwnerItemReadOnly is the code of a publication's error that names an
// owner item by ID (an activity upsert, a retraction, a completed
// request): the owner's own words are read-only for the agent. It comes
// in a 422 invalid_result with the publication's other errors.
const CodeOwnerItemReadOnly = "owner_item_readonly"

// ExpectedNotOwnerItem is that error's expected value, which the runner
// gives back to the agent (it keeps expected, not the message).
const ExpectedNotOwnerItem = "an ID that is not one of ownerItems: the owner's own items are read-only (owner_item_readonly)"

// OwnerItemView is a task or note the owner added on Home in their own
// words. The agent reads it and may act around it (a brief that mentions
// it, a reply it implies), never rewrite it: an activity, retraction or
// completed request with its ID is refused.
type OwnerItemView struct {
	ID string `json:"id"`
	// Text is the owner's words, without the day they typed.
	Text string `json:"text"`
	// Day is the date the owner typed (YYYY-MM-DD in today's zone);
	// absent when none was typed.
	Day string `json:"day,omitempty" jsonschema:"format=date"`
	// DoneAt is when the owner ticked it done; absent while open.
	DoneAt *time.Time `json:"doneAt,omitempty"`
	// AddedBy is always "owner": these are not the agent's suggestions.
	AddedBy   string    `json:"addedBy" jsonschema:"enum=owner"`
	CreatedAt time.Time `json:"createdAt"`
	UpdatedAt time.Time `json:"updatedAt"`
}

// AddCoded records an error with a code a client may act on (Code* constants).
func (v *Validator) AddCoded(path, code, msg, expected, found string) {
	v.Errs = append(v.Errs, strictjson.FieldError{Path: path, Code: code, Message: msg, Expected: expected, Found: found})
}
