package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// startRecorder notes, in every later document of the tab, the document's
// readyState when the page registers its service worker and when it opens
// its event stream (window.__starts), and in which task each read of the
// origin's storage came (window.__reads): "DOMContentLoaded" or "load" for
// the task in which the browser dispatched that event (load's task also
// dispatches pageshow), else "later".
const startRecorder = `(function () {
  var starts = window.__starts = [];
  var reads = window.__reads = [];
  var during = "";
  function mark(name) {
    return function () {
      during = name;
      setTimeout(function () { during = ""; }, 0);
    };
  }
  // The browser's own, seen ahead of hearth.js's hold of it (which hands
  // htmx a copy once htmx has read the page, tasks later).
  var parsed = mark("DOMContentLoaded");
  window.addEventListener("DOMContentLoaded", function (e) {
    if (e.isTrusted) parsed();
  }, true);
  window.addEventListener("load", mark("load"), true);
  var getItem = Storage.prototype.getItem;
  Storage.prototype.getItem = function (k) {
    reads.push(during || "later");
    return getItem.call(this, k);
  };
  var sw = navigator.serviceWorker;
  if (sw) {
    var register = sw.register.bind(sw);
    sw.register = function (url, opts) {
      starts.push("worker " + document.readyState);
      return register(url, opts);
    };
  }
  var ES = window.EventSource;
  function Recorded(url, opts) {
    starts.push("stream " + document.readyState);
    return new ES(url, opts);
  }
  Recorded.prototype = ES.prototype;
  Recorded.CONNECTING = ES.CONNECTING;
  Recorded.OPEN = ES.OPEN;
  Recorded.CLOSED = ES.CLOSED;
  window.EventSource = Recorded;
})();`

// loadOrder is what a page started before and after its load event.
const loadOrder = `JSON.stringify((function () {
  var nav = performance.getEntriesByType("navigation")[0];
  var scripts = {};
  performance.getEntriesByType("resource").forEach(function (r) {
    var name = new URL(r.name).pathname.replace("/static/", "");
    if (/\.js$/.test(name)) scripts[name] = r.startTime >= nav.loadEventStart && nav.loadEventStart > 0;
  });
  return { loaded: nav.loadEventStart > 0, scripts: scripts, starts: window.__starts || [], reads: window.__reads || [] };
})())`

type pageStarts struct {
	Loaded  bool            `json:"loaded"`
	Scripts map[string]bool `json:"scripts"` // script name: requested after the load event
	Starts  []string        `json:"starts"`
	Reads   []string        `json:"reads"` // the task of each storage read
}

// The first paint and the page's own parse come first: what only answers
// the owner's typing (replies.js, keep.js), the offline part (offline.js),
// the live event stream and the service worker (whose install reads Home
// and its rows) start once the page has loaded, and still start. htmx and hearth.js, which the page's
// controls need from the first tap, load with the page. The origin's
// storage (the offline queue, kept typing), whose first read opens it, is
// read in a task of its own, never in the ones that dispatch
// DOMContentLoaded or load, and still read.
func TestOwnerPagesStartTypingScriptsStreamAndWorkerOnlyAfterTheLoadEvent(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.onEveryDocument("record starts", startRecorder)
	tb.login()
	for _, path := range []string{"/", "/routines", "/weight"} {
		tb.do("open "+path, chromedp.Navigate(srv.URL+path))
		// Everything this page starts has started: the later scripts have
		// loaded, the stream is open and the worker registered.
		eventually(tb, path+" settled", `(function () {
			var r = performance.getEntriesByType("resource").map(function (e) { return e.name; });
			var s = window.__starts || [];
			var loaded = function (name) { return r.some(function (n) { return n.indexOf("/static/" + name) >= 0; }); };
			return document.readyState === "complete" && loaded("keep.js") && loaded("offline.js") && (location.pathname !== "/" || loaded("replies.js")) &&
				s.some(function (x) { return x.indexOf("stream ") === 0; }) && s.some(function (x) { return x.indexOf("worker ") === 0; });
		})()`, navigationDeadline)
		var got pageStarts
		if err := json.Unmarshal([]byte(get(tb, path+" load order", chromedp.Evaluate[string](loadOrder))), &got); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if !got.Loaded {
			t.Fatalf("%s: no load event", path)
		}
		for _, name := range []string{"replies.js", "keep.js", "offline.js"} {
			after, ok := got.Scripts[name]
			if name == "replies.js" && path != "/" {
				// Only where a reply editor is or opens (Home's rows).
				if ok {
					t.Errorf("%s: replies.js loaded on a page without replies", path)
				}
				continue
			}
			if !ok {
				t.Errorf("%s: %s was never loaded (scripts: %v)", path, name, got.Scripts)
			} else if !after {
				t.Errorf("%s: %s was requested before the load event", path, name)
			}
		}
		if after, ok := got.Scripts["hearth.js"]; !ok || after {
			t.Errorf("%s: hearth.js not loaded with the page (loaded %v, after the load event %v)", path, ok, after)
		}
		if path == "/" {
			if after, ok := got.Scripts["htmx-2.0.11.min.js"]; !ok || after {
				t.Errorf("%s: htmx not loaded with the page (loaded %v, after the load event %v)", path, ok, after)
			}
		}
		worker, stream := 0, 0
		for _, s := range got.Starts {
			switch {
			case strings.HasPrefix(s, "worker "):
				worker++
			case strings.HasPrefix(s, "stream "):
				stream++
			}
			if s != "worker complete" && s != "stream complete" {
				t.Errorf("%s: %q: started before the load event (readyState not complete)", path, s)
			}
		}
		later := 0
		for _, r := range got.Reads {
			if r == "later" {
				later++
			} else {
				t.Errorf("%s: storage read in the task that dispatched %s", path, r)
			}
		}
		if later == 0 {
			t.Errorf("%s: the offline queue and kept typing were never read", path)
		}
		if worker != 1 || stream != 1 {
			t.Errorf("%s: registered the worker %d times and opened the stream %d times, want once each (%v)", path, worker, stream, got.Starts)
		}
	}
}
