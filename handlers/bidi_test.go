package handlers_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"unicode"

	"github.com/PuerkitoBio/goquery"
)

// rlo is RIGHT-TO-LEFT OVERRIDE: text after it is drawn reversed, so a
// title can make the rest of its row read as something else.
const rlo = "\u202e"

// spoofedPublication is validPublication with a bidi control in every
// piece of agent text the pages show.
func spoofedPublication(t *testing.T) doc {
	p := validPublication("run-1", 0)
	for _, pointer := range []string{
		"/brief/text", "/people/0/name", "/people/0/context", "/people/1/name",
		"/activities/0/title", "/activities/1/title", "/activities/1/detail", "/activities/2/title",
		"/activities/3/title", "/activities/3/recommendation/reason", "/activities/4/title",
		"/replyDrafts/0/reason", "/replyDrafts/0/candidates/0/style", "/replyDrafts/0/candidates/1/body",
	} {
		s, _ := valueAt(t, map[string]any(p), pointer).(string)
		p.Set(t, pointer, "\u2066"+s+rlo+"gnp.exe\u2069\u200f")
	}
	p.Set(t, "/activities/4/title", "Book the bike service"+rlo+"yadot")
	return p
}

// bidiControls lists the bidi controls in the text a page shows: text
// nodes and the title, aria-label, alt and placeholder attributes. Text the
// owner is about to send (a textarea, and elements marked dir="auto") is
// shown as it will be sent, isolated, and is left out.
func bidiControls(d *goquery.Document) []string {
	var found []string
	check := func(where, s string) {
		if strings.ContainsFunc(s, func(r rune) bool { return unicode.Is(unicode.Bidi_Control, r) }) {
			found = append(found, where+": "+strings.ToValidUTF8(s, "?"))
		}
	}
	var walk func(s *goquery.Selection)
	walk = func(s *goquery.Selection) {
		s.Contents().Each(func(_ int, c *goquery.Selection) {
			switch name := goquery.NodeName(c); {
			case name == "#text":
				check("<"+goquery.NodeName(s)+">", c.Text())
			case name == "textarea" || c.AttrOr("dir", "") == "auto":
			default:
				for _, a := range []string{"title", "aria-label", "alt", "placeholder"} {
					if v, ok := c.Attr(a); ok {
						check("<"+name+" "+a+">", v)
					}
				}
				walk(c)
			}
		})
	}
	walk(d.Selection)
	return found
}

func TestBidiControlsInAgentTextAreStrippedFromPages(t *testing.T) {
	ta, cookie, fake := messagesApp(t)
	spoofed := spoofedPublication(t)
	spoofed["runId"], spoofed["expectedRevision"] = "run-spoof", ta.revision()
	ta.mustPublish(ta.agentToken(), spoofed.JSON())
	fake.Incoming("!ana-okafor:beeper.local", "@ana:beeper.local", "See you"+rlo+" at 8")
	open := "morning-routine-" + testDate + ",weigh-in-" + testDate + ",stretch-" + testDate + ",reply-ana-hike,book-bike-service"
	for _, path := range []string{"/?open=" + open, "/messages", anaPath, "/people", "/routines"} {
		resp := ta.get(path, "", cookie)
		if resp.status != 200 {
			t.Fatalf("%s: %s", path, resp)
		}
		if found := bidiControls(resp.doc(t)); len(found) > 0 {
			t.Errorf("%s shows bidi controls in %d places:\n%s", path, len(found), strings.Join(found, "\n"))
		}
	}
	home := ta.get("/", "", cookie).doc(t)
	title := has(t, home, `li[data-id="book-bike-service"] [data-testid="row-title"]`).Text()
	if title != "Book the bike serviceyadot" {
		t.Errorf("Home row title %q, want the override stripped", title)
	}
	people := ta.get("/people", "", cookie).doc(t)
	if name := has(t, people, `[data-testid="person"] .person-name`).First().Text(); strings.Contains(name, rlo) || !strings.Contains(name, "Ana Okafor") {
		t.Errorf("People name %q", name)
	}
	messages := ta.get("/messages", "", cookie).doc(t)
	if row := has(t, messages, `[data-testid="chat"][data-chat="!ana-okafor:beeper.local"]`).Text(); strings.Contains(row, rlo) || !strings.Contains(row, "Ana Okafor") {
		t.Errorf("Messages chat row %q", row)
	}
}

// TestAskConfirmationStripsBidiControlsFromTheChatTitle: the in-place
// confirmation of "Ask the agent" names the chat by the title the page
// sent along, which came from Beeper.
func TestAskConfirmationStripsBidiControlsFromTheChatTitle(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	form := has(t, ta.get(anaPath, "", cookie).doc(t), testID("draft-request-form"))
	asked := formOf(form, url.Values{"text": {"Say I can only do Sunday"}, "entityName": {"Ana" + rlo + " Okafor"}})
	resp := ta.ownerRequest(http.MethodPost, "/requests", asked, true, cookie)
	if resp.status != http.StatusOK {
		t.Fatalf("asking in place: %s", resp)
	}
	d := resp.doc(t)
	if found := bidiControls(d); len(found) > 0 {
		t.Errorf("the confirmation shows bidi controls in %d places:\n%s", len(found), strings.Join(found, "\n"))
	}
	if got := has(t, d, testID("ask-confirmed")).Text(); !strings.Contains(got, "Ana Okafor") {
		t.Errorf("confirmation %q does not name the chat", got)
	}
}
