package e2e

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// startTasksRecorder notes, in every later document of the tab, how many
// elements htmx had read when the first timer set at the end of the
// parse ran (a task of its own, the first one after the parse's), and
// what touched the origin's storage or waited for the service worker
// while offline.js was being evaluated (and how often the worker was
// waited for at all).
const startTasksRecorder = `(function () {
  var at = window.__start = { processed: 0, afterParse: -1, inOffline: [], askedWorker: 0, inserted: [] };
  // turn changes from one task to the next (at the microtask checkpoint
  // that ends each), so two scripts inserted with the same turn were
  // inserted in one task.
  var turn = 0, ending = false;
  function thisTurn() {
    if (!ending) {
      ending = true;
      queueMicrotask(function () { ending = false; turn++; });
    }
    return turn;
  }
  var append = Node.prototype.appendChild;
  Node.prototype.appendChild = function (node) {
    if (node instanceof HTMLScriptElement && (node.src || "").indexOf("/static/") >= 0) {
      at.inserted.push({ src: node.src.replace(/^.*\/static\//, "").replace(/\?.*$/, ""), turn: thisTurn() });
    }
    return append.apply(this, arguments);
  };
  document.addEventListener("htmx:afterProcessNode", function () { at.processed++; }, true);
  window.addEventListener("DOMContentLoaded", function (e) {
    if (!e.isTrusted) return;
    setTimeout(function () { at.afterParse = at.processed; }, 0);
  }, true);
  function evaluatingOffline() {
    var s = document.currentScript;
    return !!s && (s.src || "").indexOf("/static/offline.js") >= 0;
  }
  ["getItem", "setItem", "removeItem", "key"].forEach(function (m) {
    var f = Storage.prototype[m];
    Storage.prototype[m] = function () {
      if (evaluatingOffline()) at.inOffline.push("storage " + m);
      return f.apply(this, arguments);
    };
  });
  var proto = window.ServiceWorkerContainer && ServiceWorkerContainer.prototype;
  var ready = proto && Object.getOwnPropertyDescriptor(proto, "ready");
  if (ready && ready.get) {
    Object.defineProperty(proto, "ready", { configurable: true, get: function () {
      at.askedWorker++;
      if (evaluatingOffline()) at.inOffline.push("worker");
      return ready.get.call(this);
    } });
  }
})();`

// Home's start-up comes in short tasks, each well under Lighthouse's
// 50 ms long task on a phone's CPU (a quarter of that here): htmx reads
// the page in a task after the one that ends the parse (which evaluates
// hearth.js, runs the load event's handlers and often the first layout),
// and offline.js's evaluation neither opens the origin's storage nor
// talks to the worker (the queue's read, the rows it marks and the
// worker's copy of Home each come in a task of their own). htmx still
// reads the page, and the worker is still asked to keep Home. The
// scripts loaded after the first paint are inserted a task each.
func TestHomeStartsInShortTasksHtmxAfterTheParseAndOfflineJsInSteps(t *testing.T) {
	srv := startServer(t, "", "--demo")
	tb := newTab(t, srv)
	tb.onEveryDocument("record", startTasksRecorder)
	tb.login()
	// A Home the worker did not answer (none is registered), which
	// offline.js asks the worker to keep. The worker registers after
	// Home's first paint: unregistered before that, it would register
	// afterwards and answer the next Home itself.
	tb.do("unregister the worker", chromedp.Evaluate[chromedp.Void](`navigator.serviceWorker.ready.then(function () {
		return navigator.serviceWorker.getRegistrations();
	}).then(function (rs) {
		return Promise.all(rs.map(function (r) { return r.unregister(); }));
	})`, chromedp.EvalAwaitPromise))
	tb.do("open Home", chromedp.Navigate(srv.URL+"/"))
	started := `(function () {
		var at = window.__start || {};
		return location.pathname === "/" && at.afterParse >= 0 && at.processed > 0 && document.readyState === "complete" &&
			performance.getEntriesByType("resource").some(function (r) { return r.name.indexOf("/static/offline.js") >= 0; }) &&
			at.askedWorker > 0;
	})()`
	// On a failure, what the page held of its start (not in its HTML).
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		ctx, cancel := context.WithTimeout(tb.ctx, 2*time.Second)
		defer cancel()
		state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`JSON.stringify({start: window.__start, path: location.pathname, ready: document.readyState,
			controlled: !!navigator.serviceWorker.controller,
			offlineJs: performance.getEntriesByType("resource").some(function (r) { return r.name.indexOf("/static/offline.js") >= 0; })})`))
		t.Logf("the page's start: %s", state)
	})
	eventually(tb, "htmx read Home and offline.js started", started, navigationDeadline)
	var got struct {
		Processed  int      `json:"processed"`
		AfterParse int      `json:"afterParse"`
		InOffline  []string `json:"inOffline"`
		Inserted   []struct {
			Src  string `json:"src"`
			Turn int    `json:"turn"`
		} `json:"inserted"`
	}
	if err := json.Unmarshal([]byte(get(tb, "start", chromedp.Evaluate[string](`JSON.stringify(window.__start)`))), &got); err != nil {
		t.Fatal(err)
	}
	if got.AfterParse != 0 {
		t.Errorf("htmx read %d elements in the task that ended the parse, want none (%d in all)", got.AfterParse, got.Processed)
	}
	if len(got.InOffline) > 0 {
		t.Errorf("offline.js's evaluation did %v, want none of it in that task", got.InOffline)
	}
	if len(got.Inserted) != 3 {
		t.Errorf("hearth.js inserted %+v after the first paint, want replies.js, keep.js and offline.js", got.Inserted)
	}
	for i := 1; i < len(got.Inserted); i++ {
		if got.Inserted[i].Turn == got.Inserted[i-1].Turn {
			t.Errorf("%s and %s were inserted in one task, want a task each", got.Inserted[i-1].Src, got.Inserted[i].Src)
		}
	}
}
