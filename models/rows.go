package models

import (
	"hearth/internal/contract"
	"slices"
	"time"
)

// Row types mirror the tables of migrations/. JSON-valued columns hold text.

// SourceRef is stored provenance.
type SourceRef struct {
	ID          string `gorm:"primaryKey"`
	Kind        string
	Path        string
	ContentHash string
	AccountID   string
	ChatID      string
	MessageID   string
	TargetID    string
	ObservedAt  StoredTime // the agent's instant: read leniently, see StoredTime
	Revision    int64
}

// Brief is the current daily brief.
type Brief struct {
	ID          int `gorm:"primaryKey"`
	Date        string
	TimeZone    string
	Text        string
	EvidenceIDs string
	Revision    int64
	UpdatedAt   time.Time
}

// Person is a projection of a life person.
type Person struct {
	ID          string `gorm:"primaryKey"`
	Name        string
	Context     string
	EvidenceIDs string
	Revision    int64
	CreatedAt   time.Time
	UpdatedAt   time.Time
}

// TableName keeps GORM off its "persons" guess.
func (Person) TableName() string { return "people" }

// ReplyDraft is the agent's reply suggestion for a chat.
type ReplyDraft struct {
	ID                    string `gorm:"primaryKey"`
	PersonID              *string
	AccountID             string
	ChatID                string
	ReplyToMessageID      string
	SourceMessageRevision string
	Reason                string
	Candidates            string
	EvidenceIDs           string
	Revision              int64
	RetractedAt           *time.Time
	RetractReason         string
	// SettledAt is when the draft stopped waiting for the owner: its reply
	// went out, the owner's own reply replaced it, the owner declined it, or
	// it was retracted. Nil while live.
	SettledAt *time.Time
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Activity is one agent suggestion; the owner's decision lives in ActivityState.
type Activity struct {
	ID            string `gorm:"primaryKey"`
	Kind          string
	Title         string
	Detail        string
	PersonID      *string
	ParentID      *string
	DraftID       *string
	OccurrenceKey string
	Section       string
	Rank          int64
	Reason        string
	Payload       string
	EvidenceIDs   string
	Revision      int64
	RetractedAt   *time.Time
	RetractReason string
	ClosedAt      *time.Time
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

// Owner-decided activity states.
const (
	StateAvailable  = "available"
	StateInProgress = "in_progress"
	StateWaiting    = "waiting"
	StateDeferred   = "deferred"
	StateCompleted  = "completed"
	StateSkipped    = "skipped"
	StateDismissed  = "dismissed"
	// StatePartial settles a routine some of whose steps were not done: it
	// is never counted as completed.
	StatePartial = "partial"
)

// States lists every owner state.
var States = []string{StateAvailable, StateInProgress, StateWaiting, StateDeferred, StateCompleted, StatePartial, StateSkipped, StateDismissed}

// SettledStates close an activity.
var SettledStates = []string{StateCompleted, StatePartial, StateSkipped, StateDismissed}

// settled reports whether a state closes the activity.
func settled(state string) bool { return slices.Contains(SettledStates, state) }

// ActivityState is the owner's decision on an activity.
type ActivityState struct {
	ActivityID string `gorm:"primaryKey"`
	State      string
	Until      string
	Note       string
	Revision   int64
	UpdatedAt  time.Time
}

// DraftEdit is the owner's edit of a reply draft.
type DraftEdit struct {
	DraftID             string `gorm:"primaryKey"`
	Body                string
	SelectedCandidateID string
	Revision            int64
	UpdatedAt           time.Time
}

// Measurement is one recorded value; a correction supersedes an earlier row.
type Measurement struct {
	ID            int64 `gorm:"primaryKey"`
	ActivityID    string
	OccurrenceKey string
	Metric        string
	Unit          string
	Value         float64
	SupersedesID  *int64
	Revision      int64
	RecordedAt    time.Time
	// Source is "entered" (Home) or "imported" (a weight CSV, no activity).
	Source string `gorm:"default:entered"`
}

// Receipt records an accepted publication.
type Receipt struct {
	Publisher   string `gorm:"primaryKey"`
	RunID       string `gorm:"primaryKey"`
	JobKey      string
	PayloadHash string
	Revision    int64
	ReceivedAt  time.Time
}

// View is p as the agent's context and Home show it.
func (p Person) View() contract.PersonView {
	return contract.PersonView{ID: p.ID, Name: p.Name, Context: p.Context, EvidenceIDs: evidenceList(p.EvidenceIDs), Revision: p.Revision, UpdatedAt: p.UpdatedAt}
}
