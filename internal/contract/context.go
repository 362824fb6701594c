package contract

import (
	"encoding/json"
	"time"
)

// ContextHistory is how far back settled items appear in the agent context.
const ContextHistory = 14 * 24 * time.Hour

// ContextPageSize bounds every collection of the agent context.
const ContextPageSize = 500

// Collections that GET /api/agent-context/{collection} pages through.
const (
	CollectionPeople       = "people"
	CollectionActivities   = "activities"
	CollectionReplyDrafts  = "replyDrafts"
	CollectionMeasurements = "measurements"
	CollectionSends        = "sends"
	CollectionRequests     = "requests"
	CollectionObservations = "observations"
)

// ContextCollections lists the pageable collections.
var ContextCollections = []string{CollectionPeople, CollectionActivities, CollectionReplyDrafts, CollectionMeasurements, CollectionSends, CollectionRequests,
	CollectionObservations, CollectionRoutineDefinitions, CollectionTrials, CollectionOccurrences, CollectionRoutineMetrics, CollectionReplyDecisions, CollectionActivityDecisions}

// AgentContext is what the agent reads before it reasons (docs/agent-api.md).
type AgentContext struct {
	Revision    int64      `json:"revision"`
	GeneratedAt time.Time  `json:"generatedAt"`
	Brief       *BriefView `json:"brief,omitempty"`
	Today       TodayView  `json:"today"`
	// WeightGoal is the owner's weight goal, when set (the weight page).
	WeightGoal   *WeightGoal           `json:"weightGoal,omitempty"`
	People       Page[PersonView]      `json:"people"`
	Activities   Page[ActivityView]    `json:"activities"`
	ReplyDrafts  Page[DraftView]       `json:"replyDrafts"`
	Measurements Page[MeasurementView] `json:"measurements"`
	Sends        Page[SendView]        `json:"sends"`
	Requests     Page[RequestView]     `json:"requests"`
	Observations Page[ObservationView] `json:"observations"`
	// ReplyDecisions are the owner's decisions about chats' replies in the
	// last 14 days: no reply needed, remind later, handed off, own reply.
	ReplyDecisions Page[ReplyDecisionView] `json:"replyDecisions"`
	// ChatReplies is, per chat the owner sent replies to in the last 90
	// days, how they were answered (ChatRepliesView); absent when none.
	ChatReplies []ChatRepliesView `json:"chatReplies,omitempty"`
	// Rhythms is each person's rhythm with them (PersonRhythmView), for the
	// people with enough conversations to tell; absent when none.
	Rhythms []PersonRhythmView `json:"rhythms,omitempty"`
	// Voice is, per person, how the owner's sent replies differed from the
	// agent's drafts (VoiceView); absent when no person has enough of them.
	Voice []VoiceView `json:"voice,omitempty"`
	// ActivityDecisions are the changes of owner states in the last 14
	// days, oldest first, each with the state it replaced: a decision on
	// Home and its undo are two items (cause "undo", undoes: the first).
	ActivityDecisions Page[ActivityDecisionView] `json:"activityDecisions"`
	// Routines: current definitions, recent trials, the last 14
	// days of occurrences with outcomes, and each recent trial's counts.
	RoutineDefinitions Page[RoutineContextView] `json:"routineDefinitions"`
	Trials             Page[TrialView]          `json:"trials"`
	Occurrences        Page[OccurrenceView]     `json:"occurrences"`
	RoutineMetrics     Page[TrialMetricsView]   `json:"routineMetrics"`
	LastPublication    *PublicationView         `json:"lastPublication,omitempty"`
	// JobFates is, per job and per window (7 and 30 days), what its runs
	// published and what became of it (a job with no run in a window has
	// no entry for it).
	JobFates []WorkFates `json:"jobFates,omitempty"`
	// CoverageGaps are the spans of the last 14 days when hearth could not
	// see Beeper, oldest first: messages from then may be missing. Left
	// out when there was none.
	CoverageGaps []CoverageGapView `json:"coverageGaps,omitempty"`
	// OwnerItems are the tasks and notes the owner added in their own
	// words (Home's quick add), open or done in the last 14 days; read-only
	// for the agent. Left out when there is none.
	OwnerItems []OwnerItemView `json:"ownerItems,omitempty"`
	// SendsLater are the replies the owner confirmed to send later: those
	// waiting, and those held or sent in the last 14 days, by due time.
	// Left out when there is none.
	SendsLater []SendLaterView `json:"sendsLater,omitempty"`
}

// What a coverage gap's watch saw fail (CoverageGapView.What).
const (
	CoverageUnreachable  = "unreachable"   // no answer: Beeper closed, asleep, or the network down
	CoverageTimeout      = "timeout"       // Beeper did not answer in time
	CoverageTokenRefused = "token-refused" // Beeper refused the token (401, 403)
	CoverageBeeperError  = "beeper-error"  // Beeper answered with a failure of its own (5xx)
)

// CoverageGapView is one span when hearth could not see Beeper: from the
// first failed read to the next that worked (no To: still going).
type CoverageGapView struct {
	From time.Time  `json:"from"`
	To   *time.Time `json:"to,omitempty"`
	What string     `json:"what" jsonschema:"enum=unreachable,enum=timeout,enum=token-refused,enum=beeper-error"`
}

// Page is a bounded slice of a collection; NextCursor continues it.
type Page[T any] struct {
	Items      []T    `json:"items"`
	Truncated  bool   `json:"truncated"`
	NextCursor string `json:"nextCursor,omitempty"`
}

// BriefView is the stored brief.
type BriefView struct {
	Date        string    `json:"date"`
	TimeZone    string    `json:"timeZone"`
	Text        string    `json:"text"`
	EvidenceIDs []string  `json:"evidenceIds"`
	Revision    int64     `json:"revision"`
	UpdatedAt   time.Time `json:"updatedAt"`
}

// PersonView is a stored person projection.
type PersonView struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Context     string   `json:"context"`
	EvidenceIDs []string `json:"evidenceIds"`
	Revision    int64    `json:"revision"`
	// UpdatedAt is always set in the full context; the compact one leaves
	// it out (revision already tells a change, and nothing sends it back).
	UpdatedAt time.Time `json:"updatedAt,omitzero" jsonschema_description:"when the person last changed; left out of the compact context (revision tells a change), always present in the full one"`
}

// ActivityView is an agent suggestion with the owner's state beside it.
type ActivityView struct {
	ID             string          `json:"id"`
	Kind           string          `json:"kind"`
	Title          string          `json:"title"`
	Detail         string          `json:"detail,omitempty"`
	EvidenceIDs    []string        `json:"evidenceIds"`
	PersonID       string          `json:"personId,omitempty"`
	ParentID       string          `json:"parentId,omitempty"`
	OccurrenceKey  string          `json:"occurrenceKey,omitempty"`
	Recommendation *RecommendView  `json:"recommendation,omitempty"`
	Payload        json.RawMessage `json:"payload"`
	Revision       int64           `json:"revision"`
	Retracted      *RetractedView  `json:"retracted,omitempty"`
	// UserState is always set in the full context; the compact one leaves
	// out the default (available, never decided), which says nothing.
	UserState UserStateView `json:"userState,omitzero" jsonschema_description:"the owner's state; left out of the compact context when it is the default: available, never decided (no until, note or at); always present in the full one"`
}

// RecommendView is where an activity sits on Home.
type RecommendView struct {
	Section string `json:"section"`
	Rank    int64  `json:"rank"`
	Reason  string `json:"reason,omitempty"`
}

// RetractedView says when and why the agent withdrew a suggestion.
type RetractedView struct {
	At     time.Time `json:"at"`
	Reason string    `json:"reason,omitempty"`
}

// UserStateView is the owner's decision; At is absent when never decided.
type UserStateView struct {
	State string     `json:"state"`
	Until string     `json:"until,omitempty"`
	Note  string     `json:"note,omitempty"`
	At    *time.Time `json:"at,omitempty"`
}

// DraftView is a reply draft with the owner's edit beside the agent's candidates.
type DraftView struct {
	ID                    string         `json:"id"`
	PersonID              string         `json:"personId,omitempty"`
	AccountID             string         `json:"accountId"`
	ChatID                string         `json:"chatId"`
	ReplyToMessageID      string         `json:"replyToMessageId,omitempty"`
	SourceMessageRevision string         `json:"sourceMessageRevision"`
	Reason                string         `json:"reason"`
	Candidates            []CandidateIn  `json:"candidates"`
	EvidenceIDs           []string       `json:"evidenceIds"`
	Revision              int64          `json:"revision"`
	Retracted             *RetractedView `json:"retracted,omitempty"`
	OwnerEdit             *OwnerEditView `json:"ownerEdit,omitempty"`
	// Stale is set when the Beeper watch saw a message from someone else
	// in the chat newer than sourceMessageRevision.
	Stale bool `json:"stale,omitempty"`
	// Outcome says what became of the draft once something did.
	Outcome *DraftOutcomeView `json:"outcome,omitempty"`
}

// OwnerEditView is the owner's wording of a draft.
type OwnerEditView struct {
	Body                string    `json:"body"`
	SelectedCandidateID string    `json:"selectedCandidateId,omitempty"`
	At                  time.Time `json:"at"`
	// Revision is the commit that saved the edit; pages use it so an
	// autosave never overwrites a newer edit. Not part of the agent's JSON.
	Revision int64 `json:"-"`
}

// MeasurementView is one recorded value.
type MeasurementView struct {
	ID            int64     `json:"id"`
	ActivityID    string    `json:"activityId"`
	OccurrenceKey string    `json:"occurrenceKey,omitempty"`
	Metric        string    `json:"metric"`
	Unit          string    `json:"unit"`
	Value         float64   `json:"value"`
	SupersedesID  *int64    `json:"supersedesId,omitempty"`
	RecordedAt    time.Time `json:"recordedAt"`
}

// SendView is a reply the owner confirmed, with its outcome, so the agent
// can update life.
type SendView struct {
	ID      int64  `json:"id"`
	SendKey string `json:"sendKey"`
	// DraftID is empty for the owner's own reply (OwnReply).
	DraftID          string    `json:"draftId"`
	OwnReply         bool      `json:"ownReply,omitempty"`
	ActivityID       string    `json:"activityId,omitempty"`
	AccountID        string    `json:"accountId"`
	ChatID           string    `json:"chatId"`
	ReplyToMessageID string    `json:"replyToMessageId,omitempty"`
	Body             string    `json:"body"`
	Status           string    `json:"status"`
	PendingMessageID string    `json:"pendingMessageId,omitempty"`
	Error            string    `json:"error,omitempty"`
	CreatedAt        time.Time `json:"createdAt"`
	UpdatedAt        time.Time `json:"updatedAt"`
	// Origin is whose words went out: the draft as the agent wrote it,
	// the owner's edit of it, or the owner's own words (no draft).
	Origin string `json:"origin,omitempty" jsonschema:"enum=as-drafted,enum=edited,enum=own-words"`
	// Followed is what became of a sent reply, as Beeper reported it, until
	// it was answered or 14 days passed; absent while nothing is known.
	Followed *SendFollowedView `json:"followed,omitempty"`
}

// SendFollowedView is what became of a sent reply after it went out, as
// facts: delivered (Beeper's send status), seen (a read receipt, when the
// network reports them) and answered (the first message from the other
// side after it that is not a reaction, notice, hidden or deleted), each
// absent while unknown.
type SendFollowedView struct {
	DeliveredAt *time.Time `json:"deliveredAt,omitempty"`
	SeenAt      *time.Time `json:"seenAt,omitempty"`
	AnsweredAt  *time.Time `json:"answeredAt,omitempty"`
	// AnsweredAfterMinutes is how long after the send the answer came.
	AnsweredAfterMinutes *int `json:"answeredAfterMinutes,omitempty"`
}

// ChatRepliesView is how a chat answered the owner's replies over the last
// 90 days: replies sent, how many got an answer, and the median minutes to
// an answer, with each origin's share, so the agent can learn which
// drafts get answered.
type ChatRepliesView struct {
	ChatID        string `json:"chatId"`
	PersonID      string `json:"personId,omitempty"`
	Sent          int    `json:"sent"`
	Answered      int    `json:"answered"`
	MedianMinutes *int   `json:"medianAnswerMinutes,omitempty"`
	// ByOrigin counts sent and answered replies per origin (as-drafted, edited, own-words).
	ByOrigin []OriginRepliesView `json:"byOrigin,omitempty"`
}

// OriginRepliesView is one origin's replies of a chat and how many were answered.
type OriginRepliesView struct {
	Origin   string `json:"origin" jsonschema:"enum=as-drafted,enum=edited,enum=own-words"`
	Sent     int    `json:"sent"`
	Answered int    `json:"answered"`
}

// PublicationView describes the newest accepted publication.
type PublicationView struct {
	RunID      string    `json:"runId"`
	JobKey     string    `json:"jobKey"`
	Publisher  string    `json:"publisher"`
	Revision   int64     `json:"revision"`
	ReceivedAt time.Time `json:"receivedAt"`
}

// TodayView is the owner's day as the agent context states it.
type TodayView struct {
	Date     string `json:"date"`
	TimeZone string `json:"timeZone"`
}

// WeightGoal is the owner's target weight in the unit it was set in.
type WeightGoal struct {
	Value float64 `json:"value"`
	Unit  string  `json:"unit"`
}

// MaxPendingInContext bounds the requests the agent context lists.
const MaxPendingInContext = ContextPageSize

// RequestView is a request as the agent context and pages show it.
type RequestView struct {
	RequestID      string       `json:"requestId"`
	Kind           string       `json:"kind"`
	EntityID       string       `json:"entityId,omitempty"`
	EntityName     string       `json:"entityName,omitempty"`
	SourceRevision string       `json:"sourceRevision,omitempty"`
	Text           string       `json:"text"`
	Edit           *EditIn      `json:"edit,omitempty"`
	Status         string       `json:"status"`
	Proposal       *ProposalRef `json:"proposal,omitempty"`
	CompletedRunID string       `json:"completedRunId,omitempty"`
	CreatedAt      time.Time    `json:"createdAt"`
	UpdatedAt      time.Time    `json:"updatedAt"`
}

// ProposalRef names the review proposal a routine-change request decides.
type ProposalRef struct {
	ReviewID   string `json:"reviewId"`
	ProposalID string `json:"proposalId"`
	Decision   string `json:"decision"`
}

// ObservationView is a pending observation as the agent context lists it.
type ObservationView struct {
	ObservationID int64                  `json:"observationId"`
	Source        string                 `json:"source"`
	Ref           string                 `json:"ref"`
	ChangeType    string                 `json:"changeType"`
	Actor         string                 `json:"actor"`
	Payload       ObservationPayloadView `json:"payload"`
	ContentHash   string                 `json:"contentHash"`
	ReceivedAt    time.Time              `json:"receivedAt"`
}

// ObservationPayloadView is the stored payload; Raw is its canonical JSON.
type ObservationPayloadView struct {
	Kind       string          `json:"kind"`
	ProviderID string          `json:"providerId"`
	Raw        json.RawMessage `json:"raw"`
}

// CollectionReplyDecisions pages the owner's reply decisions.
const CollectionReplyDecisions = "replyDecisions"

// ReplyDecisionView is an owner decision about a chat's reply, as the agent
// context lists it (collection replyDecisions).
type ReplyDecisionView struct {
	ID        int64  `json:"id"`
	ChatID    string `json:"chatId"`
	AccountID string `json:"accountId,omitempty"`
	DraftID   string `json:"draftId,omitempty"`
	Decision  string `json:"decision" jsonschema:"enum=no-reply-needed,enum=remind-later,enum=handed-off,enum=own-reply"`
	// Until is remind-later's date; Text is what was handed off or sent.
	Until   string    `json:"until,omitempty"`
	Text    string    `json:"text,omitempty"`
	SendKey string    `json:"sendKey,omitempty"`
	At      time.Time `json:"at"`
}

// DraftOutcomeView is what became of a draft, as facts: sent as written
// (which candidate), sent after an edit (the sent text), replaced by the
// owner's own reply (its text), handed off to Beeper Desktop (the text
// given), or declined ("no reply needed"). A send that went out wins;
// otherwise the newest decision.
type DraftOutcomeView struct {
	Kind        string    `json:"kind" jsonschema:"enum=sent-as-written,enum=sent-edited,enum=replaced,enum=handed-off,enum=declined"`
	CandidateID string    `json:"candidateId,omitempty"`
	Text        string    `json:"text,omitempty"`
	SendKey     string    `json:"sendKey,omitempty"`
	At          time.Time `json:"at"`
}

// CollectionActivityDecisions pages the owner's decisions on activities.
const CollectionActivityDecisions = "activityDecisions"

// ActivityDecisionView is one change of an owner state as the agent reads
// it: what the owner (or a rule, or an undo) decided, and what it replaced.
type ActivityDecisionView struct {
	ID         int64  `json:"id"`
	ActivityID string `json:"activityId"`
	State      string `json:"state"`
	Until      string `json:"until,omitempty"`
	Note       string `json:"note,omitempty"`
	// PriorState is the state this replaced; absent when there was none.
	PriorState string `json:"priorState,omitempty"`
	// Cause is home, rule, value, owner or undo.
	Cause string `json:"cause"`
	// Undoes is the decision an undo reverted.
	Undoes   int64     `json:"undoes,omitempty"`
	Revision int64     `json:"revision"`
	At       time.Time `json:"at"`
}

// WorkFates is what runs published and what became of each item so far,
// by what the owner did (docs/schedules-and-runner.md, "What a run's work
// became"): one run's (Days 0, Runs 1) or a job's runs started in the last
// Days days. Accepted items are drafts sent as written or after an edit
// and tasks done. A count left out is zero; CostUSD and
// CostPerAcceptedUSD are left out when no run reported a cost.
type WorkFates struct {
	Job                string   `json:"job"`
	Days               int      `json:"days,omitempty"`
	Runs               int      `json:"runs"`
	Drafts             int      `json:"drafts,omitempty"`
	SentAsWritten      int      `json:"sentAsWritten,omitempty"`
	SentEdited         int      `json:"sentEdited,omitempty"`
	Replaced           int      `json:"replaced,omitempty"`
	HandedOff          int      `json:"handedOff,omitempty"`
	Declined           int      `json:"declined,omitempty"`
	DraftsWithdrawn    int      `json:"draftsWithdrawn,omitempty"`
	DraftsOpen         int      `json:"draftsOpen,omitempty"`
	Tasks              int      `json:"tasks,omitempty"`
	Done               int      `json:"done,omitempty"`
	Partial            int      `json:"partial,omitempty"`
	Skipped            int      `json:"skipped,omitempty"`
	Dismissed          int      `json:"dismissed,omitempty"`
	TasksWithdrawn     int      `json:"tasksWithdrawn,omitempty"`
	TasksOpen          int      `json:"tasksOpen,omitempty"`
	RequestsCompleted  int      `json:"requestsCompleted,omitempty"`
	Accepted           int      `json:"accepted,omitempty"`
	CostUSD            *float64 `json:"costUsd,omitempty"`
	CostPerAcceptedUSD *float64 `json:"costPerAcceptedUsd,omitempty"`
}
