package contract

// PersonRhythmView is a person's rhythm from the last year of their chats
// (when messages were said and by whom, never their words): conversations
// split by more than six hours of silence, the median silence between
// them, its 90th percentile, and who started them. Only people with at
// least five silences between conversations are listed: fewer tell
// nothing. Days are to one decimal.
type PersonRhythmView struct {
	PersonID      string  `json:"personId"`
	Conversations int     `json:"conversations" jsonschema_description:"conversations in the last year: runs of messages with no silence over six hours"`
	UsualGapDays  float64 `json:"usualGapDays" jsonschema_description:"the median silence between two conversations, in days"`
	P90GapDays    float64 `json:"p90GapDays" jsonschema_description:"the 90th percentile silence between two conversations (nearest rank), in days"`
	SilenceDays   float64 `json:"silenceDays" jsonschema_description:"days since the last message, in either direction"`
	OwnerStarted  int     `json:"ownerStarted" jsonschema_description:"how many of the conversations the owner started; the rest the person did"`
	Drifting      bool    `json:"drifting" jsonschema_description:"the current silence has run past this person's 90th percentile"`
}
