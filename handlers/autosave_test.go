package handlers_test

import (
	"net/http"
	"net/url"
	"strconv"
	"testing"
)

// TestAutosaveOfAReplyNeverOverwritesANewerEdit drives the reply editor's
// autosave (static/keep.js): each save names the edit it started from, and
// one started from an edit that is no longer stored (another tab saved
// since) is refused, so the newer text stays.
func TestAutosaveOfAReplyNeverOverwritesANewerEdit(t *testing.T) {
	t.Parallel()
	ta, cookie := homeApp(t)
	const home = "/drafts/draft-ana-hike/edit?activity=reply-ana-hike"
	autosave := func(path, body string, since int64, hx bool) response {
		t.Helper()
		return ta.ownerRequest(http.MethodPost, path, url.Values{"body": {body}, "autosave": {"1"}, "since": {strconv.FormatInt(since, 10)}}, hx, cookie)
	}
	editor := func() string {
		t.Helper()
		return has(t, ta.ownerRequest(http.MethodGet, "/activities/reply-ana-hike?expanded=true", nil, true, cookie).doc(t), `[data-testid="draft-body"]`).Text()
	}

	first := autosave(home, "Saturday works", 0, true)
	rev1, _ := strconv.ParseInt(first.header.Get("Hearth-Edit-Revision"), 10, 64)
	if first.status != http.StatusOK || rev1 == 0 || first.header.Get("Hearth-Revision") != strconv.FormatInt(rev1, 10) {
		t.Fatalf("first autosave: %d, edit revision %q, revision %q", first.status, first.header.Get("Hearth-Edit-Revision"), first.header.Get("Hearth-Revision"))
	}
	// A second tab that opened the draft before that save.
	if r := autosave(home, "Sunday instead", 0, true); r.status != http.StatusConflict {
		t.Errorf("autosave from a superseded edit: %s, want 409", r)
	}
	if got := editor(); got != "Saturday works" {
		t.Errorf("after a refused autosave the editor holds %q", got)
	}
	next := autosave(home, "Saturday works, see you at 8", rev1, true)
	rev2, _ := strconv.ParseInt(next.header.Get("Hearth-Edit-Revision"), 10, 64)
	if next.status != http.StatusOK || rev2 <= rev1 {
		t.Fatalf("autosave from the stored edit: %s (edit revision %d)", next, rev2)
	}
	// Unchanged text commits nothing and keeps the edit's revision.
	rev := ta.revision()
	if r := autosave(home, "Saturday works, see you at 8", rev2, true); r.status != http.StatusOK || r.header.Get("Hearth-Edit-Revision") != strconv.FormatInt(rev2, 10) || ta.revision() != rev {
		t.Errorf("unchanged autosave: %d, edit revision %q, workspace %d -> %d", r.status, r.header.Get("Hearth-Edit-Revision"), rev, ta.revision())
	}
	// A conversation's editor: no row to show, so no content.
	conv := autosave("/drafts/draft-ana-hike/edit", "Saturday works, see you at 8:00", rev2, false)
	if conv.status != http.StatusNoContent || conv.header.Get("Hearth-Edit-Revision") == "" {
		t.Errorf("conversation autosave: %s", conv)
	}
	if got := editor(); got != "Saturday works, see you at 8:00" {
		t.Errorf("editor holds %q", got)
	}
	if r := autosave(home, " ", ta.revision(), true); r.status != http.StatusUnprocessableEntity {
		t.Errorf("empty autosave: %s, want 422", r)
	}
}
