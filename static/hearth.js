// hearth.js: live updates. One /events stream per tab, open only while the
// page is shown; on every revision newer than the page's, Home re-fetches
// its live fragment and swaps it in, keeping any row the owner is editing
// as it is, marked as having a newer version; other pages reload.
(function () {
  "use strict";

  function live() {
    return document.getElementById("live");
  }

  // The revision the page shows; every fragment carries its own.
  function shownRevision() {
    var el = live();
    return el ? Number(el.dataset.revision) : Number(document.body.dataset.revision || 0);
  }

  // Pages without a live fragment (Messages, People) reload on a revision
  // newer than the one they were read at, unless the owner is typing: then
  // a notice offers the reload instead, but only when what is being edited
  // changed. A form names what it shows in data-watch (keys as events name
  // them, "draft:ID chat:ID"); without one, or when the event may have
  // missed changes (since unknown), any change counts.
  function reloadPage(data, known) {
    var active = document.activeElement && document.activeElement.matches("input, textarea, select") ? document.activeElement : null;
    var typed = document.querySelector("[data-typing]");
    if (!active && !typed) {
      location.reload();
      return;
    }
    var editing = active || typed;
    var scope = editing.closest("[data-watch]");
    if (known && scope) {
      var watched = scope.dataset.watch.split(/\s+/).filter(Boolean);
      var hit = (data.changed || []).some(function (k) { return watched.indexOf(k) >= 0; });
      if (!hit) return;
    }
    var note = document.getElementById("page-stale");
    if (note) note.hidden = false;
  }

  // A row is being edited once a field in it changed or has focus.
  document.addEventListener("input", function (e) {
    var row = e.target.closest("[data-row]");
    if (row) row.dataset.editing = "true";
    else e.target.dataset.typing = "true";
  });

  function editingRows(root) {
    var rows = new Map();
    root.querySelectorAll("[data-row]").forEach(function (row) {
      var focused = row.contains(document.activeElement) && document.activeElement.matches("input, textarea, select");
      if (row.dataset.editing === "true" || focused) rows.set(row.dataset.id, row);
    });
    return rows;
  }

  var refreshing = null;
  var again = false;

  async function refresh() {
    if (refreshing) {
      again = true;
      return refreshing;
    }
    var el = live();
    if (!el) return;
    var open = Array.from(el.querySelectorAll('[data-row][data-expanded="true"]')).map(function (r) { return r.dataset.id; });
    var url = el.dataset.src + (el.dataset.src.indexOf("?") < 0 ? "?" : "&") + "open=" + encodeURIComponent(open.join(","));
    refreshing = (async function () {
      var res = await fetch(url, { headers: { "HX-Request": "true" }, credentials: "same-origin" });
      if (!res.ok) return;
      var tpl = document.createElement("template");
      tpl.innerHTML = await res.text();
      var fresh = tpl.content.getElementById("live");
      if (!fresh) return;
      var current = live();
      editingRows(current).forEach(function (node, id) {
        var replacement = fresh.querySelector('[data-row][data-id="' + CSS.escape(id) + '"]');
        if (!replacement) return;
        // Only a change of this row is news: a refresh for another row
        // keeps it as typed, without a notice.
        if (replacement.dataset.version !== node.dataset.version) {
          node.dataset.stale = "true";
          var note = node.querySelector(":scope > [data-stale-note]");
          if (note) note.hidden = false;
        }
        replacement.replaceWith(node);
      });
      current.replaceWith(fresh);
      htmx.process(fresh);
      document.dispatchEvent(new CustomEvent("hearth:refreshed", { detail: { revision: Number(fresh.dataset.revision) } }));
    })();
    try {
      await refreshing;
    } finally {
      refreshing = null;
      if (again) {
        again = false;
        refresh();
      }
    }
  }

  // The newest revision an event told this page about: an event whose
  // changes start right after it names everything that changed since.
  var seen = 0;

  function onRevision(e) {
    var data;
    try {
      data = JSON.parse(e.data);
    } catch (err) {
      return;
    }
    var from = Math.max(seen, shownRevision());
    var known = data.since > 0 && data.since <= from + 1;
    seen = Math.max(seen, data.revision);
    // The first event after every (re)connect carries the current revision,
    // so a page that missed events while disconnected (or while kept in the
    // back/forward cache) catches up here: Home re-fetches its fragment,
    // other pages reload.
    if (data.revision > shownRevision()) {
      if (live()) refresh();
      else reloadPage(data, known);
    }
    if (document.body) document.body.dataset.seen = String(seen);
  }

  // The stream is closed while the page is hidden in the back/forward cache
  // or frozen: a kept page that held its stream held an HTTP/1.1
  // connection, and six of them used up the browser's per-host limit, so
  // the next navigation never reached the server.
  var stream = null;
  var retryTimer = 0;
  var backoff = 0;

  function connect() {
    var url = document.body && document.body.dataset.events;
    if (!url || stream) return;
    clearTimeout(retryTimer);
    var es = new EventSource(url);
    es.addEventListener("revision", onRevision);
    es.onopen = function () {
      backoff = 0;
    };
    // The browser retries a dropped stream by itself; one it gave up on
    // (a refused connection, a non-200 such as after logout) is retried
    // here, backing off to a minute.
    es.onerror = function () {
      if (stream !== es || es.readyState !== EventSource.CLOSED) return;
      stream = null;
      backoff = Math.min(backoff ? backoff * 2 : 1, 64);
      retryTimer = setTimeout(connect, backoff * 1000);
    };
    stream = es;
  }

  function disconnect() {
    clearTimeout(retryTimer);
    if (!stream) return;
    stream.close();
    stream = null;
  }

  window.addEventListener("pagehide", disconnect);
  document.addEventListener("freeze", disconnect);
  window.addEventListener("pageshow", connect);
  document.addEventListener("resume", connect);
  connect();

  // A refused form is marked aria-invalid on its field: move the focus
  // there, so the owner is at the message (read with the field) and the value.
  function focusInvalid(root) {
    var field = root && root.querySelector && root.querySelector('[aria-invalid="true"]');
    if (field) field.focus();
  }

  // A replaced row is no longer being edited.
  document.addEventListener("htmx:afterSwap", function (e) {
    var row = e.detail.target && e.detail.target.closest && e.detail.target.closest("[data-row]");
    if (row) delete row.dataset.editing;
  });
  // After the swap settles: the target of an outerHTML swap is the new element.
  document.addEventListener("htmx:afterSettle", function (e) {
    var el = e.detail.elt;
    if (el && !el.isConnected && e.detail.target) el = e.detail.target;
    focusInvalid(el && el.isConnected ? el : document);
  });
  // A whole page answered a refused plain form.
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", function () { focusInvalid(document); });
  } else {
    focusInvalid(document);
  }
})();
