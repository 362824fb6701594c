package e2e

import (
	"context"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/PuerkitoBio/goquery"

	"hearth/beeper"
	"hearth/beeper/beepertest"
	"hearth/internal/poll"
)

// ownerClient is a logged-in owner speaking HTML forms over real HTTP, as a
// browser without JavaScript would.
type ownerClient struct {
	t    *testing.T
	base string
	hc   *http.Client
}

func loginOwner(t *testing.T, base string) *ownerClient {
	t.Helper()
	jar, _ := cookiejar.New(nil)
	o := &ownerClient{t: t, base: base, hc: &http.Client{Jar: jar, Timeout: 90 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
	resp, err := o.hc.PostForm(base+"/login", url.Values{"password": {"hearth-demo"}})
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Fatalf("login: %d", resp.StatusCode)
	}
	return o
}

// page GETs or POSTs and parses the answer.
func (o *ownerClient) page(method, path string, form url.Values) (int, *goquery.Document, error) {
	req, _ := http.NewRequest(method, o.base+path, strings.NewReader(form.Encode()))
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	resp, err := o.hc.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	d, err := goquery.NewDocumentFromReader(resp.Body)
	return resp.StatusCode, d, err
}

func (o *ownerClient) mustPage(method, path string, form url.Values) *goquery.Document {
	o.t.Helper()
	if method == http.MethodPost {
		// A form's answer is its own page (post/redirect/get): the browser
		// shows the GET the 303 leads to.
		req, _ := http.NewRequest(method, o.base+path, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := o.hc.Do(req)
		if err != nil {
			o.t.Fatalf("%s %s: %v", method, path, err)
		}
		resp.Body.Close()
		loc, _, _ := strings.Cut(resp.Header.Get("Location"), "#")
		if resp.StatusCode != http.StatusSeeOther || loc == "" {
			o.t.Fatalf("%s %s: %d, want 303 to its answer", method, path, resp.StatusCode)
		}
		method, path, form = http.MethodGet, loc, nil
	}
	status, d, err := o.page(method, path, form)
	if err != nil || status >= 400 {
		o.t.Fatalf("%s %s: %d %v", method, path, status, err)
	}
	return d
}

// hiddenFields collects a page's hidden form fields.
func hiddenFields(d *goquery.Document, form string) url.Values {
	v := url.Values{}
	d.Find(form + ` input[type="hidden"]`).Each(func(_ int, s *goquery.Selection) {
		name, _ := s.Attr("name")
		value, _ := s.Attr("value")
		v.Set(name, value)
	})
	return v
}

func TestSIGKILLBetweenBeeperAndTheOutcomeLeavesTheDraftReconcilableNotStuck(t *testing.T) {
	t.Parallel()
	// Beeper applies the send at once but holds its answer, so the kill lands
	// after Beeper accepted the message and before hearth recorded it.
	beeperURL := startFakeBeeper(t, "--send-delay", "60s")
	env := []string{"BEEPER_ACCESS_TOKEN=e2e-token"}
	args := []string{"--demo", "--beeper-url", beeperURL}
	dir := t.TempDir()
	srv := startServerIn(t, dir, env, args...)
	owner := loginOwner(t, srv.URL)
	const conv = "/messages/%21ana-okafor:beeper.local"
	body := "Saturday works, see you at the trailhead."
	review := owner.mustPage(http.MethodPost, conv+"/review", url.Values{"draftId": {"draft-ana-hike"}, "body": {body}})
	confirm := hiddenFields(review, `form[action$="/send"]`)
	if confirm.Get("sendKey") == "" || confirm.Get("draftId") != "draft-ana-hike" {
		t.Fatalf("review form %v", confirm)
	}
	go owner.page(http.MethodPost, conv+"/send", confirm) // answered only by the crash

	fake := beeper.NewClient(beeperURL, "e2e-token", beeper.WithTimeout(2*time.Second))
	poll.Eventually(t, 20*time.Second, func() (bool, string) {
		return sentBy(t, fake, body), "Beeper never received the send"
	})
	srv.kill(t)

	srv = startServerIn(t, dir, env, args...)
	owner = loginOwner(t, srv.URL)
	d := owner.mustPage(http.MethodGet, conv, nil)
	draft := d.Find(`#draft-draft-ana-hike`)
	if draft.Find(`[data-testid="send-unknown"]`).Length() != 1 || draft.Find(`[data-testid="review"]`).Length() != 0 {
		html, _ := draft.Html()
		t.Fatalf("after the crash the draft shows:\n%s", html)
	}
	if strings.Contains(d.Text(), "Sending…") {
		t.Fatal("the draft is stuck at Sending…")
	}
	key := hiddenFields(d, `form[action$="/reconcile"]`).Get("sendKey")
	if key != confirm.Get("sendKey") {
		t.Fatalf("reconcile form carries %q, want the interrupted send's key", key)
	}
	result := owner.mustPage(http.MethodPost, conv+"/reconcile", url.Values{"sendKey": {key}})
	if result.Find(`[data-testid="send-sent"]`).Length() != 1 {
		html, _ := result.Html()
		t.Fatalf("reconciliation:\n%s", html)
	}
	home := owner.mustPage(http.MethodGet, "/", nil)
	if state, _ := home.Find(`li[data-id="reply-ana-hike"]`).Attr("data-state"); state != "completed" {
		t.Fatalf("the reply on Home is %q after reconciliation", state)
	}
	if n := countSent(t, fake, body); n != 1 {
		t.Fatalf("Beeper holds %d copies of the reply, want exactly 1", n)
	}
}

func sentBy(t *testing.T, c *beeper.Client, text string) bool { return countSent(t, c, text) > 0 }

// countSent counts the owner's messages with text in Ana's chat.
func countSent(t *testing.T, c *beeper.Client, text string) int {
	t.Helper()
	page, err := c.Messages(context.Background(), beepertest.AnaChatID, beeper.MessagesQuery{})
	if err != nil {
		return 0
	}
	n := 0
	for _, m := range page.Items {
		if m.IsSender && m.Text == text {
			n++
		}
	}
	return n
}
