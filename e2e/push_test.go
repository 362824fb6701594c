package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/internal/poll"
	"hearth/internal/pushflow/pushtest"
	"hearth/models"
)

// TestAPhoneSubscribedOnMoreGetsASignedEncryptedPushForANewItemOnce runs the
// real binary: the owner subscribes a push service on loopback through the
// API More's push.js calls, with the key More serves; the agent publishes a
// task; the service checks the VAPID JWT and decrypts the payload with the
// subscription's keys, once, and More says what was sent and why.
func TestAPhoneSubscribedOnMoreGetsASignedEncryptedPushForANewItemOnce(t *testing.T) {
	t.Parallel()
	srv := startServer(t, "", "--demo")
	o := loginOwner(t, srv.URL)
	more := o.mustPage(http.MethodGet, "/more", nil)
	key, ok := more.Find(`[data-testid="push-controls"]`).Attr("data-vapid-key")
	if !ok || key == "" {
		t.Fatal("More serves no VAPID key")
	}
	st, err := os.Stat(filepath.Join(srv.DataDir, "vapid.json"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("vapid.json: %v, %v; want an owner-only file", st, err)
	}
	// Quiet hours off, so the push goes out whatever the time of the run.
	o.mustPage(http.MethodPost, "/more/quiet-hours", url.Values{"start": {"00:00"}, "end": {"00:00"}})

	service := pushtest.New(key)
	t.Cleanup(service.Close)
	body := fmt.Sprintf(`{"endpoint":%q,"expirationTime":null,"keys":{"p256dh":%q,"auth":%q}}`, service.Endpoint(), service.P256dh(), service.Auth())
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

	publishWithCLI(t, srv, "run-push-1", "", `{"id":"push-task","kind":"task","title":"Renew the passport before the trip in March","evidenceIds":[],"payload":{}}`, "")
	select {
	case <-service.Delivered():
	case <-time.After(30 * time.Second):
		t.Fatalf("no push within 30 s; More says: %s", o.mustPage(http.MethodGet, "/more", nil).Find(`[data-testid="push-log"]`).Text())
	}
	if fails := service.Failures(); len(fails) > 0 {
		t.Fatalf("the push service refused: %v", fails)
	}
	msgs := service.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d pushes, want 1", len(msgs))
	}
	var p models.PushPayload
	if err := json.Unmarshal(msgs[0].Plaintext, &p); err != nil {
		t.Fatalf("payload %q: %v", msgs[0].Plaintext, err)
	}
	want := models.PushPayload{Title: "The agent raised a task", Body: "Renew the passport before the trip in March", URL: "/activities/push-task", Tag: "activity:push-task"}
	if p != want {
		t.Fatalf("payload %+v, want %+v", p, want)
	}

	// The same item published again is not notified again: a later new
	// item's push is the only other one (the plan that sends it has seen
	// the revision).
	publishWithCLI(t, srv, "run-push-2", "", `{"id":"push-task","kind":"task","title":"Renew the passport, revised","evidenceIds":[],"payload":{}}`, "")
	publishWithCLI(t, srv, "run-push-3", "", `{"id":"push-other","kind":"task","title":"Book the dentist","evidenceIds":[],"payload":{}}`, "")
	select {
	case <-service.Delivered():
	case <-time.After(30 * time.Second):
		t.Fatal("no push for the second item within 30 s")
	}
	var tags []string
	for _, m := range service.Messages() {
		var p models.PushPayload
		json.Unmarshal(m.Plaintext, &p)
		tags = append(tags, p.Tag)
	}
	if strings.Join(tags, " ") != "activity:push-task activity:push-other" {
		t.Fatalf("pushes %v, want the task once and then the other", tags)
	}
	// The outcome is recorded once the push service answered: wait for it.
	var sent *goquery.Selection
	poll.Eventually(t, 30*time.Second, func() (bool, string) {
		// The demo's own history lists sent items too: count this test's.
		sent = o.mustPage(http.MethodGet, "/more", nil).Find(`[data-testid="push-entry"][data-status="sent"]`).
			FilterFunction(func(_ int, e *goquery.Selection) bool {
				return strings.Contains(e.Text(), "Renew the passport") || strings.Contains(e.Text(), "Book the dentist")
			})
		return sent.Length() == 2, fmt.Sprintf("More lists %d sent items, want 2: %q", sent.Length(), sent.Text())
	})
	if !strings.Contains(sent.Text(), "Renew the passport") || !strings.Contains(sent.Text(), "new to hearth") &&
		!strings.Contains(sent.Text(), "you usually act on") {
		t.Fatalf("More lists %q, want the sent items with why", sent.Text())
	}
}
