package schemagen

import (
	"fmt"
	"math"
	"reflect"
	"slices"
	"strings"
	"time"
	"unicode"

	"hearth/internal/contract"
	"hearth/internal/ids"
	"hearth/internal/instant"
)

// This file makes the reflected schemas say what the decoder checks: every
// bound, pattern and enum (from the contract's own constants, so a changed bound
// changes the schema), and each per-kind shape as a closed anyOf keyed by
// kind. The corpus tests hold the schema and the server to the same answer.

// rule constrains one property's schema.
type rule func(s *object)

func all(rules ...rule) rule {
	return func(s *object) {
		for _, r := range rules {
			r(s)
		}
	}
}

func str(s *object) { s.Set("type", "string") }

// id is the one ID rule (package ids).
func id(s *object) {
	str(s)
	s.Set("pattern", ids.Pattern)
	s.Set("maxLength", ids.MaxLen)
}

// agentID is an ID a publication chooses for an activity: not hearth's.
func agentID(s *object) {
	id(s)
	s.Set("not", newObject("pattern", "^"+contract.HearthIDPrefix))
	s.Set("description", "not starting with "+contract.HearthIDPrefix+" (routine occurrences hearth makes)")
}

// text is free text of at most max characters; it may be empty.
func text(max int) rule {
	return func(s *object) {
		str(s)
		s.Set("maxLength", max)
	}
}

// nonBlankPattern matches a string with a character that is not white
// space by Go's unicode.IsSpace, which strings.TrimSpace uses. The class is
// written out so that every regular-expression dialect reads it the same,
// and the pattern is anchored at both ends, so a constrained decoder that
// matches patterns whole (not by search, as JSON Schema does) agrees.
//
// unicode.IsSpace holds exactly the runes of the White_Space table, so only
// those are tried: every rune up to MaxRune took milliseconds at each start
// of hearth, which imports this package to serve the schemas.
var nonBlankPattern = func() string {
	var space strings.Builder
	var candidates []rune
	for _, r := range unicode.White_Space.R16 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			candidates = append(candidates, c)
		}
	}
	for _, r := range unicode.White_Space.R32 {
		for c := rune(r.Lo); c <= rune(r.Hi); c += rune(r.Stride) {
			candidates = append(candidates, c)
		}
	}
	for _, r := range candidates {
		if !unicode.IsSpace(r) {
			continue
		}
		switch r {
		case '\t':
			space.WriteString(`\t`)
		case '\n':
			space.WriteString(`\n`)
		case '\v':
			space.WriteString(`\v`)
		case '\f':
			space.WriteString(`\f`)
		case '\r':
			space.WriteString(`\r`)
		default:
			space.WriteRune(r)
		}
	}
	ws := space.String()
	return `^[` + ws + `]*[^` + ws + `][\s\S]*$`
}()

// nonBlank is required text: 1 to max characters, not only white space.
func nonBlank(max int) rule {
	return func(s *object) {
		text(max)(s)
		s.Set("minLength", 1)
		s.Set("pattern", nonBlankPattern)
	}
}

// items bounds an array's length and constrains its items (item may be nil
// when the items are a definition with its own rules).
func items(min, max int, item rule) rule {
	return func(s *object) {
		s.Set("type", "array")
		if min > 0 {
			s.Set("minItems", min)
		}
		s.Set("maxItems", max)
		if item != nil {
			it := s.obj("items")
			if it == nil {
				it = newObject()
				s.Set("items", it)
			}
			item(it)
		}
	}
}

func unique(s *object) { s.Set("uniqueItems", true) }

var evidence = items(0, contract.MaxEvidenceIDs, id)

func integer(min, max int64) rule {
	return func(s *object) {
		s.Set("type", "integer")
		s.Set("minimum", min)
		s.Set("maximum", max)
	}
}

func enum(values ...string) rule {
	return func(s *object) {
		str(s)
		list := make([]any, len(values))
		for i, v := range values {
			list[i] = v
		}
		s.Set("enum", list)
	}
}

func pattern(p string) rule {
	return func(s *object) {
		str(s)
		s.Set("pattern", p)
	}
}

// describe sets a property's description.
func describe(d string) rule { return func(s *object) { s.Set("description", d) } }

// Time patterns: RFC 3339 as Go's parser reads it (upper-case T and Z, no
// leap second, offsets to ±23:59); format alone lets a validator accept
// "t", "z" and ":60".
const (
	// yearPattern is the years of package instant's range, 2000 to 2199.
	yearPattern = `(?:20|21)\d{2}`
	// An instant's date is local: 1999-12-31 and 2200-01-01 pass, since
	// with an offset they may fall inside the range (the description says
	// where it ends).
	instantPattern = `^(?:` + yearPattern + `-\d{2}-\d{2}|1999-12-31|2200-01-01)T\d{2}:\d{2}:[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$`
	datePattern    = `^` + yearPattern + `-\d{2}-\d{2}$`
	// An occurrence key is a date and a zone name; the date's year, month
	// and day are checked by pattern, the rest of its calendar by the server.
	occurrencePattern = `^` + yearPattern + `-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])@[A-Za-z0-9_+-][A-Za-z0-9_+/-]{0,63}$`
	zonePattern       = `^[A-Za-z][A-Za-z0-9_+-]*(?:/[A-Za-z0-9_+-]+)*$`
	hashPattern       = `^sha256:[0-9a-f]{64}$`
	timeOfDayPattern  = `^(?:[01]\d|2[0-3]):[0-5]\d$`
)

// lifePathPattern is a relative path inside life: segments that are not
// empty, "." or "..", no backslash or NUL, not starting with "/" or "~".
var lifePathPattern = func() string {
	const c = `[^/\\\x00]`
	seg := func(first string) string {
		return `(?:` + first + c + `*|\.[^/\\\x00.]` + c + `*|\.\.` + c + `+)`
	}
	return `^` + seg(`[^/\\\x00.~]`) + `(?:/` + seg(`[^/\\\x00.]`) + `)*$`
}()

// format sets a string's format.
func format(f string) rule { return func(s *object) { s.Set("format", f) } }

// The range of instants and dates hearth accepts (package instant), in words.
var (
	instantRange = fmt.Sprintf("RFC 3339, offset -23:59 to +23:59, from %s up to (not including) %s",
		instant.Earliest.Format(time.RFC3339), instant.End.Format(time.RFC3339))
	dateRange = fmt.Sprintf("YYYY-MM-DD from %s to %s", instant.Earliest.Format(time.DateOnly), instant.End.AddDate(0, 0, -1).Format(time.DateOnly))
)

var (
	timestamp = all(str, format("date-time"), describe(instantRange), pattern(instantPattern))
	date      = all(str, format("date"), pattern(datePattern))
	briefDate = all(str, format("date"), describe(dateRange), pattern(datePattern))
	zone      = all(pattern(zonePattern), func(s *object) {
		s.Set("not", newObject("enum", []any{"Local"}))
		s.Set("description", "an IANA time zone name, like Europe/Berlin (not Local)")
	})
	beeperID = nonBlank(256)
)

// bounds are the rules of each definition's properties, by Go type name.
var bounds = map[string]map[string]rule{
	"Result": {
		"runId": id, "jobKey": id, "expectedRevision": integer(0, math.MaxInt64), "generatedAt": timestamp,
		"sourceRefs": items(0, contract.MaxSourceRefs, nil), "people": items(0, contract.MaxPeople, nil),
		"activities": items(0, contract.MaxActivities, nil), "replyDrafts": items(0, contract.MaxReplyDrafts, nil),
		"retractions": items(0, contract.MaxRetractions, nil), "completedRequests": items(0, contract.MaxCompletedRequests, nil),
		"routineDefinitions": items(0, contract.MaxRoutineDefinitions, nil), "reviews": items(0, contract.MaxReviews, nil),
		"consumedObservations": all(items(0, contract.MaxConsumedObservations, integer(1, math.MaxInt64)), unique),
	},
	"SourceRefIn": {
		"id": id, "observedAt": timestamp, "path": all(pattern(lifePathPattern), text(contract.MaxPathLen)),
		"contentHash": pattern(hashPattern), "accountId": beeperID, "chatId": beeperID, "messageId": beeperID, "targetId": beeperID,
	},
	"BriefIn":  {"date": briefDate, "timeZone": zone, "text": nonBlank(contract.MaxBriefLen), "evidenceIds": evidence},
	"PersonIn": {"id": id, "name": nonBlank(contract.MaxNameLen), "context": text(contract.MaxContextLen), "evidenceIds": evidence},
	"ActivityIn": {
		"id": agentID, "title": nonBlank(contract.MaxTitleLen), "detail": text(contract.MaxDetailLen), "evidenceIds": evidence,
		"personId": id, "parentId": id, "occurrenceKey": all(pattern(occurrencePattern), describe("YYYY-MM-DD@IANA zone, like 2026-09-29@Europe/Berlin")),
	},
	"Recommendation": {
		"section": enum(contract.Sections...), "rank": integer(-1_000_000, 1_000_000), "reason": text(contract.MaxReasonLen),
	},
	"MeasurementPayload":  {"metric": enum(contract.Metrics...), "unit": enum(contract.Units...)},
	"ReplyPayload":        {"draftId": id},
	"RoutineReplyPayload": {"chatId": beeperID},
	"ReplyDraftIn": {
		"id": id, "personId": id, "accountId": beeperID, "chatId": beeperID, "replyToMessageId": beeperID,
		"sourceMessageRevision": nonBlank(128), "reason": nonBlank(contract.MaxReasonLen),
		"candidates": items(1, contract.MaxCandidates, nil), "evidenceIds": evidence,
	},
	"CandidateIn":      {"id": id, "style": nonBlank(contract.MaxStyleLen), "body": nonBlank(contract.MaxBodyLen)},
	"RetractionIn":     {"kind": enum("activity", "replyDraft"), "id": agentID, "reason": text(contract.MaxReasonLen)},
	"CompletedRequest": {"requestId": id, "sourceRefIds": evidence},
	"RoutineDefinitionIn": {
		"id": id, "revision": integer(1, contract.MaxRoutineRevision), "title": nonBlank(contract.MaxTitleLen),
		"purpose": text(contract.MaxDetailLen), "steps": items(1, contract.MaxRoutineSteps, nil),
		"status": enum(contract.RoutineIdeal, contract.RoutineCandidate, contract.RoutineRetired), "evidenceIds": evidence,
	},
	"TriggerIn": {
		"days":  all(items(0, 7, integer(1, 7)), unique),
		"event": enum(contract.EventStartWork, contract.EventEndWork), "timeOfDay": pattern(timeOfDayPattern),
	},
	"RoutineStepIn":  {"id": id, "title": nonBlank(contract.MaxTitleLen)},
	"CompletionRule": {"n": integer(1, contract.MaxRoutineSteps)},
	"ReviewIn": {
		"id": id, "routineId": id, "revision": integer(1, contract.MaxRoutineRevision),
		"observations":  items(0, contract.MaxReviewItems, nonBlank(contract.MaxReasonLen)),
		"uncertainties": items(0, contract.MaxReviewItems, nonBlank(contract.MaxReasonLen)),
		"proposals":     items(0, contract.MaxProposals, nil), "evidenceIds": evidence,
	},
	"WindowIn":   {"from": date, "to": date},
	"ProposalIn": {"id": id, "text": nonBlank(contract.MaxReasonLen)},

	// An owner request (agent-request.json); its text may be blank only
	// in a refresh, which the kind-blind bound cannot say.
	"RequestIn": {
		"requestId": id, "kind": enum(contract.RequestKinds...), "entityId": nonBlank(256), "entityName": nonBlank(256),
		"sourceRevision": nonBlank(128), "text": text(contract.MaxBodyLen),
	},
	"EditIn": {"field": nonBlank(100), "value": text(contract.MaxContextLen)},

	"ObservationIn": {
		"source":     all(pattern(contract.SourcePattern), text(contract.MaxSourceLen)),
		"ref":        all(pattern(contract.VisiblePattern), text(contract.MaxRefLen)),
		"changeType": enum(contract.ChangeTypes...), "actor": enum(contract.ActorAgent),
	},
	"ObservationPayloadIn": {
		"kind": pattern(contract.ObservationKindPattern), "providerId": all(pattern(contract.VisiblePattern), text(contract.MaxProviderIDLen)),
		"raw": describe(fmt.Sprintf("the provider's item, any JSON object of at most %d bytes in RFC 8785 canonical form; hearth interprets nothing in it", contract.MaxObservationRawBytes)),
	},
}

// branch is one kind of a definition whose shape depends on its kind.
type branch struct {
	kind    string
	payload any      // a pointer to the payload's Go type, for definitions with a payload
	require []string // properties this kind requires beyond the common ones
	drop    []string // properties this kind may not have
	rules   map[string]rule
}

// unions are the definitions that are a closed anyOf keyed by kind.
func unions() map[string][]branch {
	activities := make([]branch, 0, len(contract.ActivityKinds))
	for _, k := range contract.ActivityKinds {
		p, _ := contract.NewActivityPayload(k)
		activities = append(activities, branch{kind: k, payload: p})
	}
	steps := make([]branch, 0, len(contract.StepKinds))
	for _, k := range contract.StepKinds {
		p, _ := contract.NewStepPayload(k)
		steps = append(steps, branch{kind: k, payload: p})
	}
	return map[string][]branch{
		"ActivityIn":    activities,
		"RoutineStepIn": steps,
		"SourceRefIn": {
			{kind: "life", require: []string{"path", "contentHash"}, drop: []string{"accountId", "chatId", "messageId", "targetId"}},
			{kind: "beeper", require: []string{"accountId", "chatId"}, drop: []string{"path", "contentHash"}},
		},
		"TriggerIn": {
			{kind: contract.TriggerDaily, drop: []string{"event"}},
			{kind: contract.TriggerWeekly, drop: []string{"event"}, require: []string{"days"}, rules: map[string]rule{"days": items(1, 7, nil)}},
			{kind: contract.TriggerEvent, require: []string{"event"}, rules: map[string]rule{"days": items(0, 0, nil)}},
		},
		"CompletionRule": {
			{kind: contract.RuleAllRequired, drop: []string{"n"}},
			{kind: contract.RuleMinSteps, require: []string{"n"}},
		},
	}
}

// crossItemRules are what the server checks and JSON Schema cannot say:
// references between items, stored state, the zone database. Each is a 422
// naming the path; the tests hold each phrase to a publication it refuses.
var crossItemRules = []string{
	"IDs are unique within their list: source refs, people, activities, reply drafts, reviews, a routine's id@revision, candidates within a draft, steps within a routine, proposals within a review.",
	"evidenceIds and sourceRefIds name source refs of this publication or stored earlier; personId names a person and a reply's draftId a reply draft, likewise.",
	"parentId names a routine activity of this publication or stored, never the activity itself, and parents do not form a cycle.",
	"There is one reply activity per draft; a retraction names a stored activity or draft that this publication does not also publish, and a draft and its reply activity are retracted together or not at all.",
	"An activity the owner has acted on keeps its kind, occurrenceKey and parentId.",
	"completedRequests name pending owner requests and cite source refs of this publication; a crm-edit completion cites a life source ref with a contentHash.",
	"A routine definition cites a life source ref with a contentHash (here or stored); a stored revision keeps its content (only status and evidenceIds change); min-steps n is at most the number of steps.",
	"A review names a routine revision of this publication or stored; its window runs forward, at most 366 days.",
	"timeZone and an occurrenceKey's zone are IANA zones in hearth's zone database; dates are real calendar days (the occurrenceKey's too).",
	"A life path is at most 1024 bytes of UTF-8.",
	"consumedObservations name pending observations.",
	"expectedRevision is the current revision, else 409 revision_conflict.",
}

// resultDescription is the publication's top-level description.
func resultDescription() string {
	return "A publication: what the agent proposes, posted to POST /api/agent-results. Strict: unknown properties, " +
		"null and duplicate keys are refused at any depth. Beyond this schema hearth checks, each a 422 naming the path: " +
		strings.Join(crossItemRules, " ")
}

// applyContract adds bounds and per-kind unions to a reflected document
// whose root is the Go type rootType.
func applyContract(doc *object, rootType reflect.Type) error {
	defs := doc.obj("$defs")
	constrain := func(typeName string, s *object) {
		props := s.obj("properties")
		if props == nil {
			return
		}
		for name := range props.KeysFromOldest() {
			if r, ok := bounds[typeName][name]; ok {
				r(props.obj(name))
			}
		}
	}
	constrain(rootType.Name(), doc)
	if defs != nil {
		for name := range defs.KeysFromOldest() {
			constrain(name, defs.obj(name))
		}
	}
	for def, branches := range unions() {
		base := defs.obj(def)
		if base == nil {
			continue
		}
		var anyOf []any
		for _, b := range branches {
			s := clone(base).(*object)
			props := s.obj("properties")
			for _, name := range b.drop {
				props.Delete(name)
			}
			props.Set("kind", newObject("type", "string", "enum", []any{b.kind}))
			if b.payload != nil {
				name := typeName(reflect.TypeOf(b.payload).Elem())
				payload, err := reflected(b.payload, "")
				if err != nil {
					return err
				}
				constrain(name, payload)
				if !defs.has(name) {
					defs.Set(name, payload)
				}
				props.Set("payload", newObject("$ref", "#/$defs/"+name))
			}
			for name, r := range b.rules {
				r(props.obj(name))
			}
			required := map[string]bool{}
			for _, name := range append(s.strings("required"), b.require...) {
				required[name] = true
			}
			var req []any
			for name := range props.KeysFromOldest() {
				if required[name] {
					req = append(req, name)
				}
			}
			s.Set("required", req)
			anyOf = append(anyOf, s)
		}
		defs.Set(def, newObject("anyOf", anyOf))
	}
	sortDefs(defs)
	if rootType == reflect.TypeOf(contract.Result{}) {
		doc.Set("description", resultDescription())
	}
	return nil
}

// sortDefs orders definitions by name, so added payloads do not move others.
func sortDefs(defs *object) {
	if defs == nil {
		return
	}
	for _, name := range slices.Sorted(defs.KeysFromOldest()) {
		defs.MoveToBack(name)
	}
}
