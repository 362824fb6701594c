package contract

import (
	"fmt"
)

// Request kinds and states (docs/contract.md, Owner requests).
const (
	RequestRefresh    = "refresh"
	RequestReplyDraft = "reply-draft"
	RequestCRMEdit    = "crm-edit"
	RequestNote       = "note"
	// RequestRoutineChange is an adopted, modified or rejected review
	// proposal; it is made by DecideProposal, never posted directly.
	RequestRoutineChange = "routine-change"

	RequestPending   = "pending"
	RequestCompleted = "completed"
	RequestCancelled = "cancelled"
)

// RequestKinds lists what the owner may ask.
var RequestKinds = []string{RequestRefresh, RequestReplyDraft, RequestCRMEdit, RequestNote}

// RequestIn is POST /api/agent-requests.
type RequestIn struct {
	RequestID string  `json:"requestId" jsonschema:"pattern=^\\.*[A-Za-z0-9_:@-][A-Za-z0-9._:@-]*$,maxLength=128"`
	Kind      string  `json:"kind" jsonschema:"enum=refresh,enum=reply-draft,enum=crm-edit,enum=note"`
	EntityID  *string `json:"entityId"`
	// EntityName is how the owner knows the entity, such as a chat's title
	// beside its ID; optional, for the agent to read.
	EntityName     *string `json:"entityName"`
	SourceRevision *string `json:"sourceRevision"`
	Text           string  `json:"text"`
	Edit           *EditIn `json:"edit"`
}

// EditIn is a correction the owner suggests for a person in life.
type EditIn struct {
	Field string `json:"field"`
	Value string `json:"value"`
}

// Validate checks a request's shape: its kind and the fields that kind needs.
func (r *RequestIn) Validate(v *Validator) {
	v.ID("/requestId", r.RequestID)
	v.Enum("/kind", r.Kind, RequestKinds)
	v.Text("/text", r.Text, MaxBodyLen, r.Kind != RequestRefresh)
	needsEntity := r.Kind == RequestReplyDraft || r.Kind == RequestCRMEdit
	switch {
	case r.EntityID != nil:
		v.Text("/entityId", *r.EntityID, 256, true)
	case needsEntity:
		v.Add("/entityId", fmt.Sprintf("a %s request names its entity", r.Kind), "a chat ID (reply-draft) or person ID (crm-edit)", "absent")
	}
	if r.EntityName != nil {
		if r.EntityID == nil {
			v.Add("/entityName", "only a request that names an entity names it", "absent, or an entityId beside it", "an entityName")
		}
		v.Text("/entityName", *r.EntityName, 256, true)
	}
	if r.SourceRevision != nil {
		v.Text("/sourceRevision", *r.SourceRevision, 128, true)
	}
	switch {
	case r.Kind == RequestCRMEdit && r.Edit == nil:
		v.Add("/edit", "a crm-edit request carries the edit", "{field, value}", "absent")
	case r.Kind != RequestCRMEdit && r.Edit != nil:
		v.Add("/edit", "only a crm-edit request carries an edit", "absent", "an edit")
	case r.Edit != nil:
		v.Text("/edit/field", r.Edit.Field, 100, true)
		v.Text("/edit/value", r.Edit.Value, MaxContextLen, false)
	}
}
