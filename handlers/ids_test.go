package handlers_test

import (
	"net/http"
	"slices"
	"strings"
	"testing"
)

// dotIDs are IDs made only of dots: "." and ".." are resolved away in URL
// paths and file names, so nothing named so could be addressed.
var dotIDs = []string{".", "..", "..."}

func TestIDsMadeOnlyOfDotsAreRefusedEverywhere(t *testing.T) {
	ta := newTestApp(t, withOwner())
	agent := ta.agentToken()
	ops := ta.agentToken("schedules:admin")
	cookie := ta.login()
	// Each kind of ID the API takes, set to id; the 422 names path.
	publication := func(pointer string) func(t *testing.T, id string) (response, string) {
		return func(t *testing.T, id string) (response, string) {
			d := validPublication("run-dots", 0)
			d["routineDefinitions"] = routineDefinitions()
			d["retractions"] = []any{map[string]any{"kind": "activity", "id": "old-task"}}
			d["completedRequests"] = []any{map[string]any{"requestId": "req-1", "sourceRefIds": []any{}}}
			d.Set(t, pointer, id)
			return ta.publish(agent, d.JSON()), pointer
		}
	}
	publicationPath := func(path string) bool {
		switch path {
		case "/requestId", "/id", "/job", "/requestKey", "/runId", "/scheduleId":
			return false
		}
		return true
	}
	cases := map[string]func(t *testing.T, id string) (response, string){
		"publication runId":     publication("/runId"),
		"publication jobKey":    publication("/jobKey"),
		"source ref ID":         publication("/sourceRefs/0/id"),
		"person ID":             publication("/people/1/id"),
		"activity ID":           publication("/activities/4/id"),
		"activity personId":     publication("/activities/4/personId"),
		"activity parentId":     publication("/activities/2/parentId"),
		"reply draft ID":        publication("/replyDrafts/0/id"),
		"reply candidate ID":    publication("/replyDrafts/0/candidates/0/id"),
		"evidence ID":           publication("/brief/evidenceIds/0"),
		"retraction ID":         publication("/retractions/0/id"),
		"completed request ID":  publication("/completedRequests/0/requestId"),
		"routine definition ID": publication("/routineDefinitions/0/id"),
		"routine step ID":       publication("/routineDefinitions/0/steps/0/id"),
		"reply payload draftId": publication("/activities/3/payload/draftId"),
		"owner request ID": func(t *testing.T, id string) (response, string) {
			return ta.ownerJSON("/api/agent-requests", `{"requestId":"`+id+`","kind":"note","text":"Call the bank."}`, cookie, ""), "/requestId"
		},
		"schedule ID": func(t *testing.T, id string) (response, string) {
			return ta.schedReq(http.MethodPost, "/api/schedules", ops, nil, schedJSON("k-"+strings.Repeat("x", len(id)), id)), "/id"
		},
		"schedule job": func(t *testing.T, id string) (response, string) {
			body := `{"requestKey":"k-job","job":"` + id + `","cron":"0 8 * * *","zone":"UTC","prompt":"Write."}`
			return ta.schedReq(http.MethodPost, "/api/schedules", ops, nil, body), "/job"
		},
		"schedule request key": func(t *testing.T, id string) (response, string) {
			body := `{"requestKey":"` + id + `","job":"morning","cron":"0 8 * * *","zone":"UTC","prompt":"Write."}`
			return ta.schedReq(http.MethodPost, "/api/schedules", ops, nil, body), "/requestKey"
		},
		"run ID": func(t *testing.T, id string) (response, string) {
			return ta.schedReq(http.MethodPost, "/api/runs", agent, nil, `{"runId":"`+id+`","job":"morning-brief","trigger":"manual"}`), "/runId"
		},
		"run job": func(t *testing.T, id string) (response, string) {
			return ta.schedReq(http.MethodPost, "/api/runs", agent, nil, `{"runId":"run-1","job":"`+id+`","trigger":"manual"}`), "/job"
		},
		"run schedule ID": func(t *testing.T, id string) (response, string) {
			return ta.schedReq(http.MethodPost, "/api/runs", agent, nil, `{"runId":"run-1","job":"morning","trigger":"schedule","scheduleId":"`+id+`"}`), "/scheduleId"
		},
	}
	for name, send := range cases {
		for _, id := range dotIDs {
			t.Run(name+" "+id, func(t *testing.T) {
				r, path := send(t, id)
				code := "invalid_request"
				if strings.HasPrefix(name, "publication") || !strings.HasPrefix(path, "/") || publicationPath(path) {
					code = "invalid_result"
				}
				// Refused as an ID (not, say, as a dangling reference).
				asID := func(e fieldError) bool { return e.Path == path && strings.Contains(e.Expected, "not only dots") }
				if env := assertError(t, r, http.StatusUnprocessableEntity, code); !slices.ContainsFunc(fieldErrors(t, env), asID) {
					t.Errorf("%s = %q: the 422 does not refuse the ID at %s: %s", path, id, path, r.body)
				}
			})
		}
	}
}
