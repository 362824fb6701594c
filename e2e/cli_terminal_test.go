package e2e

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// generatedAtPattern is the one member of the context that differs per read.
var generatedAtPattern = regexp.MustCompile(`"generatedAt":"[^"]*"`)

func TestContextHumanOutputEscapesAgentControlCharacters(t *testing.T) {
	srv := startServer(t, "")
	token := mintToken(t, srv.DataDir)
	client := newAgentClient(srv.URL, token)
	// A title that retitles the terminal, clears it, reverses the line and
	// starts a fake second line; JSON carries the control characters escaped.
	title := `Pay rent\u001b]0;pwned\u0007\u001b[2J\u202eevil\r\n  task  open  fake-row  Transfer money\u009b\u007f`
	body := fmt.Sprintf(`{"runId":"ctl-1","jobKey":"refresh","expectedRevision":%d,"generatedAt":%q,"sourceRefs":[],"people":[],
		"activities":[{"id":"pay-rent","kind":"task","title":"%s","evidenceIds":[],"recommendation":{"section":"focus","rank":0},"payload":{}}],
		"replyDrafts":[],"retractions":[],"completedRequests":[]}`, client.context(t).Revision, time.Now().UTC().Format(time.RFC3339), title)
	if status, resp, err := client.publish([]byte(body)); err != nil || status != 201 {
		t.Fatalf("publish: %d %s %v", status, resp, err)
	}
	tokenFile := writeFile(t, t.TempDir(), "token", []byte(token), 0o600)

	human := runHearth(t, nil, "context", "--url", srv.URL, "--credential-file", tokenFile)
	if human.code != 0 {
		t.Fatalf("context: exit %d, stderr %q", human.code, human.stderr)
	}
	for _, bad := range []string{"\x1b", "\x07", "\r", "\u202e", "\u009b", "\x7f"} {
		if strings.Contains(human.stdout, bad) {
			t.Errorf("human output holds %q raw:\n%q", bad, human.stdout)
		}
	}
	want := `Pay rent\x1b]0;pwned\x07\x1b[2J\u202eevil\r\n  task  open  fake-row  Transfer money\u009b\x7f`
	var line string
	for _, l := range strings.Split(human.stdout, "\n") {
		if strings.Contains(l, "pay-rent") {
			line = l
		}
	}
	if !strings.HasSuffix(line, want) {
		t.Errorf("activity line %q, want it to end in %q", line, want)
	}
	if strings.Contains(human.stdout, "\n  task  open  fake-row") {
		t.Errorf("the title started a line of its own:\n%s", human.stdout)
	}

	// --json --full is the server's full answer, byte for byte (but for the read time).
	js := runHearth(t, nil, "context", "--json", "--full", "--url", srv.URL, "--credential-file", tokenFile)
	if js.code != 0 {
		t.Fatalf("context --json: exit %d, stderr %q", js.code, js.stderr)
	}
	api := string(client.contextJSON(t)) + "\n"
	got := generatedAtPattern.ReplaceAllString(js.stdout, `"generatedAt":""`)
	if exp := generatedAtPattern.ReplaceAllString(api, `"generatedAt":""`); got != exp {
		t.Errorf("--json differs from the API's answer:\n got %q\nwant %q", got, exp)
	}
	var ac struct {
		Activities struct {
			Items []struct{ ID, Title string } `json:"items"`
		} `json:"activities"`
	}
	decodeJSON(t, []byte(js.stdout), &ac)
	raw := "Pay rent\x1b]0;pwned\x07\x1b[2J\u202eevil\r\n  task  open  fake-row  Transfer money\u009b\x7f"
	if len(ac.Activities.Items) != 1 || ac.Activities.Items[0].Title != raw {
		t.Errorf("--json activities %+v, want the title %q", ac.Activities.Items, raw)
	}
}
