package contract

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"hearth/internal/ids"
	"hearth/internal/instant"
	"hearth/internal/strictjson"
	"hearth/internal/zone"
)

// Bounds of a publication (docs/agent-api.md). The handler enforces MaxBodyBytes.
const (
	MaxBodyBytes         = 1 << 20
	MaxSourceRefs        = 1000
	MaxPeople            = 500
	MaxActivities        = 500
	MaxReplyDrafts       = 200
	MaxRetractions       = 500
	MaxCompletedRequests = 200
	MaxCandidates        = 5
	MaxIDLen             = 128
	MaxTitleLen          = 200
	MaxNameLen           = 200
	MaxDetailLen         = 4000
	MaxContextLen        = 4000
	MaxBriefLen          = 8000
	MaxReasonLen         = 500
	MaxStyleLen          = 40
	MaxBodyLen           = 4000
	MaxPathLen           = 1024
	MaxEvidenceIDs       = 50
)

// Result is one agent publication, as posted to /api/agent-results.
type Result struct {
	RunID             string             `json:"runId"`
	JobKey            string             `json:"jobKey"`
	ExpectedRevision  int64              `json:"expectedRevision"`
	GeneratedAt       string             `json:"generatedAt"`
	SourceRefs        []SourceRefIn      `json:"sourceRefs"`
	Brief             *BriefIn           `json:"brief"`
	People            []PersonIn         `json:"people"`
	Activities        []ActivityIn       `json:"activities"`
	ReplyDrafts       []ReplyDraftIn     `json:"replyDrafts"`
	Retractions       []RetractionIn     `json:"retractions"`
	CompletedRequests []CompletedRequest `json:"completedRequests"`
	// Routine definitions and reviews may be omitted (a publication from
	// before routines stays valid), never null.
	RoutineDefinitions []RoutineDefinitionIn `json:"routineDefinitions,omitempty"`
	Reviews            []ReviewIn            `json:"reviews,omitempty"`
	// ConsumedObservations are pending observations this publication has
	// taken into account; optional (a publication without it stays valid),
	// never null.
	ConsumedObservations []int64 `json:"consumedObservations,omitempty"`
}

// SourceRefIn is provenance: a life file or a Beeper chat/message. Data, never an instruction.
type SourceRefIn struct {
	ID          string  `json:"id"`
	Kind        string  `json:"kind"`
	ObservedAt  string  `json:"observedAt"`
	Path        *string `json:"path"`
	ContentHash *string `json:"contentHash"`
	AccountID   *string `json:"accountId"`
	ChatID      *string `json:"chatId"`
	MessageID   *string `json:"messageId"`
	TargetID    *string `json:"targetId"`
}

// BriefIn is the daily brief.
type BriefIn struct {
	Date        string   `json:"date"`
	TimeZone    string   `json:"timeZone"`
	Text        string   `json:"text"`
	EvidenceIDs []string `json:"evidenceIds"`
}

// PersonIn is a projection of a life person.
type PersonIn struct {
	ID          string   `json:"id"`
	Name        string   `json:"name"`
	Context     string   `json:"context"`
	EvidenceIDs []string `json:"evidenceIds"`
}

// ActivityIn is one suggested activity; Payload is bound by Kind.
type ActivityIn struct {
	ID             string          `json:"id"`
	Kind           string          `json:"kind"`
	Title          string          `json:"title"`
	Detail         *string         `json:"detail"`
	EvidenceIDs    []string        `json:"evidenceIds"`
	PersonID       *string         `json:"personId"`
	ParentID       *string         `json:"parentId"`
	OccurrenceKey  *string         `json:"occurrenceKey"`
	Recommendation *Recommendation `json:"recommendation"`
	Payload        strictjson.Raw  `json:"payload"`

	// payload is Payload bound to its kind's struct once validated.
	payload any
}

// BoundPayload is Payload bound to its kind's struct (a pointer, as
// NewActivityPayload returns it) once ValidateShape has run; nil before.
func (a *ActivityIn) BoundPayload() any { return a.payload }

// Recommendation places an activity in a Home section at a rank.
type Recommendation struct {
	Section string  `json:"section"`
	Rank    int64   `json:"rank"`
	Reason  *string `json:"reason"`
}

// Activity kinds (docs/contract.md, Activities).
const (
	KindTask        = "task"
	KindMeasurement = "measurement"
	KindReply       = "reply"
	KindRoutine     = "routine"
)

// ActivityKinds lists the kinds an agent may publish.
var ActivityKinds = []string{KindTask, KindMeasurement, KindReply, KindRoutine}

// Sections are Home's groups; they are not types.
var Sections = []string{"routine", "focus", "optional"}

// Metrics and units a measurement may ask for.
var (
	Metrics = []string{"weight"}
	Units   = []string{"kg", "lb"}
)

// EmptyPayload is the payload of task and routine.
type EmptyPayload struct{}

// MeasurementPayload asks the owner for a value.
type MeasurementPayload struct {
	Metric string `json:"metric"`
	Unit   string `json:"unit"`
}

// ReplyPayload points at the draft to review and send.
type ReplyPayload struct {
	DraftID string `json:"draftId"`
}

// ReplyDraftIn is a reply the agent prepared for a chat.
type ReplyDraftIn struct {
	ID                    string        `json:"id"`
	PersonID              *string       `json:"personId"`
	AccountID             string        `json:"accountId"`
	ChatID                string        `json:"chatId"`
	ReplyToMessageID      *string       `json:"replyToMessageId"`
	SourceMessageRevision string        `json:"sourceMessageRevision"`
	Reason                string        `json:"reason"`
	Candidates            []CandidateIn `json:"candidates"`
	EvidenceIDs           []string      `json:"evidenceIds"`
}

// CandidateIn is one wording of a reply.
type CandidateIn struct {
	ID    string `json:"id"`
	Style string `json:"style"`
	Body  string `json:"body"`
}

// RetractionIn withdraws an agent suggestion.
type RetractionIn struct {
	Kind   string  `json:"kind"`
	ID     string  `json:"id"`
	Reason *string `json:"reason"`
}

// CompletedRequest marks an owner request done by this publication.
type CompletedRequest struct {
	RequestID    string   `json:"requestId"`
	SourceRefIDs []string `json:"sourceRefIds"`
}

// ValidationError lists every problem that makes a publication unacceptable.
type ValidationError struct {
	Errors []strictjson.FieldError
	// omitted counts the decoder's problems past its bound; Errors then
	// ends with a note saying so.
	omitted int
}

func (e *ValidationError) Error() string {
	if len(e.Errors) == 0 {
		return "invalid result"
	}
	return fmt.Sprintf("invalid result: %s: %s (and %d more)", e.Errors[0].Path, e.Errors[0].Message, len(e.Errors)-1)
}

// Join adds the store's reference errors to a publication's refusal (e may
// be nil) and returns the refusal, or nil when there is nothing to refuse.
// See joinErrors for what is kept and in which order.
func (e *ValidationError) Join(refs []strictjson.FieldError) *ValidationError {
	if e == nil {
		if len(refs) == 0 {
			return nil
		}
		return &ValidationError{Errors: joinErrors(refs)}
	}
	if len(refs) == 0 {
		return e
	}
	found := e.Errors
	if e.omitted > 0 {
		found = found[:len(found)-1]
	}
	return newValidationError(e.omitted, found, refs)
}

// newValidationError joins classes of errors and notes how many the decoder omitted.
func newValidationError(omitted int, classes ...[]strictjson.FieldError) *ValidationError {
	errs := joinErrors(classes...)
	if omitted > 0 {
		errs = append(errs, strictjson.FieldError{Path: "", Message: fmt.Sprintf("%d more errors omitted; fix the errors above and resubmit", omitted)})
	}
	return &ValidationError{Errors: errs, omitted: omitted}
}

// joinErrors merges classes of errors (decoding, shape, references) into
// one list sorted by path, so one refusal names every problem hearth can
// find. An error at or under a path an earlier class already reported is
// dropped: it is that same fault seen again through a value that did not
// bind (a wrong type leaves an empty string that is also "not an ID").
// Errors at the same path keep their class order.
func joinErrors(classes ...[]strictjson.FieldError) []strictjson.FieldError {
	var out []strictjson.FieldError
	reported := map[string]bool{}
	for _, class := range classes {
		earlier := len(out)
		for _, fe := range class {
			if !reportedAtOrAbove(reported, fe.Path) {
				out = append(out, fe)
			}
		}
		for _, fe := range out[earlier:] {
			reported[fe.Path] = true
		}
	}
	slices.SortStableFunc(out, func(a, b strictjson.FieldError) int { return comparePaths(a.Path, b.Path) })
	return out
}

// reportedAtOrAbove reports whether JSON Pointer p or one that contains it is in reported.
func reportedAtOrAbove(reported map[string]bool, p string) bool {
	for {
		if reported[p] {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// comparePaths orders JSON Pointers segment by segment, array indexes by
// number, so /activities/2 comes before /activities/10 as in the document.
func comparePaths(a, b string) int {
	as, bs := strings.Split(a, "/"), strings.Split(b, "/")
	for i := range min(len(as), len(bs)) {
		x, y := as[i], bs[i]
		if x == y {
			continue
		}
		if isIndex(x) && isIndex(y) {
			if c := cmp.Compare(len(x), len(y)); c != 0 {
				return c
			}
		}
		return strings.Compare(x, y)
	}
	return cmp.Compare(len(as), len(bs))
}

// isIndex reports whether a pointer segment is an array index.
func isIndex(s string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

var (
	hashPattern    = regexp.MustCompile(`^sha256:[0-9a-f]{64}$`)
	occurrencePatt = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}@[A-Za-z0-9_+/-]{1,64}$`)
)

// ParseResult decodes a publication strictly, without validating its
// shape. It returns *strictjson.SyntaxError (400) or *ValidationError (422);
// on a validation error the Result holds every value that bound.
func ParseResult(body []byte) (Result, error) {
	var r Result
	_, err := strictjson.DecodeAndHashPartial(body, &r)
	var shape *strictjson.ShapeError
	if errors.As(err, &shape) {
		return r, &ValidationError{Errors: shape.Errors, omitted: shape.Omitted}
	}
	return r, err
}

// CheckResult decodes a publication strictly and validates its shape, and
// returns the result with its canonical payload hash. A well-formed body
// that breaks the contract still gets its hash and everything that bound
// (its runId among it), so it can be checked against an earlier receipt
// and its references resolved before it is refused. The *ValidationError
// holds decoding errors (unknown fields, wrong types, missing fields) and
// shape errors together; the store adds reference errors with Join.
func CheckResult(body []byte) (Result, string, error) {
	var r Result
	hash, err := strictjson.DecodeAndHashPartial(body, &r)
	var shape *strictjson.ShapeError
	if err != nil && !errors.As(err, &shape) {
		return Result{}, hash, err
	}
	v := &Validator{}
	r.ValidateShape(v)
	if shape == nil {
		if len(v.Errs) == 0 {
			return r, hash, nil
		}
		return r, hash, newValidationError(0, v.Errs)
	}
	decoded := shape.Errors
	if shape.Omitted > 0 {
		decoded = decoded[:len(decoded)-1]
	}
	return r, hash, newValidationError(shape.Omitted, decoded, v.Errs)
}

// Validator collects field errors with JSON Pointer paths. The store
// resolves references with it too, so one publication's shape and
// reference errors come back as one list.
type Validator struct{ Errs []strictjson.FieldError }

// Add records one field error.
func (v *Validator) Add(path, msg, expected, found string) {
	v.Errs = append(v.Errs, strictjson.FieldError{Path: path, Message: msg, Expected: expected, Found: found})
}

// QuoteFound quotes a found value for an error, cut to 60 characters.
func QuoteFound(s string) string {
	if utf8.RuneCountInString(s) > 60 {
		r := []rune(s)
		s = string(r[:60]) + "…"
	}
	return fmt.Sprintf("%q", s)
}

// Unique reports a second use of id among the items seen so far.
func (v *Validator) Unique(seen map[string]bool, path, id, what string) {
	if seen[id] {
		v.Add(path, "duplicate "+what+" ID in this publication", "unique IDs", QuoteFound(id))
	}
	seen[id] = true
}

// ID checks an ID (package ids).
func (v *Validator) ID(path, s string) {
	if !ids.Valid(s) {
		v.Add(path, "invalid ID", ids.Expected, QuoteFound(s))
	}
}

// Text checks free text of at most max characters, required or not.
func (v *Validator) Text(path, s string, max int, required bool) {
	n := utf8.RuneCountInString(s)
	if required && strings.TrimSpace(s) == "" {
		v.Add(path, "must not be empty", fmt.Sprintf("1-%d characters", max), QuoteFound(s))
		return
	}
	if n > max {
		v.Add(path, fmt.Sprintf("too long: %d characters", n), fmt.Sprintf("at most %d characters", max), fmt.Sprintf("%d characters", n))
	}
	if !utf8.ValidString(s) {
		v.Add(path, "not valid UTF-8", "valid UTF-8 text", "invalid bytes")
	}
}

// Enum checks s is one of allowed.
func (v *Validator) Enum(path, s string, allowed []string) {
	if !slices.Contains(allowed, s) {
		v.Add(path, "unknown value", "one of: "+strings.Join(allowed, ", "), QuoteFound(s))
	}
}

// Count checks a list has at most max items; false when it has more.
func (v *Validator) Count(path string, n, max int) bool {
	if n > max {
		v.Add(path, fmt.Sprintf("too many items: %d", n), fmt.Sprintf("at most %d items", max), fmt.Sprintf("%d items", n))
		return false
	}
	return true
}

// timestamp checks an instant against hearth's one bound (package instant):
// a value past it once stored made every later Home read fail.
func (v *Validator) timestamp(path, s string) {
	if _, err := instant.Parse(s); err != nil {
		v.Add(path, err.Error(), instant.Expected, QuoteFound(s))
	}
}

// date checks a calendar date YYYY-MM-DD against the same bound.
func (v *Validator) date(path, s string) {
	if _, err := instant.ParseDate(s); err != nil {
		v.Add(path, err.Error(), instant.DateExpected, QuoteFound(s))
	}
}

func (v *Validator) lifePath(path, p string) {
	bad := p == "" || len(p) > MaxPathLen || strings.HasPrefix(p, "/") || strings.Contains(p, "\\") ||
		strings.ContainsRune(p, 0) || strings.HasPrefix(p, "~")
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." || seg == "." || seg == "" {
			bad = true
		}
	}
	if bad {
		v.Add(path, "life path must stay inside life", "relative path without '..', '.', empty segments, a leading '/' or '\\'", QuoteFound(p))
	}
}

// ValidateShape checks everything that needs no stored state: bounds,
// formats, enums, payloads, duplicate IDs. known* sets collect the IDs this
// publication defines so references can be resolved afterwards.
func (r *Result) ValidateShape(v *Validator) {
	v.ID("/runId", r.RunID)
	v.ID("/jobKey", r.JobKey)
	if r.ExpectedRevision < 0 {
		v.Add("/expectedRevision", "must not be negative", "integer >= 0", fmt.Sprint(r.ExpectedRevision))
	}
	v.timestamp("/generatedAt", r.GeneratedAt)

	if v.Count("/sourceRefs", len(r.SourceRefs), MaxSourceRefs) {
		seen := map[string]bool{}
		for i, s := range r.SourceRefs {
			p := fmt.Sprintf("/sourceRefs/%d", i)
			v.ID(p+"/id", s.ID)
			v.Unique(seen, p+"/id", s.ID, "source ref")
			v.timestamp(p+"/observedAt", s.ObservedAt)
			s.validateKind(v, p)
		}
	}
	if b := r.Brief; b != nil {
		v.date("/brief/date", b.Date)
		if _, err := zone.Load(b.TimeZone); err != nil {
			v.Add("/brief/timeZone", "unknown time zone", "IANA time zone name like Europe/Berlin", QuoteFound(b.TimeZone))
		}
		v.Text("/brief/text", b.Text, MaxBriefLen, true)
		v.evidenceShape("/brief/evidenceIds", b.EvidenceIDs)
	}
	if v.Count("/people", len(r.People), MaxPeople) {
		seen := map[string]bool{}
		for i, p := range r.People {
			path := fmt.Sprintf("/people/%d", i)
			v.ID(path+"/id", p.ID)
			v.Unique(seen, path+"/id", p.ID, "person")
			v.Text(path+"/name", p.Name, MaxNameLen, true)
			v.Text(path+"/context", p.Context, MaxContextLen, false)
			v.evidenceShape(path+"/evidenceIds", p.EvidenceIDs)
		}
	}
	if v.Count("/activities", len(r.Activities), MaxActivities) {
		seen := map[string]bool{}
		for i := range r.Activities {
			a := &r.Activities[i]
			path := fmt.Sprintf("/activities/%d", i)
			v.ID(path+"/id", a.ID)
			v.Unique(seen, path+"/id", a.ID, "activity")
			v.Text(path+"/title", a.Title, MaxTitleLen, true)
			if a.Detail != nil {
				v.Text(path+"/detail", *a.Detail, MaxDetailLen, false)
			}
			v.evidenceShape(path+"/evidenceIds", a.EvidenceIDs)
			if a.PersonID != nil {
				v.ID(path+"/personId", *a.PersonID)
			}
			if a.ParentID != nil {
				v.ID(path+"/parentId", *a.ParentID)
				if *a.ParentID == a.ID {
					v.Add(path+"/parentId", "an activity cannot be its own parent", "the ID of a routine activity", QuoteFound(*a.ParentID))
				}
			}
			if a.OccurrenceKey != nil {
				validateOccurrenceKey(v, path+"/occurrenceKey", *a.OccurrenceKey)
			}
			if rec := a.Recommendation; rec != nil {
				v.Enum(path+"/recommendation/section", rec.Section, Sections)
				if rec.Rank < -1_000_000 || rec.Rank > 1_000_000 {
					v.Add(path+"/recommendation/rank", "rank out of range", "integer from -1000000 to 1000000", fmt.Sprint(rec.Rank))
				}
				if rec.Reason != nil {
					v.Text(path+"/recommendation/reason", *rec.Reason, MaxReasonLen, false)
				}
			}
			a.validatePayload(v, path)
		}
	}
	if v.Count("/replyDrafts", len(r.ReplyDrafts), MaxReplyDrafts) {
		seen := map[string]bool{}
		for i, d := range r.ReplyDrafts {
			path := fmt.Sprintf("/replyDrafts/%d", i)
			v.ID(path+"/id", d.ID)
			v.Unique(seen, path+"/id", d.ID, "reply draft")
			if d.PersonID != nil {
				v.ID(path+"/personId", *d.PersonID)
			}
			v.Text(path+"/accountId", d.AccountID, 256, true)
			v.Text(path+"/chatId", d.ChatID, 256, true)
			if d.ReplyToMessageID != nil {
				v.Text(path+"/replyToMessageId", *d.ReplyToMessageID, 256, true)
			}
			v.Text(path+"/sourceMessageRevision", d.SourceMessageRevision, 128, true)
			v.Text(path+"/reason", d.Reason, MaxReasonLen, true)
			if len(d.Candidates) == 0 {
				v.Add(path+"/candidates", "a draft needs at least one candidate", fmt.Sprintf("1-%d candidates", MaxCandidates), "0 items")
			} else if v.Count(path+"/candidates", len(d.Candidates), MaxCandidates) {
				cseen := map[string]bool{}
				for j, c := range d.Candidates {
					cp := fmt.Sprintf("%s/candidates/%d", path, j)
					v.ID(cp+"/id", c.ID)
					if cseen[c.ID] {
						v.Add(cp+"/id", "duplicate candidate ID in this draft", "unique IDs", QuoteFound(c.ID))
					}
					cseen[c.ID] = true
					v.Text(cp+"/style", c.Style, MaxStyleLen, true)
					v.Text(cp+"/body", c.Body, MaxBodyLen, true)
				}
			}
			v.evidenceShape(path+"/evidenceIds", d.EvidenceIDs)
		}
	}
	if v.Count("/retractions", len(r.Retractions), MaxRetractions) {
		for i, rt := range r.Retractions {
			path := fmt.Sprintf("/retractions/%d", i)
			v.Enum(path+"/kind", rt.Kind, []string{"activity", "replyDraft"})
			v.ID(path+"/id", rt.ID)
			if rt.Reason != nil {
				v.Text(path+"/reason", *rt.Reason, MaxReasonLen, false)
			}
		}
	}
	r.validateRoutines(v)
	if v.Count("/completedRequests", len(r.CompletedRequests), MaxCompletedRequests) {
		for i, c := range r.CompletedRequests {
			path := fmt.Sprintf("/completedRequests/%d", i)
			v.ID(path+"/requestId", c.RequestID)
			v.evidenceShape(path+"/sourceRefIds", c.SourceRefIDs)
		}
	}
	r.validateConsumed(v)
}

func (v *Validator) evidenceShape(path string, ids []string) {
	if !v.Count(path, len(ids), MaxEvidenceIDs) {
		return
	}
	for i, id := range ids {
		v.ID(fmt.Sprintf("%s/%d", path, i), id)
	}
}

func (s SourceRefIn) validateKind(v *Validator, p string) {
	forbid := func(name string, val *string) {
		if val != nil {
			v.Add(p+"/"+name, fmt.Sprintf("field not allowed on a %s source ref", s.Kind), "absent", QuoteFound(*val))
		}
	}
	need := func(name string, val *string, check func(string, string)) {
		if val == nil {
			v.Add(p+"/"+name, fmt.Sprintf("missing required field %q for a %s source ref", name, s.Kind), "string", "absent")
			return
		}
		check(p+"/"+name, *val)
	}
	switch s.Kind {
	case "life":
		need("path", s.Path, v.lifePath)
		need("contentHash", s.ContentHash, func(path, h string) {
			if !hashPattern.MatchString(h) {
				v.Add(path, "bad content hash", "sha256: followed by 64 lowercase hex digits", QuoteFound(h))
			}
		})
		forbid("accountId", s.AccountID)
		forbid("chatId", s.ChatID)
		forbid("messageId", s.MessageID)
		forbid("targetId", s.TargetID)
	case "beeper":
		nonEmpty := func(path, val string) { v.Text(path, val, 256, true) }
		need("accountId", s.AccountID, nonEmpty)
		need("chatId", s.ChatID, nonEmpty)
		if s.MessageID != nil {
			nonEmpty(p+"/messageId", *s.MessageID)
		}
		if s.TargetID != nil {
			nonEmpty(p+"/targetId", *s.TargetID)
		}
		forbid("path", s.Path)
		forbid("contentHash", s.ContentHash)
	default:
		v.Enum(p+"/kind", s.Kind, []string{"life", "beeper"})
	}
}

// validateOccurrenceKey checks "YYYY-MM-DD@IANA/Zone", its date inside the bound.
func validateOccurrenceKey(v *Validator, path, key string) {
	const expected = "YYYY-MM-DD@IANA zone, like 2026-09-29@Asia/Tokyo, with " + instant.DateExpected
	date, name, ok := strings.Cut(key, "@")
	_, zoneErr := zone.Load(name)
	if !ok || !occurrencePatt.MatchString(key) || zoneErr != nil {
		v.Add(path, "bad occurrence key", expected, QuoteFound(key))
		return
	}
	if _, err := instant.ParseDate(date); err != nil {
		v.Add(path, "bad occurrence key: "+err.Error(), expected, QuoteFound(key))
	}
}

// NewActivityPayload returns a pointer to a new payload of an activity
// kind's type; ok is false for an unknown kind. The decoder binds with it
// and the JSON Schema reflects it, so the two name the same fields.
func NewActivityPayload(kind string) (payload any, ok bool) {
	switch kind {
	case KindTask, KindRoutine:
		return &EmptyPayload{}, true
	case KindMeasurement:
		return &MeasurementPayload{}, true
	case KindReply:
		return &ReplyPayload{}, true
	}
	return nil, false
}

// validatePayload binds the payload by kind; an unknown kind is reported once.
func (a *ActivityIn) validatePayload(v *Validator, path string) {
	target, ok := NewActivityPayload(a.Kind)
	if !ok {
		v.Enum(path+"/kind", a.Kind, ActivityKinds)
		return
	}
	if !a.Payload.Present() {
		return // the decoder reported it missing
	}
	if err := a.Payload.Bind(target); err != nil {
		var shape *strictjson.ShapeError
		if errors.As(err, &shape) {
			v.Errs = append(v.Errs, shape.Errors...)
			return
		}
		v.Add(path+"/payload", err.Error(), "object", "")
		return
	}
	a.payload = target
	switch p := target.(type) {
	case *MeasurementPayload:
		v.Enum(path+"/payload/metric", p.Metric, Metrics)
		v.Enum(path+"/payload/unit", p.Unit, Units)
	case *ReplyPayload:
		v.ID(path+"/payload/draftId", p.DraftID)
	}
}
