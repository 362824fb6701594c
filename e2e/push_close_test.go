package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"hearth/internal/poll"
	"hearth/internal/pushflow/pushtest"
	"hearth/models"
)

// TestAnItemDecidedInHearthIsClosedOnThePhoneUnderItsTopic runs the real
// binary with a push service on loopback: a task is pushed; once the owner
// completes it in hearth, one close push follows with the same tag and the
// same Topic, so the push service replaces the task's push if the phone
// had not received it yet.
func TestAnItemDecidedInHearthIsClosedOnThePhoneUnderItsTopic(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "", "--demo")
	o := loginOwner(t, srv.URL)
	key, _ := o.mustPage(http.MethodGet, "/more", nil).Find(`[data-testid="push-controls"]`).Attr("data-vapid-key")
	o.mustPage(http.MethodPost, "/more/quiet-hours", url.Values{"start": {"00:00"}, "end": {"00:00"}})
	service := pushtest.New(key)
	t.Cleanup(service.Close)
	body := fmt.Sprintf(`{"endpoint":%q,"keys":{"p256dh":%q,"auth":%q}}`, service.Endpoint(), service.P256dh(), service.Auth())
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/api/push-subscriptions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err := o.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		t.Fatalf("subscribe: %d", resp.StatusCode)
	}
	delivered := func(what string) {
		t.Helper()
		select {
		case <-service.Delivered():
		case <-time.After(30 * time.Second):
			t.Fatalf("no push for %s within 30 s; More says: %s", what, o.mustPage(http.MethodGet, "/more", nil).Find(`[data-testid="push-log"]`).Text())
		}
	}

	publishWithCLI(t, srv, "run-close-1", "", `{"id":"close-task","kind":"task","title":"Renew the passport","evidenceIds":[],"payload":{}}`, "")
	delivered("the task")
	o.mustPage(http.MethodPost, "/activities/close-task/state", url.Values{"state": {"completed"}})
	delivered("the close")
	if fails := service.Failures(); len(fails) > 0 {
		t.Fatalf("the push service refused: %v", fails)
	}
	msgs := service.Messages()
	if len(msgs) != 2 {
		t.Fatalf("%d pushes, want the task's and its close", len(msgs))
	}
	var first, closing models.PushPayload
	if err := json.Unmarshal(msgs[0].Plaintext, &first); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(msgs[1].Plaintext, &closing); err != nil {
		t.Fatal(err)
	}
	if first.Close || first.Tag != "activity:close-task" || !closing.Close || closing.Tag != first.Tag {
		t.Fatalf("pushes %+v then %+v, want the task's and then a close of its tag", first, closing)
	}
	if msgs[0].Topic == "" || msgs[1].Topic != msgs[0].Topic {
		t.Fatalf("topics %q and %q, want one topic for the item", msgs[0].Topic, msgs[1].Topic)
	}
	// More says the notification was closed, and nothing more is sent.
	poll.Eventually(t, 30*time.Second, func() (bool, string) {
		reason := o.mustPage(http.MethodGet, "/more", nil).Find(`[data-testid="push-reason"]`).Text()
		return strings.Contains(reason, "closed on your phone"), fmt.Sprintf("More says %q, not that the notification was closed", reason)
	})
	if n := len(service.Messages()); n != 2 {
		t.Fatalf("%d pushes after the close, want 2", n)
	}
}
