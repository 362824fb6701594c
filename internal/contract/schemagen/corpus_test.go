package schemagen_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"hearth/internal/contract"
	"hearth/internal/strictjson"
	"hearth/models"
)

// basePublication is valid on an empty store and uses every part of the
// contract: both source ref kinds, every activity and step kind, a draft,
// a routine with a review. Each corpus case breaks it in one place.
const basePublication = `{
  "runId": "corpus-1", "jobKey": "daily", "expectedRevision": 0, "generatedAt": "2026-10-01T06:00:00.5+02:00",
  "sourceRefs": [
    {"id": "life-morning", "kind": "life", "path": "routines/morning.md", "contentHash": "sha256:` + "4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a4a" + `", "observedAt": "2026-10-01T05:58:00Z"},
    {"id": "chat-ana", "kind": "beeper", "accountId": "whatsapp", "chatId": "!ana:beeper.local", "messageId": "m-3", "targetId": "t-1", "observedAt": "2026-10-01T05:58:00Z"}
  ],
  "brief": {"date": "2026-10-01", "timeZone": "Europe/Berlin", "text": "A light day.", "evidenceIds": ["life-morning"]},
  "people": [{"id": "ana", "name": "Ana", "context": "", "evidenceIds": ["chat-ana"]}],
  "activities": [
    {"id": "plan", "kind": "routine", "title": "Morning", "evidenceIds": [], "payload": {}},
    {"id": "stretch", "kind": "task", "title": "Stretch", "detail": "Ten minutes.", "evidenceIds": ["life-morning"], "parentId": "plan",
     "occurrenceKey": "2026-10-01@Europe/Berlin", "payload": {}, "recommendation": {"section": "routine", "rank": -3, "reason": "Every day."}},
    {"id": "weigh", "kind": "measurement", "title": "Weigh in", "evidenceIds": [], "payload": {"metric": "weight", "unit": "kg"},
     "recommendation": {"section": "optional", "rank": 1000000}},
    {"id": "answer-ana", "kind": "reply", "title": "Answer Ana", "personId": "ana", "evidenceIds": ["chat-ana"], "payload": {"draftId": "draft-ana"},
     "recommendation": {"section": "focus", "rank": 1}}
  ],
  "replyDrafts": [
    {"id": "draft-ana", "personId": "ana", "accountId": "whatsapp", "chatId": "!ana:beeper.local", "replyToMessageId": "m-3",
     "sourceMessageRevision": "3", "reason": "She asked.", "candidates": [{"id": "yes", "style": "short", "body": "Yes!"}], "evidenceIds": ["chat-ana"]}
  ],
  "retractions": [],
  "completedRequests": [],
  "routineDefinitions": [
    {"id": "morning", "revision": 2, "title": "Morning", "purpose": "", "status": "candidate", "evidenceIds": ["life-morning"],
     "trigger": {"kind": "weekly", "days": [1, 3, 5], "timeOfDay": "07:30"},
     "steps": [
       {"id": "weigh", "title": "Weigh in", "kind": "measurement", "required": true, "payload": {"metric": "weight", "unit": "lb"}},
       {"id": "stretch", "title": "Stretch", "kind": "task", "required": false, "payload": {}},
       {"id": "answer", "title": "Answer the team", "kind": "reply", "required": false, "payload": {"chatId": "!team:beeper.local"}}],
     "completionRule": {"kind": "min-steps", "n": 2}},
    {"id": "evening", "revision": 1, "title": "Evening", "purpose": "Wind down", "status": "ideal", "evidenceIds": ["life-morning"],
     "trigger": {"kind": "event", "event": "end-work"},
     "steps": [{"id": "walk", "title": "Walk", "kind": "task", "required": true, "payload": {}},
               {"id": "call", "title": "Call home", "kind": "reply", "required": false, "payload": {}}],
     "completionRule": {"kind": "all-required"}}
  ],
  "reviews": [
    {"id": "rv-1", "routineId": "morning", "revision": 2, "window": {"from": "2026-09-24", "to": "2026-09-30"},
     "observations": ["Weigh-ins happened on workdays"], "uncertainties": [], "proposals": [{"id": "p1", "text": "Drop the stretch"}],
     "evidenceIds": ["life-morning"]}
  ],
  "consumedObservations": []
}`

// edit is one change to the base publication: set (or, with del, remove)
// the value at a JSON Pointer. A path ending in "/-" appends.
type edit struct {
	path string
	val  any
	del  bool
}

func set(path string, v any) edit { return edit{path: path, val: v} }
func del(path string) edit        { return edit{path: path, del: true} }

// invalidCase is a publication hearth refuses; at is a prefix of a path the
// server's 422 must name, so the case is refused for the reason it tests.
type invalidCase struct {
	name  string
	at    string
	edits []edit
}

// repeat returns n copies of v, for item-count bounds.
func repeat(n int, v func(i int) any) []any {
	out := make([]any, n)
	for i := range out {
		out[i] = v(i)
	}
	return out
}

func str(n int) string { return strings.Repeat("x", n) }

func idList(n int) []any { return repeat(n, func(i int) any { return fmt.Sprintf("id-%d", i) }) }

var invalidCorpus = []invalidCase{
	// Top level.
	{"runId empty", "/runId", []edit{set("/runId", "")}},
	{"runId with a space", "/runId", []edit{set("/runId", "run 1")}},
	{"runId only dots", "/runId", []edit{set("/runId", "..")}},
	{"runId over 128", "/runId", []edit{set("/runId", str(129))}},
	{"jobKey with a slash", "/jobKey", []edit{set("/jobKey", "daily/brief")}},
	{"expectedRevision negative", "/expectedRevision", []edit{set("/expectedRevision", -1)}},
	{"expectedRevision fractional", "/expectedRevision", []edit{set("/expectedRevision", 1.5)}},
	{"generatedAt a date", "/generatedAt", []edit{set("/generatedAt", "2026-10-01")}},
	{"generatedAt without offset", "/generatedAt", []edit{set("/generatedAt", "2026-10-01T06:00:00")}},
	{"generatedAt February 30", "/generatedAt", []edit{set("/generatedAt", "2026-02-30T06:00:00Z")}},
	{"generatedAt lower-case t and z", "/generatedAt", []edit{set("/generatedAt", "2026-10-01t06:00:00z")}},
	{"generatedAt leap second", "/generatedAt", []edit{set("/generatedAt", "2026-06-30T23:59:60Z")}},
	{"generatedAt in 1999", "/generatedAt", []edit{set("/generatedAt", "1999-06-30T12:00:00Z")}},
	{"generatedAt in 2200", "/generatedAt", []edit{set("/generatedAt", "2200-06-30T12:00:00Z")}},
	{"unknown top-level field", "/notes", []edit{set("/notes", "hi")}},
	{"people missing", "/people", []edit{del("/people")}},
	{"people null", "/people", []edit{set("/people", nil)}},
	{"routineDefinitions null", "/routineDefinitions", []edit{set("/routineDefinitions", nil)}},
	{"consumedObservations null", "/consumedObservations", []edit{set("/consumedObservations", nil)}},

	// Source refs.
	{"too many source refs", "/sourceRefs", []edit{set("/sourceRefs", repeat(contract.MaxSourceRefs+1, func(i int) any {
		return map[string]any{"id": fmt.Sprintf("b%d", i), "kind": "beeper", "accountId": "a", "chatId": "c", "observedAt": "2026-10-01T05:58:00Z"}
	}))}},
	{"source ref kind unknown", "/sourceRefs/0/kind", []edit{set("/sourceRefs/0/kind", "file")}},
	{"life ref without path", "/sourceRefs/0/path", []edit{del("/sourceRefs/0/path")}},
	{"life ref without contentHash", "/sourceRefs/0/contentHash", []edit{del("/sourceRefs/0/contentHash")}},
	{"life ref with an accountId", "/sourceRefs/0/accountId", []edit{set("/sourceRefs/0/accountId", "a")}},
	{"life ref with a messageId", "/sourceRefs/0/messageId", []edit{set("/sourceRefs/0/messageId", "m")}},
	{"beeper ref without chatId", "/sourceRefs/1/chatId", []edit{del("/sourceRefs/1/chatId")}},
	{"beeper ref without accountId", "/sourceRefs/1/accountId", []edit{del("/sourceRefs/1/accountId")}},
	{"beeper ref with a path", "/sourceRefs/1/path", []edit{set("/sourceRefs/1/path", "a.md")}},
	{"beeper ref with a contentHash", "/sourceRefs/1/contentHash", []edit{set("/sourceRefs/1/contentHash", "sha256:"+strings.Repeat("ab", 32))}},
	{"beeper accountId blank", "/sourceRefs/1/accountId", []edit{set("/sourceRefs/1/accountId", "  \t")}},
	{"beeper chatId over 256", "/sourceRefs/1/chatId", []edit{set("/sourceRefs/1/chatId", str(257))}},
	{"beeper messageId empty", "/sourceRefs/1/messageId", []edit{set("/sourceRefs/1/messageId", "")}},
	{"beeper targetId blank (no-break spaces)", "/sourceRefs/1/targetId", []edit{set("/sourceRefs/1/targetId", "\u00a0\u3000")}},
	{"life path absolute", "/sourceRefs/0/path", []edit{set("/sourceRefs/0/path", "/etc/passwd")}},
	{"life path climbs out", "/sourceRefs/0/path", []edit{set("/sourceRefs/0/path", "../secrets.md")}},
	{"life path with .. inside", "/sourceRefs/0/path", []edit{set("/sourceRefs/0/path", "routines/../../x.md")}},
	{"life path with an empty segment", "/sourceRefs/0/path", []edit{set("/sourceRefs/0/path", "routines//morning.md")}},
	{"life path with a . segment", "/sourceRefs/0/path", []edit{set("/sourceRefs/0/path", "routines/./morning.md")}},
	{"life path from home", "/sourceRefs/0/path", []edit{set("/sourceRefs/0/path", "~/morning.md")}},
	{"life path with a backslash", "/sourceRefs/0/path", []edit{set("/sourceRefs/0/path", `routines\morning.md`)}},
	{"life path ending in a slash", "/sourceRefs/0/path", []edit{set("/sourceRefs/0/path", "routines/")}},
	{"life path with NUL", "/sourceRefs/0/path", []edit{set("/sourceRefs/0/path", "routines/a\x00.md")}},
	{"life path over 1024", "/sourceRefs/0/path", []edit{set("/sourceRefs/0/path", str(1025))}},
	{"content hash upper-case", "/sourceRefs/0/contentHash", []edit{set("/sourceRefs/0/contentHash", "sha256:"+strings.Repeat("4A", 32))}},
	{"content hash short", "/sourceRefs/0/contentHash", []edit{set("/sourceRefs/0/contentHash", "sha256:4a4a")}},
	{"observedAt a word", "/sourceRefs/0/observedAt", []edit{set("/sourceRefs/0/observedAt", "yesterday")}},
	{"observedAt in 1970", "/sourceRefs/0/observedAt", []edit{set("/sourceRefs/0/observedAt", "1970-01-01T00:00:00Z")}},
	{"source ref id with a space", "/sourceRefs/1/id", []edit{set("/sourceRefs/1/id", "chat ana")}},

	// Brief.
	{"brief date month 13", "/brief/date", []edit{set("/brief/date", "2026-13-01")}},
	{"brief date unpadded", "/brief/date", []edit{set("/brief/date", "2026-9-29")}},
	{"brief date in 1999", "/brief/date", []edit{set("/brief/date", "1999-12-31")}},
	{"brief date in 2200", "/brief/date", []edit{set("/brief/date", "2200-01-01")}},
	{"brief zone Local", "/brief/timeZone", []edit{set("/brief/timeZone", "Local")}},
	{"brief zone a path", "/brief/timeZone", []edit{set("/brief/timeZone", "Europe/../Berlin")}},
	{"brief zone empty", "/brief/timeZone", []edit{set("/brief/timeZone", "")}},
	{"brief text blank", "/brief/text", []edit{set("/brief/text", " \n ")}},
	{"brief text over 8000", "/brief/text", []edit{set("/brief/text", str(contract.MaxBriefLen+1))}},
	{"brief with 51 evidence IDs", "/brief/evidenceIds", []edit{set("/brief/evidenceIds", idList(contract.MaxEvidenceIDs+1))}},
	{"brief evidence ID invalid", "/brief/evidenceIds/0", []edit{set("/brief/evidenceIds/0", "life morning")}},
	{"brief null", "/brief", []edit{set("/brief", nil)}},

	// People.
	{"person name blank", "/people/0/name", []edit{set("/people/0/name", "   ")}},
	{"person name over 200", "/people/0/name", []edit{set("/people/0/name", str(201))}},
	{"person context over 4000", "/people/0/context", []edit{set("/people/0/context", str(4001))}},
	{"person id invalid", "/people/0/id", []edit{set("/people/0/id", "ana okafor")}},
	{"too many people", "/people", []edit{set("/people", repeat(contract.MaxPeople+1, func(i int) any {
		return map[string]any{"id": fmt.Sprintf("p%d", i), "name": "P", "context": "", "evidenceIds": []any{}}
	}))}},

	// Activities.
	{"activity kind unknown", "/activities/1/kind", []edit{set("/activities/1/kind", "chore")}},
	{"activity title empty", "/activities/1/title", []edit{set("/activities/1/title", "")}},
	{"activity title blank", "/activities/1/title", []edit{set("/activities/1/title", " \t ")}},
	{"activity title over 200", "/activities/1/title", []edit{set("/activities/1/title", str(201))}},
	{"activity detail over 4000", "/activities/1/detail", []edit{set("/activities/1/detail", str(4001))}},
	{"activity id with the hearth: prefix", "/activities/1/id", []edit{set("/activities/1/id", "hearth:stretch")}},
	{"activity personId invalid", "/activities/3/personId", []edit{set("/activities/3/personId", "ana okafor")}},
	{"activity parentId invalid", "/activities/1/parentId", []edit{set("/activities/1/parentId", "..")}},
	{"occurrenceKey without zone", "/activities/1/occurrenceKey", []edit{set("/activities/1/occurrenceKey", "2026-10-01")}},
	{"occurrenceKey month 13", "/activities/1/occurrenceKey", []edit{set("/activities/1/occurrenceKey", "2026-13-01@Europe/Berlin")}},
	{"occurrenceKey in 2200", "/activities/1/occurrenceKey", []edit{set("/activities/1/occurrenceKey", "2200-01-01@Europe/Berlin")}},
	{"occurrenceKey zone with a dot", "/activities/1/occurrenceKey", []edit{set("/activities/1/occurrenceKey", "2026-10-01@Europe/../Berlin")}},
	{"section unknown", "/activities/1/recommendation/section", []edit{set("/activities/1/recommendation/section", "urgent")}},
	{"rank over a million", "/activities/1/recommendation/rank", []edit{set("/activities/1/recommendation/rank", 1000001)}},
	{"rank under minus a million", "/activities/1/recommendation/rank", []edit{set("/activities/1/recommendation/rank", -1000001)}},
	{"recommendation reason over 500", "/activities/1/recommendation/reason", []edit{set("/activities/1/recommendation/reason", str(501))}},
	{"recommendation without rank", "/activities/1/recommendation/rank", []edit{del("/activities/1/recommendation/rank")}},
	{"measurement payload empty", "/activities/2/payload/metric", []edit{set("/activities/2/payload", map[string]any{})}},
	{"measurement metric unknown", "/activities/2/payload/metric", []edit{set("/activities/2/payload/metric", "height")}},
	{"measurement unit unknown", "/activities/2/payload/unit", []edit{set("/activities/2/payload/unit", "g")}},
	{"measurement payload with a draftId", "/activities/2/payload/draftId", []edit{set("/activities/2/payload/draftId", "draft-ana")}},
	{"reply payload without draftId", "/activities/3/payload/draftId", []edit{set("/activities/3/payload", map[string]any{})}},
	{"reply draftId invalid", "/activities/3/payload/draftId", []edit{set("/activities/3/payload/draftId", "draft ana")}},
	{"reply payload with a chatId (a step's)", "/activities/3/payload/chatId", []edit{set("/activities/3/payload/chatId", "!ana:beeper.local")}},
	{"task payload of a measurement", "/activities/1/payload/metric", []edit{set("/activities/1/payload", map[string]any{"metric": "weight", "unit": "kg"})}},
	{"routine payload not empty", "/activities/0/payload/x", []edit{set("/activities/0/payload/x", 1)}},
	{"payload not an object", "/activities/0/payload", []edit{set("/activities/0/payload", "none")}},
	{"activity with 51 evidence IDs", "/activities/0/evidenceIds", []edit{set("/activities/0/evidenceIds", idList(contract.MaxEvidenceIDs+1))}},
	{"too many activities", "/activities", []edit{set("/activities", repeat(contract.MaxActivities+1, func(i int) any {
		return map[string]any{"id": fmt.Sprintf("a%d", i), "kind": "task", "title": "T", "evidenceIds": []any{}, "payload": map[string]any{}}
	}))}},

	// Reply drafts.
	{"draft without candidates", "/replyDrafts/0/candidates", []edit{set("/replyDrafts/0/candidates", []any{})}},
	{"draft with six candidates", "/replyDrafts/0/candidates", []edit{set("/replyDrafts/0/candidates", repeat(contract.MaxCandidates+1, func(i int) any {
		return map[string]any{"id": fmt.Sprintf("c%d", i), "style": "s", "body": "b"}
	}))}},
	{"candidate style over 40", "/replyDrafts/0/candidates/0/style", []edit{set("/replyDrafts/0/candidates/0/style", str(41))}},
	{"candidate body blank", "/replyDrafts/0/candidates/0/body", []edit{set("/replyDrafts/0/candidates/0/body", "\n")}},
	{"candidate body over 4000", "/replyDrafts/0/candidates/0/body", []edit{set("/replyDrafts/0/candidates/0/body", str(4001))}},
	{"candidate id invalid", "/replyDrafts/0/candidates/0/id", []edit{set("/replyDrafts/0/candidates/0/id", "")}},
	{"draft accountId blank", "/replyDrafts/0/accountId", []edit{set("/replyDrafts/0/accountId", " ")}},
	{"draft chatId over 256", "/replyDrafts/0/chatId", []edit{set("/replyDrafts/0/chatId", str(257))}},
	{"draft replyToMessageId empty", "/replyDrafts/0/replyToMessageId", []edit{set("/replyDrafts/0/replyToMessageId", "")}},
	{"draft sourceMessageRevision over 128", "/replyDrafts/0/sourceMessageRevision", []edit{set("/replyDrafts/0/sourceMessageRevision", str(129))}},
	{"draft sourceMessageRevision blank", "/replyDrafts/0/sourceMessageRevision", []edit{set("/replyDrafts/0/sourceMessageRevision", "")}},
	{"draft reason blank", "/replyDrafts/0/reason", []edit{set("/replyDrafts/0/reason", "")}},
	{"draft reason over 500", "/replyDrafts/0/reason", []edit{set("/replyDrafts/0/reason", str(501))}},
	{"draft personId invalid", "/replyDrafts/0/personId", []edit{set("/replyDrafts/0/personId", "a b")}},

	// Retractions and completed requests.
	{"retraction kind unknown", "/retractions/0/kind", []edit{set("/retractions/-", map[string]any{"kind": "person", "id": "old"})}},
	{"retraction of a hearth: occurrence", "/retractions/0/id", []edit{set("/retractions/-", map[string]any{"kind": "activity", "id": "hearth:morning@2026-10-01:weigh"})}},
	{"retraction reason over 500", "/retractions/0/reason", []edit{set("/retractions/-", map[string]any{"kind": "activity", "id": "old", "reason": str(501)})}},
	{"retraction without id", "/retractions/0/id", []edit{set("/retractions/-", map[string]any{"kind": "activity"})}},
	{"completed request ID invalid", "/completedRequests/0/requestId", []edit{set("/completedRequests/-", map[string]any{"requestId": "req 1", "sourceRefIds": []any{}})}},
	{"completed request citing 51 refs", "/completedRequests/0/sourceRefIds", []edit{set("/completedRequests/-", map[string]any{"requestId": "req-1", "sourceRefIds": idList(51)})}},

	// Routine definitions.
	{"routine revision 0", "/routineDefinitions/0/revision", []edit{set("/routineDefinitions/0/revision", 0)}},
	{"routine revision over a million", "/routineDefinitions/0/revision", []edit{set("/routineDefinitions/0/revision", contract.MaxRoutineRevision+1)}},
	{"routine title blank", "/routineDefinitions/0/title", []edit{set("/routineDefinitions/0/title", "")}},
	{"routine purpose over 4000", "/routineDefinitions/0/purpose", []edit{set("/routineDefinitions/0/purpose", str(4001))}},
	{"routine status active", "/routineDefinitions/0/status", []edit{set("/routineDefinitions/0/status", "active")}},
	{"trigger kind monthly", "/routineDefinitions/0/trigger/kind", []edit{set("/routineDefinitions/0/trigger/kind", "monthly")}},
	{"weekly trigger without days", "/routineDefinitions/0/trigger/days", []edit{del("/routineDefinitions/0/trigger/days")}},
	{"weekly trigger with no days", "/routineDefinitions/0/trigger/days", []edit{set("/routineDefinitions/0/trigger/days", []any{})}},
	{"weekday 0", "/routineDefinitions/0/trigger/days/0", []edit{set("/routineDefinitions/0/trigger/days/0", 0)}},
	{"weekday 8", "/routineDefinitions/0/trigger/days/2", []edit{set("/routineDefinitions/0/trigger/days/2", 8)}},
	{"weekday twice", "/routineDefinitions/0/trigger/days/1", []edit{set("/routineDefinitions/0/trigger/days/1", 1)}},
	{"weekly trigger with an event", "/routineDefinitions/0/trigger/event", []edit{set("/routineDefinitions/0/trigger/event", "start-work")}},
	{"event trigger without event", "/routineDefinitions/1/trigger/event", []edit{del("/routineDefinitions/1/trigger/event")}},
	{"event trigger with days", "/routineDefinitions/1/trigger/days", []edit{set("/routineDefinitions/1/trigger/days", []any{1})}},
	{"event unknown", "/routineDefinitions/1/trigger/event", []edit{set("/routineDefinitions/1/trigger/event", "lunch")}},
	{"daily trigger with an event", "/routineDefinitions/1/trigger/event", []edit{set("/routineDefinitions/1/trigger/kind", "daily")}},
	{"timeOfDay 24:00", "/routineDefinitions/0/trigger/timeOfDay", []edit{set("/routineDefinitions/0/trigger/timeOfDay", "24:00")}},
	{"timeOfDay unpadded", "/routineDefinitions/0/trigger/timeOfDay", []edit{set("/routineDefinitions/0/trigger/timeOfDay", "7:30")}},
	{"routine without steps", "/routineDefinitions/0/steps", []edit{set("/routineDefinitions/0/steps", []any{}), set("/routineDefinitions/0/completionRule", map[string]any{"kind": "all-required"})}},
	{"routine with 31 steps", "/routineDefinitions/1/steps", []edit{set("/routineDefinitions/1/steps", repeat(contract.MaxRoutineSteps+1, func(i int) any {
		return map[string]any{"id": fmt.Sprintf("s%d", i), "title": "S", "kind": "task", "required": false, "payload": map[string]any{}}
	}))}},
	{"step kind routine", "/routineDefinitions/0/steps/1/kind", []edit{set("/routineDefinitions/0/steps/1/kind", "routine")}},
	{"step title blank", "/routineDefinitions/0/steps/1/title", []edit{set("/routineDefinitions/0/steps/1/title", " ")}},
	{"step id invalid", "/routineDefinitions/0/steps/1/id", []edit{set("/routineDefinitions/0/steps/1/id", "a b")}},
	{"step without required", "/routineDefinitions/0/steps/1/required", []edit{del("/routineDefinitions/0/steps/1/required")}},
	{"step measurement without unit", "/routineDefinitions/0/steps/0/payload/unit", []edit{del("/routineDefinitions/0/steps/0/payload/unit")}},
	{"step reply chatId empty", "/routineDefinitions/0/steps/2/payload/chatId", []edit{set("/routineDefinitions/0/steps/2/payload/chatId", "")}},
	{"step reply with a draftId (an activity's)", "/routineDefinitions/0/steps/2/payload/draftId", []edit{set("/routineDefinitions/0/steps/2/payload/draftId", "draft-ana")}},
	{"step task payload not empty", "/routineDefinitions/0/steps/1/payload/metric", []edit{set("/routineDefinitions/0/steps/1/payload/metric", "weight")}},
	{"min-steps without n", "/routineDefinitions/0/completionRule/n", []edit{del("/routineDefinitions/0/completionRule/n")}},
	{"min-steps n 0", "/routineDefinitions/0/completionRule/n", []edit{set("/routineDefinitions/0/completionRule/n", 0)}},
	{"all-required with n", "/routineDefinitions/1/completionRule/n", []edit{set("/routineDefinitions/1/completionRule/n", 1)}},
	{"completion rule unknown", "/routineDefinitions/1/completionRule/kind", []edit{set("/routineDefinitions/1/completionRule/kind", "any")}},
	{"routine with 51 evidence IDs", "/routineDefinitions/0/evidenceIds", []edit{set("/routineDefinitions/0/evidenceIds", idList(51))}},
	{"too many routine definitions", "/routineDefinitions", []edit{set("/routineDefinitions", repeat(contract.MaxRoutineDefinitions+1, func(i int) any {
		return map[string]any{"id": fmt.Sprintf("r%d", i), "revision": 1, "title": "R", "purpose": "", "status": "ideal", "evidenceIds": []any{"life-morning"},
			"trigger": map[string]any{"kind": "daily"}, "completionRule": map[string]any{"kind": "all-required"},
			"steps": []any{map[string]any{"id": "s", "title": "S", "kind": "task", "required": true, "payload": map[string]any{}}}}
	})), set("/reviews", []any{})}},

	// Reviews.
	{"review revision 0", "/reviews/0/revision", []edit{set("/reviews/0/revision", 0)}},
	{"review routineId invalid", "/reviews/0/routineId", []edit{set("/reviews/0/routineId", "")}},
	{"review window from day 32", "/reviews/0/window/from", []edit{set("/reviews/0/window/from", "2026-10-32")}},
	{"review window to not a date", "/reviews/0/window/to", []edit{set("/reviews/0/window/to", "last week")}},
	{"review window in 1999", "/reviews/0/window/from", []edit{set("/reviews/0/window/from", "1999-12-30"), set("/reviews/0/window/to", "1999-12-31")}},
	{"review with 21 observations", "/reviews/0/observations", []edit{set("/reviews/0/observations", repeat(contract.MaxReviewItems+1, func(int) any { return "seen" }))}},
	{"review observation blank", "/reviews/0/observations/0", []edit{set("/reviews/0/observations/0", "")}},
	{"review uncertainty over 500", "/reviews/0/uncertainties/0", []edit{set("/reviews/0/uncertainties/-", str(501))}},
	{"review with 11 proposals", "/reviews/0/proposals", []edit{set("/reviews/0/proposals", repeat(contract.MaxProposals+1, func(i int) any {
		return map[string]any{"id": fmt.Sprintf("p%d", i), "text": "t"}
	}))}},
	{"proposal text blank", "/reviews/0/proposals/0/text", []edit{set("/reviews/0/proposals/0/text", " ")}},
	{"proposal id invalid", "/reviews/0/proposals/0/id", []edit{set("/reviews/0/proposals/0/id", "p 1")}},
	{"too many reviews", "/reviews", []edit{set("/reviews", repeat(contract.MaxReviews+1, func(i int) any {
		return map[string]any{"id": fmt.Sprintf("rv%d", i), "routineId": "morning", "revision": 2, "window": map[string]any{"from": "2026-09-24", "to": "2026-09-30"},
			"observations": []any{}, "uncertainties": []any{}, "proposals": []any{}, "evidenceIds": []any{}}
	}))}},

	// Consumed observations.
	{"consumed observation 0", "/consumedObservations/0", []edit{set("/consumedObservations", []any{0})}},
	{"consumed observation negative", "/consumedObservations/0", []edit{set("/consumedObservations", []any{-3})}},
	{"consumed observation twice", "/consumedObservations/1", []edit{set("/consumedObservations", []any{4, 4})}},
	{"too many consumed observations", "/consumedObservations", []edit{set("/consumedObservations", repeat(contract.MaxConsumedObservations+1, func(i int) any { return i + 1 }))}},
}

// apply returns base with the edits made.
func apply(t *testing.T, base string, edits []edit) []byte {
	t.Helper()
	var doc any
	if err := json.Unmarshal([]byte(base), &doc); err != nil {
		t.Fatal(err)
	}
	for _, e := range edits {
		doc = applyEdit(t, doc, strings.Split(e.path, "/")[1:], e)
	}
	b, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func applyEdit(t *testing.T, node any, tokens []string, e edit) any {
	t.Helper()
	if len(tokens) == 0 {
		return e.val
	}
	tok := tokens[0]
	switch n := node.(type) {
	case map[string]any:
		if len(tokens) == 1 && e.del {
			delete(n, tok)
			return n
		}
		n[tok] = applyEdit(t, n[tok], tokens[1:], e)
		return n
	case []any:
		if tok == "-" {
			return append(n, e.val)
		}
		i, err := strconv.Atoi(tok)
		if err != nil || i >= len(n) {
			t.Fatalf("edit %s: no item %q", e.path, tok)
		}
		if len(tokens) == 1 && e.del {
			return append(n[:i], n[i+1:]...)
		}
		n[i] = applyEdit(t, n[i], tokens[1:], e)
		return n
	}
	t.Fatalf("edit %s: %q is not in a container", e.path, tok)
	return nil
}

// dryRunStore is an empty store to dry-run publications against.
func dryRunStore(t *testing.T) *models.Store {
	t.Helper()
	now := time.Date(2026, 10, 1, 7, 0, 0, 0, time.UTC)
	s, err := models.Open(context.Background(), t.TempDir(), models.Options{Clock: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// serverPaths dry-runs body and returns the paths of its field errors, or
// the syntax error, or nil when hearth would accept it.
func serverPaths(t *testing.T, s *models.Store, body []byte) ([]string, error) {
	t.Helper()
	_, err := dryRun(s, context.Background(), "cred", body)
	var invalid *contract.ValidationError
	var syntax *strictjson.SyntaxError
	switch {
	case err == nil:
		return nil, nil
	case errors.As(err, &invalid):
		var paths []string
		for _, e := range invalid.Errors {
			paths = append(paths, e.Path)
		}
		return paths, err
	case errors.As(err, &syntax):
		return []string{syntax.Path}, err
	}
	t.Fatalf("dry run: %v", err)
	return nil, nil
}

func TestTheBasePublicationIsValidForBoth(t *testing.T) {
	s := dryRunStore(t)
	body := apply(t, basePublication, nil)
	if err := validate(t, "agent-result.json", body); err != nil {
		t.Fatalf("the schema refuses the corpus's base publication: %v", err)
	}
	if _, err := serverPaths(t, s, body); err != nil {
		t.Fatalf("hearth refuses the corpus's base publication: %v", err)
	}
}

func TestTheSchemaAndTheServerRefuseTheSameInvalidPublications(t *testing.T) {
	if len(invalidCorpus) < 60 {
		t.Fatalf("%d invalid publications; want at least 60", len(invalidCorpus))
	}
	s := dryRunStore(t)
	seen := map[string]bool{}
	for _, c := range invalidCorpus {
		if seen[c.name] {
			t.Fatalf("two cases named %q", c.name)
		}
		seen[c.name] = true
		body := apply(t, basePublication, c.edits)
		paths, err := serverPaths(t, s, body)
		switch {
		case err == nil:
			t.Errorf("%s: hearth accepts it (the corpus is wrong)", c.name)
		case !hasPrefix(paths, c.at):
			t.Errorf("%s: hearth refuses it at %v, not at %s: %v", c.name, paths, c.at, err)
		}
		if err := validate(t, "agent-result.json", body); err == nil {
			t.Errorf("%s: the schema accepts what hearth refuses", c.name)
		}
	}
}

func hasPrefix(paths []string, prefix string) bool {
	for _, p := range paths {
		if p == prefix || strings.HasPrefix(p, prefix+"/") {
			return true
		}
	}
	return false
}

// An instant's bound is on the instant, not its local date: at the ends of
// the range an offset moves a 1999 or 2200 date inside it, and the schema
// must not refuse what hearth accepts.
func TestTheSchemaAndTheServerAcceptInstantsAtTheRangesEnds(t *testing.T) {
	s := dryRunStore(t)
	for _, at := range []string{"2000-01-01T00:00:00Z", "1999-12-31T23:30:00-01:00", "2199-12-31T23:59:59.999Z", "2200-01-01T00:30:00+01:00"} {
		body := apply(t, basePublication, []edit{set("/generatedAt", at), set("/sourceRefs/1/observedAt", at)})
		if _, err := serverPaths(t, s, body); err != nil {
			t.Errorf("%s: hearth refuses it: %v", at, err)
		}
		if err := validate(t, "agent-result.json", body); err != nil {
			t.Errorf("%s: the schema refuses what hearth accepts: %v", at, err)
		}
	}
}

// baseRequest is an owner request hearth accepts; each invalidRequests case
// breaks it in one place.
const baseRequest = `{"requestId": "req-1", "kind": "crm-edit", "entityId": "ana", "entityName": "Ana Okafor", "sourceRevision": "3",
  "text": "She moved.", "edit": {"field": "city", "value": "Lisbon"}}`

var invalidRequests = []invalidCase{
	{"requestId with a space", "/requestId", []edit{set("/requestId", "req 1")}},
	{"kind unknown", "/kind", []edit{set("/kind", "chore")}},
	{"text over 4000", "/text", []edit{set("/text", str(contract.MaxBodyLen+1))}},
	{"entityId blank", "/entityId", []edit{set("/entityId", " ")}},
	{"entityId over 256", "/entityId", []edit{set("/entityId", str(257))}},
	{"entityName empty", "/entityName", []edit{set("/entityName", "")}},
	{"entityName over 256", "/entityName", []edit{set("/entityName", str(257))}},
	{"sourceRevision blank", "/sourceRevision", []edit{set("/sourceRevision", "\t")}},
	{"sourceRevision over 128", "/sourceRevision", []edit{set("/sourceRevision", str(129))}},
	{"edit field blank", "/edit/field", []edit{set("/edit/field", "  ")}},
	{"edit field over 100", "/edit/field", []edit{set("/edit/field", str(101))}},
	{"edit value over 4000", "/edit/value", []edit{set("/edit/value", str(contract.MaxContextLen+1))}},
}

func TestTheSchemaAndTheServerRefuseTheSameInvalidRequests(t *testing.T) {
	s := dryRunStore(t)
	if err := validate(t, "agent-request.json", apply(t, baseRequest, nil)); err != nil {
		t.Fatalf("the schema refuses the base request: %v", err)
	}
	for _, c := range invalidRequests {
		body := apply(t, baseRequest, c.edits)
		_, _, err := createRequest(s, context.Background(), body)
		var invalid *contract.ValidationError
		if !errors.As(err, &invalid) {
			t.Errorf("%s: hearth answers %v, not a validation error (the case is wrong)", c.name, err)
		} else {
			var paths []string
			for _, e := range invalid.Errors {
				paths = append(paths, e.Path)
			}
			if !hasPrefix(paths, c.at) {
				t.Errorf("%s: hearth refuses it at %v, not at %s", c.name, paths, c.at)
			}
		}
		if err := validate(t, "agent-request.json", body); err == nil {
			t.Errorf("%s: the schema accepts what hearth refuses", c.name)
		}
	}
	// The base request is valid for hearth too.
	if _, _, err := createRequest(s, context.Background(), apply(t, baseRequest, nil)); err != nil {
		t.Fatalf("hearth refuses the base request: %v", err)
	}
}
