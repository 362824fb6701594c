// hearth.js: live updates. One /events stream per tab, open only while the
// page is shown; on every revision newer than the page's, Home re-fetches
// its live fragment and swaps it in, keeping any row the owner is editing
// as it is, marked as having a newer version (unless the page's own row
// answer already showed that revision), and every row open as the owner
// left it (one opened or shut while the read was away included); other
// pages reload, with their disclosures and scroll as the owner left them
// (place.js, loaded on those pages only).
// No live update races the owner: nothing is reloaded or swapped while a
// navigation or a request of the owner's is under way, and a page showing
// a form's answer (data-form-answer: a dry run, a review, a refusal) is
// never reloaded under them: the reload would cancel the request or lose
// the answer.
(function () {
  "use strict";

  // htmx reads the page (every form, button and hx- element) a slice at a
  // time. Read at once, in the task after the parse, it was the longest
  // task after the first paint on a phone. So the page's DOMContentLoaded
  // is held from htmx (only htmx listens for it: hearth's scripts run
  // deferred or later), its config is merged as its start-up merges it,
  // and htmx.process reads the page's parts, a few milliseconds a task.
  // Then htmx's own start-up runs, with nothing left to read: htmx skips
  // an element it read with the same attributes. A touch, key or focus
  // before that runs it at once, in the event's capture phase, so htmx
  // hears the event itself; a tap on a part not read yet is never a
  // plain form or link.
  if (window.htmx && document.readyState === "interactive") {
    window.addEventListener("DOMContentLoaded", function (e) {
      e.stopImmediatePropagation();
      mergeHtmxConfig();
      var parts = null; // split in the first slice: the parse's task is long enough
      var started = false;
      var reach = ["pointerdown", "keydown", "focusin", "click", "submit"];
      function start() {
        if (started) return;
        started = true;
        reach.forEach(function (type) { document.removeEventListener(type, start, true); });
        document.dispatchEvent(new Event("DOMContentLoaded", { bubbles: true }));
      }
      reach.forEach(function (type) { document.addEventListener(type, start, true); });
      (function slice() {
        setTimeout(function () {
          if (started) return;
          if (!parts) {
            parts = htmxParts(document.body);
            slice();
            return;
          }
          var until = performance.now() + SLICE_MS;
          try {
            while (parts.length && performance.now() < until) {
              var part = parts.shift();
              if (part.isConnected) htmx.process(part);
            }
          } finally {
            // A part htmx could not read leaves the rest to be read.
            if (parts.length) slice();
            else setTimeout(start);
          }
        });
      })();
    }, { capture: true, once: true });
  }

  // SLICE_MS is how long a task of htmx's reading runs (checked between
  // parts): on a phone's CPU, or a desktop's times four as Lighthouse
  // counts it, still well under a long task (50 ms).
  var SLICE_MS = 4;

  // mergeHtmxConfig merges <meta name="htmx-config"> into htmx.config, as
  // htmx's start-up does (again, later): the parts are read by it.
  function mergeHtmxConfig() {
    var meta = document.querySelector('meta[name="htmx-config"]');
    if (!meta) return;
    try {
      Object.assign(htmx.config, JSON.parse(meta.content));
    } catch (err) {}
  }

  // htmxParts splits root into the parts htmx.process reads, in page order:
  // each holds at most two of what htmx reads (a form is read whole, with
  // the buttons it holds).
  var HTMX_READS = "form, [type='submit'], " + ["get", "post", "put", "patch", "delete", "trigger"].map(function (verb) {
    return "[hx-" + verb + "], [data-hx-" + verb + "]";
  }).join(", ");
  function htmxParts(root) {
    var parts = [];
    (function split(el) {
      var n = el.querySelectorAll(HTMX_READS).length;
      if (el.matches(HTMX_READS) || (n > 0 && n <= 2)) parts.push(el);
      else if (n > 2) Array.prototype.forEach.call(el.children, split);
    })(root);
    return parts;
  }

  // A navigation the owner started (a plain form's submit, a link): a
  // reload now would cancel it, and a reload of a page that answered a form
  // would post that form again (an import's dry run posted again in place
  // of the import). Cleared when the page is shown again from the
  // back/forward cache. No beforeunload listener: some browsers keep a page
  // that has one out of the back/forward cache.
  var leaving = false;
  if (window.navigation && typeof window.navigation.addEventListener === "function") {
    window.navigation.addEventListener("navigate", function (e) {
      if (!e.destination.sameDocument && !e.downloadRequest) leaving = true;
    });
  } else {
    window.addEventListener("submit", function (e) {
      // htmx (and the offline part) prevent the default of what they send themselves.
      if (!e.defaultPrevented) leaving = true;
    });
    window.addEventListener("click", function (e) {
      var a = !e.defaultPrevented && e.target.closest ? e.target.closest("a[href]") : null;
      if (a && !a.hasAttribute("download") && !a.target && a.getAttribute("href").charAt(0) !== "#") leaving = true;
    });
  }
  window.addEventListener("pageshow", function () { leaving = false; });

  // htmx requests of this page awaiting their answer: a reload would
  // cancel them (the action may be done, its answer lost).
  var pending = 0;
  var afterPending = null; // the reload held until they are answered
  document.addEventListener("htmx:beforeRequest", function (e) {
    if (!e.detail.xhr) return;
    pending++;
    e.detail.xhr.addEventListener("loadend", function () {
      pending--;
      if (pending === 0 && afterPending) {
        var f = afterPending;
        afterPending = null;
        f();
      }
    });
  });

  // A page that shows a form's answer: what the owner just did, or why it
  // was refused, with the text they typed.
  function showsAnswer() {
    return !!document.querySelector("[data-form-answer]");
  }

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
  //
  // A page showing a form's answer, or being left, gets the notice too
  // (for any change): reloading it would undo what the owner is doing.
  function reloadPage(data, known) {
    if (pending > 0) {
      afterPending = function () { reloadPage(data, false); };
      return;
    }
    var active = document.activeElement && document.activeElement.matches("input, textarea, select") ? document.activeElement : null;
    // A field typed in, or a form fetch is sending (offline.js's sending).
    var typed = document.querySelector("[data-typing], [data-submitting]");
    if (!active && !typed && !leaving && !showsAnswer()) {
      // place.js keeps the owner's disclosures and scroll.
      document.dispatchEvent(new CustomEvent("hearth:reloading"));
      location.reload();
      return;
    }
    var editing = active || typed;
    var scope = editing && !leaving && !showsAnswer() ? editing.closest("[data-watch]") : null;
    if (known && scope) {
      var watched = scope.dataset.watch.split(/\s+/).filter(Boolean);
      var hit = (data.changed || []).some(function (k) { return watched.indexOf(k) >= 0; });
      if (!hit) return;
    }
    var note = document.getElementById("page-stale");
    if (note) note.hidden = false;
  }

  // signedOut tells the page (and, through the offline part, the service
  // worker) that the owner session is gone: an owner page then reloads,
  // which sends it to log in, unless the owner is typing.
  function signedOut() {
    document.dispatchEvent(new CustomEvent("hearth:signed-out"));
  }
  document.addEventListener("hearth:signed-out", function () {
    if (document.body && document.body.dataset.events) reloadPage({}, false);
  });

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

  // Rows the owner is opening (true) or shutting (false): a row's GET
  // (its head, "Show the new version") awaiting its answer. toggles counts
  // every such tap, so a read can tell whether one came while it was away.
  var toggling = {};
  var toggles = 0;
  document.addEventListener("htmx:beforeRequest", function (e) {
    var d = e.detail;
    if (!d.xhr || !d.requestConfig || d.requestConfig.verb !== "get") return;
    var u = new URL(d.requestConfig.path, location.href);
    var m = /^\/activities\/([^/]+)$/.exec(u.pathname);
    if (!m || !u.searchParams.has("expanded")) return;
    var id = decodeURIComponent(m[1]);
    var open = u.searchParams.get("expanded") === "true";
    toggling[id] = open;
    toggles++;
    d.xhr.addEventListener("loadend", function () {
      if (toggling[id] === open) delete toggling[id];
    });
  });

  // The rows open on the page, with those being opened and without those
  // being shut: what the owner sees once their taps are answered.
  function openRows(el) {
    var ids = Array.from(el.querySelectorAll('[data-row][data-expanded="true"]')).map(function (r) { return r.dataset.id; });
    // A part opened by a plain link (the whole waiting list) stays open.
    el.querySelectorAll("[data-open-name]").forEach(function (p) { ids.push(p.dataset.openName); });
    Object.keys(toggling).forEach(function (id) {
      var at = ids.indexOf(id);
      if (toggling[id] && at < 0) ids.push(id);
      else if (!toggling[id] && at >= 0) ids.splice(at, 1);
    });
    return ids;
  }

  // tappedSince tells whether fresh, read with the rows asked open, shows
  // a row open or shut against what the owner has made of it since (now:
  // a tap after the read left, or a tap's answer that came first). Rows
  // in kept were on the page before and are not the read's.
  function tappedSince(asked, now, fresh, kept) {
    return now.concat(asked).some(function (id) {
      if ((now.indexOf(id) >= 0) === (asked.indexOf(id) >= 0)) return false;
      var row = fresh.querySelector('[data-row][data-id="' + CSS.escape(id) + '"]');
      if (!row || (kept && kept.indexOf(row) >= 0)) return false;
      return (row.dataset.expanded === "true") !== (now.indexOf(id) >= 0);
    });
  }

  var refreshing = null;
  var again = false;

  // An owner action on Home is any form in the live part that posts (a
  // tick, Complete, a weight, a draft's edit, feedback, Undo, Bring back).
  // A row's answer carries the revision it committed (header
  // Hearth-Revision) when it shows all that commit changed on Home; an
  // answer that is the whole live part carries its own revision. Either
  // way the live event for that revision needs no refresh: Home is re-read
  // only for changes made elsewhere.
  var own = {}; // revisions this page's row answers showed
  var inFlight = 0; // Home actions awaiting their answer
  var held = 0; // the newest revision announced while one was in flight
  var known = 0; // the newest revision a row answer named (committed before it came)
  var covers = 0; // what the read in flight shows at least: all known before it began

  function isHomeAction(elt, verb) {
    return verb !== "get" && !!elt && typeof elt.closest === "function" && !!elt.closest("#live");
  }

  // The answer may re-render a routine around a step, or a routine with
  // its steps: it keeps the rows open on the page open.
  document.addEventListener("htmx:configRequest", function (e) {
    var d = e.detail;
    var el = live();
    if (el && isHomeAction(d.elt, d.verb)) d.parameters.open = openRows(el).join(",");
  });

  document.addEventListener("htmx:beforeRequest", function (e) {
    var d = e.detail;
    if (!d.requestConfig || !isHomeAction(d.elt, d.requestConfig.verb)) return;
    inFlight++;
    var asked = { open: openRows(live()), taps: toggles, now: null, kept: null };
    answering.set(d.xhr, asked);
    // loadend follows the swap, and comes on failure and abort too.
    d.xhr.addEventListener("loadend", function () {
      inFlight--;
      // The answer shows the rows open as they were when the action was
      // sent: a row the owner opened or shut since, and that the answer
      // shows otherwise, is shown as they left it by a read of Home.
      var el = live();
      var reread = !!asked.now && !!el && tappedSince(asked.open, asked.now, el, asked.kept);
      var rev = Number(d.xhr.getResponseHeader("Hearth-Revision") || 0);
      if (rev > 0 && d.xhr.status === 200) {
        own[rev] = true;
        known = Math.max(known, rev);
      } else {
        rev = 0;
      }
      if (inFlight === 0 && held) {
        // The revisions held and this answer's own: one read covers both.
        var r = Math.max(held, rev);
        held = 0;
        catchUp(r);
      }
      if (reread) refresh(retapped(asked));
    });
  });

  // retapped is the rows open after an action's answer, with each row the
  // owner opened or shut while it was on its way as they left it.
  function retapped(asked) {
    var ids = openRows(live());
    asked.now.concat(asked.open).forEach(function (id) {
      var open = asked.now.indexOf(id) >= 0;
      if (open === (asked.open.indexOf(id) >= 0)) return;
      var at = ids.indexOf(id);
      if (open && at < 0) ids.push(id);
      else if (!open && at >= 0) ids.splice(at, 1);
    });
    return ids;
  }

  // The rows asked open by each Home action in flight (by its request),
  // and, when the owner tapped a row since, the rows open just before its
  // answer is swapped in.
  var answering = new WeakMap();
  document.addEventListener("htmx:beforeSwap", function (e) {
    var asked = e.detail.xhr && answering.get(e.detail.xhr);
    var el = live();
    if (!asked || toggles === asked.taps || !el) return;
    asked.now = openRows(el);
    asked.kept = Array.from(el.querySelectorAll("[data-row]"));
  });

  // catchUp brings Home to revision: nothing to read when every revision
  // since the one shown was this page's own row answer; else a refresh.
  function catchUp(revision) {
    var el = live();
    if (!el || revision <= shownRevision()) return;
    if (inFlight > 0) {
      // The answer may be on its way: decide when it has come.
      held = Math.max(held, revision);
      return;
    }
    if (refreshing) {
      // A read in flight shows what was committed before it began; a
      // newer revision (a row answer swapped in before that read lands)
      // needs another read after it.
      if (revision > covers) refresh();
      return;
    }
    for (var r = shownRevision() + 1; r <= revision; r++) {
      if (!own[r]) {
        refresh();
        return;
      }
    }
    el.dataset.revision = String(revision);
  }

  // The rows the next read asks open, when the page no longer shows them
  // as the owner left them (an action's answer shut one they opened).
  var openNext = null;

  async function refresh(open) {
    if (open) openNext = open;
    if (refreshing) {
      again = true;
      return refreshing;
    }
    var el = live();
    if (!el) return;
    var asked = openNext || openRows(el);
    openNext = null;
    var tapsBefore = toggles;
    var url = el.dataset.src + (el.dataset.src.indexOf("?") < 0 ? "?" : "&") + "open=" + encodeURIComponent(asked.join(","));
    covers = Math.max(seen, known);
    refreshing = (async function () {
      var res = await fetch(url, { headers: { "HX-Request": "true" }, credentials: "same-origin" });
      if (res.status === 401 || (res.redirected && new URL(res.url).pathname === "/login")) signedOut();
      if (!res.ok || res.redirected) return;
      var tpl = document.createElement("template");
      tpl.innerHTML = await res.text();
      var fresh = tpl.content.getElementById("live");
      if (!fresh) return;
      // An action's answer that is the whole live part, swapped in while
      // this read was away, is newer than it: the older read is dropped,
      // or the owner's action would seem undone with nothing to correct it.
      if (Number(fresh.dataset.revision) < shownRevision()) return;
      // A row the owner opened (or shut) while this read was away would
      // be shown as it was asked, and the tap seem lost: read again, with
      // the rows as the owner has them now.
      if (toggles !== tapsBefore && tappedSince(asked, openRows(live()), fresh)) {
        again = true;
        return;
      }
      var current = live();
      // A kept row is moved into the fresh part, and a moved field loses
      // the focus (on a phone, the keyboard): it is given back below.
      var active = document.activeElement;
      var caret = active && active.matches && active.matches("input, textarea") ? [active.selectionStart, active.selectionEnd] : null;
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
      if (active && active !== document.activeElement && active.isConnected && fresh.contains(active)) {
        active.focus({ preventScroll: true });
        if (caret) {
          try {
            active.setSelectionRange(caret[0], caret[1]);
          } catch (err) {}
        }
      }
      // What a row answer showed is replaced by this read: only the
      // fragment's own revision counts now.
      own = {};
      if (window.htmx) htmx.process(fresh);
      document.dispatchEvent(new CustomEvent("hearth:refreshed", { detail: { revision: Number(fresh.dataset.revision), committedAt: committedAt } }));
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

  // Revisions this page's own saves committed: keep.js's autosave of a
  // conversation's draft (a fetch, not an htmx action) names each with
  // hearth:own-revision, often after the event for it came. The stale
  // notice stands for the revisions it was raised for (raisedFor), or for
  // changes an event could not name (raisedBlind); once every one of
  // those proves to be the page's own, it is taken back.
  var mine = {};
  var raisedFor = {};
  var raisedBlind = false;
  document.addEventListener("hearth:own-revision", function (e) {
    var r = e.detail && e.detail.revision;
    if (!r) return;
    mine[r] = true;
    delete raisedFor[r];
    var note = document.getElementById("page-stale");
    if (note && !note.hidden && !raisedBlind && !Object.keys(raisedFor).length) note.hidden = true;
  });

  // The newest revision an event told this page about: an event whose
  // changes start right after it names everything that changed since.
  var seen = 0;
  var committedAt = 0;

  function onRevision(e) {
    var data;
    try {
      data = JSON.parse(e.data);
    } catch (err) {
      return;
    }
    var from = Math.max(seen, shownRevision());
    var contiguous = data.since > 0 && data.since <= from + 1;
    seen = Math.max(seen, data.revision);
    // The newest commit's server time: hearth:refreshed passes it on, so
    // commit → screen can be measured from the commit itself.
    if (data.at) committedAt = Date.parse(data.at);
    // The first event after every (re)connect carries the current revision,
    // so a page that missed events while disconnected (or while kept in the
    // back/forward cache) catches up here: Home re-fetches its fragment,
    // other pages reload.
    if (data.revision > shownRevision()) {
      // A page being left is not swapped: the next page reads it fresh,
      // and one shown again from the back/forward cache reconnects and
      // catches up on its first event.
      if (live()) {
        if (!leaving) catchUp(data.revision);
      } else {
        var others = [];
        for (var r = from + 1; r <= data.revision; r++) if (!mine[r]) others.push(r);
        // Only this page's own saves since: nothing to show or read again.
        if (!contiguous || others.length) {
          reloadPage(data, contiguous);
          var note = document.getElementById("page-stale");
          if (note && !note.hidden) {
            others.forEach(function (x) { raisedFor[x] = true; });
            if (!contiguous) raisedBlind = true;
          }
        }
      }
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
      checkSession(url);
      backoff = Math.min(backoff ? backoff * 2 : 1, 64);
      retryTimer = setTimeout(connect, backoff * 1000);
    };
    stream = es;
  }

  // A stream the browser gave up on was refused, not cut: if the refusal
  // is the session's end (a redirect to log in), the page says so and the
  // phone forgets its copy of Home.
  function checkSession(url) {
    var ctrl = new AbortController();
    fetch(url, { credentials: "same-origin", redirect: "manual", signal: ctrl.signal }).then(function (res) {
      ctrl.abort();
      if (res.type === "opaqueredirect" || res.status === 401) signedOut();
    }, function () {});
  }

  function disconnect() {
    clearTimeout(retryTimer);
    if (!stream) return;
    stream.close();
    stream = null;
  }

  window.addEventListener("pagehide", disconnect);
  document.addEventListener("freeze", disconnect);
  // First opened by the page's first pageshow, which follows its load:
  // the stream does not compete with what the first paint needs.
  // In a task of its own: the load event's task ends the parse's work.
  window.addEventListener("pageshow", function () { setTimeout(connect); });
  document.addEventListener("resume", connect);
  if (document.readyState === "complete") connect();

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
  // A form's answer that lands the owner on it (an import's result, at
  // #import-answer) takes the focus, so it is read out and in view; a
  // refused field comes first.
  function focusAnswer() {
    var target = location.hash && document.getElementById(decodeURIComponent(location.hash.slice(1)));
    if (target && target.matches("[data-form-answer][tabindex]") && !document.querySelector('[aria-invalid="true"]')) target.focus();
  }
  // A whole page answered a refused plain form.
  function onLoad() {
    focusInvalid(document);
    focusAnswer();
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", onLoad);
  } else {
    onLoad();
  }
})();

// The newest decision's Undo is the bottom bar's (#undo-dock); a row shows
// its own Undo only for an older decision. A row's answer moves the bar
// out of band without reading the other rows: the row whose decision the
// bar offered until then gets its Undo back here.
(function () {
  "use strict";

  document.addEventListener("htmx:afterSettle", function () {
    var dock = document.querySelector("#undo-dock form.undo-form");
    var docked = dock ? dock.getAttribute("action") : "";
    document.querySelectorAll("[data-row] .undo-offer").forEach(function (offer) {
      var form = offer.querySelector("form.undo-form");
      offer.hidden = !!form && form.getAttribute("action") === docked;
    });
  });
})();

// A page read after a plain form was sent is that form's answer (keep.js
// names the form's kept fields under hearth.keep.sent as it is sent): what
// the form held is saved, unless hearth refused it (the answer's status,
// after the redirect); then the device keeps it for the form's own page.
// Taken, it is forgotten on every page that kept it. It is settled once,
// on the answer itself: when keep.js starts there, or as the answer is
// left, should the owner leave it before keep.js (loaded after the load
// event) started; the next page read is not the answer and would take the
// send for its own.
(function () {
  "use strict";

  var SENT = "hearth.keep.sent"; // keep.js's names
  var PREFIX = "hearth.keep:";
  var settled = false;

  function settle() {
    if (settled) return;
    settled = true;
    try {
      var names = JSON.parse(sessionStorage.getItem(SENT) || "[]");
      sessionStorage.removeItem(SENT);
      var nav = performance.getEntriesByType("navigation")[0];
      if (!names.length || (nav && nav.responseStatus >= 400)) return;
      var taken = [];
      for (var i = 0; i < localStorage.length; i++) {
        var k = localStorage.key(i);
        if (k && k.indexOf(PREFIX) === 0 && names.some(function (n) { return k.slice(-n.length) === n; })) taken.push(k);
      }
      taken.forEach(function (k) { localStorage.removeItem(k); });
    } catch (err) {}
  }
  document.addEventListener("hearth:settle-sent", settle);
  window.addEventListener("pagehide", settle);
})();


// --- after load ---
// What the first paint and the first tap do not need loads once the page
// has loaded and painted, each script run in a task of its own: replies.js and
// keep.js (they answer the owner's typing, data-after-load), then
// offline.js (the offline and unreachable part, data-offline). Evaluated
// with the page, they made the long task that ends its parse, which
// Lighthouse counts as Total Blocking Time on a phone's CPU. The service
// worker is registered here too, once the page has loaded: its install
// (the shell, and Home with its rows' fragments) then does not compete
// with the page.
(function () {
  "use strict";

  var me = document.currentScript;
  var later = ((me && me.dataset.afterLoad) || "").split(" ").filter(Boolean);
  var offlineSrc = (me && me.dataset.offline) || "";

  function add(src, done) {
    var s = document.createElement("script");
    s.src = src;
    s.async = false;
    if (done) s.onload = s.onerror = done;
    document.head.appendChild(s);
  }

  // A form posted before offline.js ran (a tap before the page's load
  // ended) is held and made again once it has: offline.js queues, or
  // refuses in place, what hearth does not answer.
  var offline = offlineSrc ? 0 : 2; // 0 not asked for, 1 loading, 2 run (or failed: forms then go as plain forms)
  var held = [];
  function loadAll() {
    if (offline) return;
    offline = 1;
    // Each inserted in a task of its own (they still run in this order):
    // the three insertions, each starting its request, made one long task
    // on a phone's CPU.
    var srcs = later.slice();
    (function next() {
      if (srcs.length) {
        add(srcs.shift());
        setTimeout(next, 0);
        return;
      }
      add(offlineSrc, replayHeld);
    })();
  }
  function replayHeld() {
    offline = 2;
    held.splice(0).forEach(function (h) {
      if (h.tapped) {
        if (h.tapped.isConnected) h.tapped.click();
        return;
      }
      if (!h.form.isConnected) return;
      try {
        h.form.requestSubmit(h.submitter && h.submitter.isConnected ? h.submitter : null);
      } catch (err) {
        h.form.requestSubmit();
      }
    });
  }
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (offline === 2 || !(form instanceof HTMLFormElement) || (form.getAttribute("method") || "get").toLowerCase() !== "post") return;
    // Before htmx's listener on the form and the browser's own send.
    e.preventDefault();
    e.stopPropagation();
    held.push({ form: form, submitter: e.submitter || null });
    loadAll();
  }, true);

  // A tap on a control replies.js answers, made before it ran (a busy
  // phone), is held the same way and made again once it has.
  var answeredLater = "input[data-candidate-body], [data-replace-yes], [data-replace-no], [data-copy]";
  document.addEventListener("click", function (e) {
    if (offline === 2 || !e.target.closest) return;
    var control = e.target.closest(answeredLater);
    if (!control) return;
    e.preventDefault();
    e.stopPropagation();
    held.push({ tapped: control });
    loadAll();
  }, true);

  // The registration in a task of its own: the first one starts the
  // worker, which with the scripts' insertion made one long task.
  function register() {
    if ("serviceWorker" in navigator) navigator.serviceWorker.register("/sw.js", { scope: "/" }).catch(function () {});
  }
  function start() {
    loadAll();
    setTimeout(register, 0);
  }

  // The page's first paint usually comes after its load event: what
  // starts before it (these scripts, the worker) is counted
  // into Lighthouse's simulated Largest Contentful Paint. So all of it
  // waits for the first paint (a hidden page paints nothing: at most a
  // second), or for the owner's first touch of the page, whichever comes
  // first: text typed at once is kept from its first key.
  var started = false;
  function go() {
    if (started) return;
    started = true;
    ["focusin", "pointerdown", "keydown"].forEach(function (type) {
      document.removeEventListener(type, go, true);
    });
    start();
  }
  ["focusin", "pointerdown", "keydown"].forEach(function (type) {
    document.addEventListener(type, go, true);
  });
  function afterFirstPaint() {
    var types = (window.PerformanceObserver && PerformanceObserver.supportedEntryTypes) || [];
    if (types.indexOf("paint") >= 0) {
      new PerformanceObserver(function (list, observer) {
        if (!list.getEntriesByName("first-contentful-paint").length) return;
        observer.disconnect();
        setTimeout(go, 0);
      }).observe({ type: "paint", buffered: true });
    } else {
      requestAnimationFrame(function () { setTimeout(go, 0); });
    }
    setTimeout(go, 1000);
  }
  if (document.readyState === "complete") afterFirstPaint();
  else window.addEventListener("load", afterFirstPaint);
})();
