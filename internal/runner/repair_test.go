package runner

import (
	"strings"
	"testing"
)

func TestARepairPromptCarriesEachErrorAfterTheRunsPromptAndNoRefusedText(t *testing.T) {
	body := `{"code":"invalid_result","message":"the result was rejected","requestId":"r-1","details":{"errors":[
		{"path":"/replyDrafts/0/candidates/0","message":"too long: \"Hi Ana, see you Thursday at the hospital, I will bring the papers you asked for\"","expected":"at most 10 characters","found":"\"Hi Ana, see you Thursday at the hospital, I will bring the pa…\""},
		{"path":"/activities/1/kind","message":"unknown value","expected":"one of: task, reply","found":"\"chore\""}]}}`
	errs := refusalErrors([]byte(body))
	if len(errs) != 2 {
		t.Fatalf("errors %+v", errs)
	}
	p := repairPrompt("Write today's brief.", errs, "", false)
	for _, want := range []string{"Write today's brief.\n", "path /replyDrafts/0/candidates/0: expected at most 10 characters; found a text of more than ",
		`path /activities/1/kind: expected one of: task, reply; found "chore"`} {
		if !strings.Contains(p, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, p)
		}
	}
	if strings.Contains(p, "Thursday") {
		t.Errorf("the prompt carries the refused text:\n%s", p)
	}
	if repairPrompt("Write today's brief.", nil, "/state/failed/x-1.json", true) != "Write today's brief." {
		t.Error("a prompt without errors changed")
	}
	// Another 4xx, or a 422 that is not the validation envelope, is not repaired.
	for _, b := range []string{`{"code":"idempotency_conflict"}`, `{"code":"invalid_result","details":{}}`, `not json`} {
		if errs := refusalErrors([]byte(b)); errs != nil {
			t.Errorf("%s read as a refusal: %+v", b, errs)
		}
	}
	if d := exhaustedDetail(runJournal{Invocation: 3, RepairErrors: errs}); !strings.Contains(d, "2 error(s), the first at /replyDrafts/0/candidates/0") {
		t.Errorf("detail %q", d)
	}
}
