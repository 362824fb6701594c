package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// paintRecorder notes, in every later document of the tab, when (in the
// page's own time) and by what the origin's storage was touched, and when
// the service worker registered.
const paintRecorder = `(function () {
  var at = window.__at = { storage: [], worker: [] };
  ["getItem", "setItem", "removeItem", "key"].forEach(function (m) {
    var f = Storage.prototype[m];
    Storage.prototype[m] = function () {
      at.storage.push({ at: performance.now(), by: m + " " + arguments[0] + " " + (new Error().stack || "").split("\n").slice(2, 3).join("") });
      return f.apply(this, arguments);
    };
  });
  var sw = navigator.serviceWorker;
  if (sw) {
    var register = sw.register.bind(sw);
    sw.register = function (url, opts) {
      at.worker.push(performance.now());
      return register(url, opts);
    };
  }
})();`

// beforePaint lists what the page started before its first contentful paint.
const beforePaint = `JSON.stringify((function () {
  var fcp = performance.getEntriesByName("first-contentful-paint")[0];
  if (!fcp) return { painted: false };
  var t = fcp.startTime, at = window.__at || { storage: [], worker: [] }, early = [];
  // htmx (vendored, on Home) tries sessionStorage as it is evaluated.
  at.storage.forEach(function (x) { if (x.at < t && x.by.indexOf("/static/htmx-") < 0) early.push("storage: " + x.by.trim()); });
  at.worker.forEach(function (x) { if (x < t) early.push("service worker"); });
  var scripts = [];
  performance.getEntriesByType("resource").forEach(function (r) {
    var name = new URL(r.name).pathname.replace("/static/", "");
    if (!/\.js$/.test(name)) return;
    scripts.push(name);
    if (r.startTime < t && ["keep.js", "offline.js", "replies.js"].indexOf(name) >= 0) early.push(name);
  });
  return { painted: true, early: early, scripts: scripts };
})())`

// A page paints before it does what the first paint does not need:
// hearth's scripts read the origin's storage, the typing and offline
// scripts are requested and the service worker registers only after the
// first contentful paint (Lighthouse counts all of it into a phone's
// simulated Largest Contentful Paint). The code that keeps a
// reloaded page's disclosures and scroll (place.js) loads only on pages
// that reload for a change elsewhere: not on Home, which swaps its live
// part in place.
func TestPagesReadStorageAndStartLaterScriptsOnlyAfterTheirFirstPaint(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.onEveryDocument("record", paintRecorder)
	tb.login()
	for _, path := range []string{"/", "/messages", "/weight"} {
		tb.do("open "+path, chromedp.Navigate(srv.URL+path))
		eventually(tb, path+" started", `(function () {
			var at = window.__at || {};
			return document.readyState === "complete" && performance.getEntriesByName("first-contentful-paint").length > 0 && (at.worker || []).length > 0 &&
				performance.getEntriesByType("resource").some(function (r) { return r.name.indexOf("/static/offline.js") >= 0; });
		})()`, navigationDeadline)
		var got struct {
			Painted bool     `json:"painted"`
			Early   []string `json:"early"`
			Scripts []string `json:"scripts"`
		}
		if err := json.Unmarshal([]byte(get(tb, path+" before paint", chromedp.Evaluate[string](beforePaint))), &got); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !got.Painted {
			t.Fatalf("%s: no first contentful paint", path)
		}
		if len(got.Early) > 0 {
			t.Errorf("%s: started before the first contentful paint: %v", path, got.Early)
		}
		place := strings.Contains(strings.Join(got.Scripts, " "), "place.js")
		if want := path != "/"; place != want {
			t.Errorf("%s: place.js loaded %v, want %v (scripts %v)", path, place, want, got.Scripts)
		}
	}
}
