package handlers_test

import (
	"net/http"
	"strings"
	"testing"
)

// A form's answer hearth no longer keeps existed and is gone for good: the
// owner gets 410 with the tabs, what is gone, and where to look instead.
func TestAFormsAnswerNoLongerKeptIsGoneWithTheTabsAndWhereToLook(t *testing.T) {
	ta, cookie, _ := messagesApp(t)
	for _, tc := range []struct {
		path, words, where string
		// look addresses the way to where the owner should look.
		look string
	}{
		{"/answers/not-kept", "no longer kept", "Nothing was done again", `main a[data-testid="gone-home"][href="/"]`},
		{"/weight/import/not-kept", "no longer kept", "weigh-ins above are what is saved", `main input#file`},
		{anaPath + "/review?answer=not-kept", "no longer kept", "nothing was sent", `main [data-testid="own-body"], main textarea[name="body"]`},
	} {
		r := ta.get(tc.path, "", cookie)
		if r.status != http.StatusGone || !strings.HasPrefix(r.header.Get("Content-Type"), "text/html") {
			t.Errorf("GET %s: %d %s %.80s", tc.path, r.status, r.header.Get("Content-Type"), r.body)
			continue
		}
		d := r.doc(t)
		has(t, d, `nav[aria-label="Main"] a[href="/"]`)
		has(t, d, `h1`)
		if txt := text(d.Find("main")); !strings.Contains(txt, tc.words) || !strings.Contains(txt, tc.where) {
			t.Errorf("GET %s says %q; want %q and %q", tc.path, txt, tc.words, tc.where)
		}
		has(t, d, tc.look)
	}
	// An answer that never was and an address that names nothing stay 404.
	if r := ta.get("/nope", "", cookie); r.status != http.StatusNotFound {
		t.Errorf("GET /nope: %d", r.status)
	}
}
