// offline.js: offline entry, loaded by hearth.js once the page has loaded
// (hearth.js registers the service worker then too). The service worker
// (/sw.js) keeps the shell and the last Home. Here a weight, task tick,
// skip, move to later or quick add made without hearth (offline, or online with
// hearth unreachable: Tailscale or the server down, a proxy answering
// 502/503/504) is queued on this device (localStorage, cleared
// with the session on logout), shown on its row as waiting to sync, and
// sent once hearth answers again. Each action carries a client key made
// when the owner acted, so a send that did reach the server, sent again,
// is a no-op there. Anything else (a reply send, a hand-off, a request) is
// refused in place, and never queued: its effect leaves hearth. A row
// whose actions can wait opens without hearth from the copy the worker
// kept with Home.
(function () {
  "use strict";

  function worker(message) {
    if (!("serviceWorker" in navigator)) return;
    navigator.serviceWorker.ready.then(function (reg) {
      if (reg.active) reg.active.postMessage(message);
    }, function () {});
  }

  // The kept Home belongs to the session: once an answer says it is gone,
  // the worker drops it.
  document.addEventListener("hearth:signed-out", function () {
    var w = navigator.serviceWorker && navigator.serviceWorker.controller;
    if (w) w.postMessage("signed-out");
  });

  var QUEUE = "hearth.offline.queue";
  // Replays the server refused, said on their rows for this page's life.
  var refusedNotes = [];
  // A row's weight, tick, skip or move, a weigh-in typed into Home's own
  // field or the Weight page's (/weight/entries: no row names it), and a
  // task or note typed into Home's quick add (/mine).
  var queueable = /^\/(activities\/[^/?#]+\/(state|measurement)|weight\/entries|mine)$/;
  var WEIGH_IN = "/weight/entries";
  // The queue's name for the weigh-in field's place (it is no row).
  var WEIGH_FIELD = "weigh-in-field";
  var QUICK_ADD = "/mine";
  // The quick add's form names itself as a row (data-row, data-id).
  var QUICK_FIELD = "quick-add";
  var REFUSED = "You are offline, so this was not sent. Only a weight, a tick, a skip or a task or note you add waits for the connection; try this again when you are back online.";
  var UNREACHABLE = "hearth could not be reached; nothing was sent. Only a weight, a tick, a skip or a task or note you add waits for hearth; try this again when it answers.";
  // Page forms that go through fetch, so hearth not answering is said in
  // place instead of the browser's error page: Messages' (review, send and
  // what follows a send; the hand-off is left to the browser, as it leaves
  // for the Beeper app), Routines' (trials, outcomes, proposals), a
  // schedule's cancel and approval, a run's resolve. (The Weight page has
  // its own.)
  var fetched = /^\/(messages\/[^/]+\/(review|send|reconcile|not-sent|remind|no-reply-needed)|routines\/.+|schedules\/[^/]+\/(cancel|approve)|runs\/[^/]+\/resolve)$/;

  // gatewayError tells a proxy's answer that stands in for a hearth that does
  // not answer from hearth's own (every one of which carries its CSP).
  function gatewayError(status, csp) {
    return (status === 502 || status === 503 || status === 504) && !csp;
  }

  // --- what the page says about the connection ---
  // unreachable: the last try failed although the phone is online. The
  // Home the worker answered from its copy says so too (data-offline-copy).
  var unreachable = !!(document.body && document.body.dataset.offlineCopy);

  function bannerText() {
    var what = "A weight, a tick, a skip, a move to later or a task or note you add is kept on this phone and sent ";
    if (!navigator.onLine) return "You are offline. " + what + "when the connection is back; replies and everything else wait for it.";
    return "hearth could not be reached. " + what + "when hearth answers again; replies and everything else wait until then.";
  }

  function showBanner() {
    var main = document.querySelector("main");
    if (!main) return;
    var b = document.getElementById("offline-banner");
    var down = !navigator.onLine || unreachable;
    if (!down) {
      if (b) b.remove();
      return;
    }
    if (!b) {
      b = document.createElement("p");
      b.id = "offline-banner";
      b.className = "notice";
      b.setAttribute("role", "status");
      b.setAttribute("data-testid", "offline-banner");
      main.prepend(b);
    }
    b.textContent = bannerText();
  }

  var probeTimer = 0;
  function markUnreachable() {
    unreachable = true;
    showBanner();
    clearTimeout(probeTimer);
    probeTimer = setTimeout(probe, 5000);
  }

  // markReachable: hearth answered. The live part reconnects at once (the
  // first part listens for resume), and catches up with what it missed.
  function markReachable() {
    var was = unreachable;
    unreachable = false;
    clearTimeout(probeTimer);
    if (document.body) delete document.body.dataset.offlineCopy;
    showBanner();
    if (!was) return;
    clearUnreachableNotes();
    document.dispatchEvent(new Event("resume"));
  }

  // probe asks hearth whether it answers again (online, after a failure):
  // the queue's own send when there is one, else the health check.
  function probe() {
    if (!navigator.onLine) return;
    if (load().length) {
      flush();
      return;
    }
    fetch("/healthz", { cache: "no-store", credentials: "same-origin" }).then(function (res) {
      if (gatewayError(res.status, res.headers.get("Content-Security-Policy"))) markUnreachable();
      else markReachable();
    }, markUnreachable);
  }

  function load() {
    try {
      var q = JSON.parse(localStorage.getItem(QUEUE) || "[]");
      return Array.isArray(q) ? q : [];
    } catch (err) {
      return [];
    }
  }

  function store(q) {
    try {
      localStorage.setItem(QUEUE, JSON.stringify(q));
      return true;
    } catch (err) {
      return false;
    }
  }

  function newKey() {
    var b = new Uint8Array(16);
    crypto.getRandomValues(b);
    return "ck-" + Array.from(b, function (x) { return x.toString(16).padStart(2, "0"); }).join("");
  }

  // pathOf is the path a submit of form by submitter posts to.
  function pathOf(form, submitter) {
    try {
      return new URL(actionOf(form, submitter), location.href).pathname;
    } catch (err) {
      return "";
    }
  }

  // actionOf is where a submit goes: the button's own formaction (a
  // form's second way out, like "Continue in Beeper"), else the form's.
  function actionOf(form, submitter) {
    if (submitter && submitter.hasAttribute("formaction")) return submitter.getAttribute("formaction");
    return form.getAttribute("hx-post") || form.getAttribute("action") || "";
  }

  // rowOf is the row a queued action is shown on; for a weigh-in no row
  // names, the weigh-in field's form (Home's first screen, the Weight page).
  function rowOf(id) {
    if (id === WEIGH_FIELD) return document.querySelector("form.weigh-in-form");
    return document.querySelector('[data-row][data-id="' + CSS.escape(id) + '"]');
  }

  function openRows() {
    return Array.from(document.querySelectorAll('#live [data-row][data-expanded="true"]')).map(function (r) { return r.dataset.id; });
  }

  // What the note on the row says the device holds. The quick add's note
  // names every task or note waiting, in the owner's words: none of them
  // is on Home before hearth has stored it.
  function describe(item) {
    var p = new URLSearchParams(item.body);
    if (item.path === QUICK_ADD) {
      var words = load().filter(function (x) { return x.path === QUICK_ADD; }).map(function (x) {
        return "\u201c" + (new URLSearchParams(x.body).get("text") || "").trim() + "\u201d";
      });
      if (!words.length) words = ["\u201c" + (p.get("text") || "").trim() + "\u201d"];
      return "Kept on this phone, added once hearth has it: " + words.join(", ") + ".";
    }
    if (item.path.slice(-12) === "/measurement" || item.path === WEIGH_IN) return "Waiting to sync: " + (p.get("value") || "").trim() + ".";
    var word = { completed: "done", skipped: "skipped", dismissed: "not applicable", partial: "partly done", deferred: "later", available: "back to do" }[p.get("state")] || p.get("state");
    return "Waiting to sync: " + word + ".";
  }

  function setNote(id, text, kind) {
    var row = rowOf(id);
    if (!row) return;
    var note = row.querySelector(":scope > [data-sync-note]");
    if (!text) {
      if (note) note.remove();
      delete row.dataset.sync;
      return;
    }
    if (!note) {
      note = document.createElement("p");
      note.className = "sync-note";
      note.setAttribute("data-sync-note", "");
      note.setAttribute("data-testid", "sync-note");
      note.setAttribute("role", "status");
      var head = row.querySelector(":scope > .row-head");
      if (head) head.after(note);
      else row.prepend(note);
    }
    note.textContent = text;
    row.dataset.sync = kind;
  }

  // Marks every row that has queued actions (after a load or a swap); a
  // step inside a routine that is shown folded marks the routine instead.
  function shownOf(ids) {
    return ids.filter(function (id) { return rowOf(id); })[0];
  }

  function markQueued() {
    refusedNotes.forEach(function (n) {
      var shown = shownOf(n.rows);
      if (shown) setNote(shown, n.text, "refused");
    });
    load().forEach(function (item) {
      var shown = shownOf(item.rows || [item.row]);
      if (shown) setNote(shown, describe(item), "waiting");
    });
  }

  // enqueue keeps an action on this device. Its rows are the row it names
  // and the rows around it, or around the form it came from (elt): a step
  // ticked on its folded routine is shown waiting on the routine.
  function enqueue(path, body, elt) {
    var weighIn = path === WEIGH_IN;
    var quick = path === QUICK_ADD;
    var id = weighIn ? WEIGH_FIELD : quick ? QUICK_FIELD : decodeURIComponent(path.split("/")[2]);
    var rows = [id];
    var r = weighIn || quick ? null : rowOf(id) || (elt && elt.closest ? elt.closest("[data-row]") : null);
    for (; r; r = r.parentElement && r.parentElement.closest("[data-row]")) {
      if (rows.indexOf(r.dataset.id) < 0) rows.push(r.dataset.id);
    }
    var item = { key: body.get("clientKey"), path: path, body: body.toString(), row: id, rows: rows, at: Date.now() };
    var q = load();
    if (q.some(function (x) { return x.key === item.key; })) return true;
    q.push(item);
    if (!store(q)) return false;
    setNote(shownOf(rows) || id, describe(item), "waiting");
    // The queue holds what the form held now: keep.js forgets its copy,
    // so a reload does not restore it as unsaved typing (and reopen its rows).
    if (elt && elt.dispatchEvent) elt.dispatchEvent(new CustomEvent("hearth:queued", { bubbles: true }));
    // The quick add's field is left empty for the next one, as its answer leaves it.
    var field = quick && rowOf(QUICK_FIELD);
    if (field && field.tagName === "FORM") {
      field.reset();
      delete field.dataset.editing;
    }
    return true;
  }

  function refuse(form, text) {
    var old = form.querySelector(":scope > [data-offline-refused]");
    if (old) old.remove();
    var p = document.createElement("p");
    p.className = "error";
    p.setAttribute("data-offline-refused", "");
    p.setAttribute("data-testid", navigator.onLine ? "unreachable-refused" : "offline-refused");
    p.setAttribute("role", "alert");
    p.textContent = text;
    form.prepend(p);
  }

  function clearRefusals() {
    document.querySelectorAll("[data-offline-refused]").forEach(function (p) { p.remove(); });
  }

  // A row that was not kept with Home (a reply, a settled row) needs hearth to open.
  function needsHearth(row) {
    setNote(row.dataset.id, navigator.onLine ? "hearth could not be reached: this opens when it answers again." : "This opens when you are back online.", "needs-hearth");
  }

  // Once hearth answers, the rows that could not open say so no more (a
  // refused form's "nothing was sent" stays true, and stays).
  function clearUnreachableNotes() {
    document.querySelectorAll('[data-sync="needs-hearth"]').forEach(function (row) { setNote(row.dataset.id, "", ""); });
  }

  // Offline at the moment of the submit: queue or refuse before htmx (or
  // the browser) tries. Capture on document runs before htmx's listener on
  // the form, and stopping here keeps it from sending. Online, the
  // Messages page forms go through fetch (submitByFetch).
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!(form instanceof HTMLFormElement) || (form.getAttribute("method") || "get").toLowerCase() !== "post") return;
    var path = pathOf(form, e.submitter || null);
    if (navigator.onLine) {
      if (!form.hasAttribute("hx-post") && path === WEIGH_IN) {
        e.preventDefault();
        submitOrQueue(form, e.submitter || null);
      } else if (!form.hasAttribute("hx-post") && fetched.test(path)) {
        e.preventDefault();
        submitByFetch(form, e.submitter || null);
      }
      return;
    }
    e.preventDefault();
    e.stopPropagation();
    if (!queueable.test(path)) {
      refuse(form, REFUSED);
      return;
    }
    var body = new URLSearchParams(new FormData(form, e.submitter || null));
    body.set("clientKey", newKey());
    if (!enqueue(path, body, form)) refuse(form, "This phone has no room to keep it; try again when you are back online.");
  }, true);

  // sending starts the one send of a page form fetch posts, or returns
  // null: a second tap while the first is on its way is the same send.
  // data-submitting also holds the live reload of the page while it is on
  // its way; a minute without an answer aborts it. done ends it, however
  // it ended.
  function sending(form, submitter) {
    if (form.dataset.submitting) return null;
    form.dataset.submitting = "true";
    var ctrl = new AbortController();
    var timer = setTimeout(function () { ctrl.abort(); }, 60000);
    return {
      body: new URLSearchParams(new FormData(form, submitter)),
      signal: ctrl.signal,
      done: function () {
        clearTimeout(timer);
        delete form.dataset.submitting;
      },
    };
  }

  // answered says hearth took form (res, after its redirect, is not a
  // refusal): keep.js forgets what the device kept of it, as it does once
  // a plain form is answered.
  function answered(form, res) {
    if (res.ok) form.dispatchEvent(new CustomEvent("hearth:sent", { bubbles: true }));
  }

  // submitOrQueue posts the Weight page's weigh-in through fetch with a
  // client key: hearth's answer is shown as the page (the saved note a
  // redirect leads to, or the refusal); when hearth does not answer it is
  // queued like a row's weight. No health check first: a send whose answer
  // was lost is queued too, and its replay is a no-op on the server.
  function submitOrQueue(form, submitter) {
    var send = sending(form, submitter);
    if (!send) return;
    var body = send.body;
    body.set("clientKey", newKey());
    fetch(WEIGH_IN, {
      method: "POST", body: body, credentials: "same-origin", signal: send.signal,
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
    }).then(function (res) {
      if (gatewayError(res.status, res.headers.get("Content-Security-Policy"))) throw new Error("gateway " + res.status);
      markReachable();
      // A refusal comes through a redirect too (hearth answers every owner
      // form's POST with one): only a taken weigh-in's leads to a new page.
      if (res.redirected && res.status !== 422) {
        answered(form, res);
        location.assign(res.url + (new URL(res.url).pathname === "/weight" ? "#weigh-in" : ""));
        return;
      }
      return res.text().then(function (html) {
        // A refusal (a number hearth does not take) is said in the form,
        // in place; any other answer is shown as the page.
        var answer = new DOMParser().parseFromString(html, "text/html").querySelector("form.weigh-in-form");
        if (res.status === 422 && answer && form.isConnected) {
          form.replaceWith(answer);
          var field = answer.querySelector('[aria-invalid="true"]');
          if (field) field.focus();
          return;
        }
        answered(form, res);
        showPage(res, html);
      });
    }).catch(function () {
      markUnreachable();
      if (!enqueue(WEIGH_IN, body, form)) refuse(form, "This phone has no room to keep it; try again when hearth answers.");
    }).finally(send.done);
  }

  // submitByFetch posts a page form and shows hearth's answer as the page
  // (the page a redirect led to, or the page the POST answered); when
  // hearth does not answer, the form says so in place and stays. It asks
  // /healthz first: only a POST that never left the phone is certainly not
  // sent (a connection lost after it left, or no answer in time, may hide
  // a send that happened).
  function submitByFetch(form, submitter) {
    var send = sending(form, submitter);
    if (!send) return;
    var left = false;
    function fromHearth(res) {
      if (gatewayError(res.status, res.headers.get("Content-Security-Policy"))) throw new Error("gateway " + res.status);
      return res;
    }
    fetch("/healthz", { cache: "no-store", credentials: "same-origin", signal: send.signal }).then(fromHearth).then(function () {
      left = true;
      return fetch(new URL(actionOf(form, submitter), location.href).href, {
        method: "POST", body: send.body, credentials: "same-origin", signal: send.signal,
        headers: { "Content-Type": "application/x-www-form-urlencoded" },
      });
    }).then(fromHearth).then(function (res) {
      return res.text().then(function (html) {
        answered(form, res);
        showPage(res, html);
      });
    }).catch(function () {
      if (!left) {
        refuse(form, "hearth could not be reached; nothing was sent. Try again when it answers.");
      } else {
        refuse(form, "hearth did not answer after this left the phone, so this phone cannot tell whether it went through. " +
          (/\/send$/.test(pathOf(form, submitter)) ? "Sending again is safe: hearth sends it at most once." :
            /^\/messages\//.test(pathOf(form, submitter)) ? "Look at the conversation before trying again." : "Reload the page to see whether it was done before trying again."));
      }
      markUnreachable();
    }).finally(send.done);
  }

  // showPage shows hearth's answer. A redirect (every owner form answers
  // with one) is followed as the browser would: a navigation to its GET,
  // so history holds the form's page and the answer's, each a real
  // document that Back, Forward and reload read again without repeating
  // anything. A page answered directly replaces this one in place. The
  // live stream closes first, as on leaving.
  function showPage(res, html) {
    if (res.redirected) {
      location.assign(res.url);
      return;
    }
    window.dispatchEvent(new Event("pagehide"));
    clearInterval(syncTimer);
    clearTimeout(retry);
    clearTimeout(probeTimer);
    document.open();
    document.write(html);
    document.close();
  }

  // Online: every owner action on a row carries a fresh client key, so a
  // send that fails on the way (the network dropped, hearth is down) can
  // be queued as is.
  var sent = new WeakMap();
  document.addEventListener("htmx:configRequest", function (e) {
    var d = e.detail;
    if (d.verb !== "post") return;
    var path = new URL(d.path, location.href).pathname;
    if (!queueable.test(path)) return;
    d.parameters.clientKey = newKey();
    sent.set(d.elt, { path: path, body: new URLSearchParams(d.formData) });
  });

  // notSent handles an htmx request hearth did not answer: a queueable
  // action is queued, a row head (its row not kept by the worker) says it
  // needs hearth, anything else is refused in place.
  function notSent(elt) {
    var head = elt && elt.matches && elt.matches("a.row-head") ? elt : null;
    if (head) {
      var row = head.closest("[data-row]");
      if (row && !foldBack(row)) needsHearth(row);
      return;
    }
    var form = elt && elt.closest ? elt.closest("form") || elt : elt;
    var s = sent.get(elt);
    if (s && s.body.get("clientKey")) {
      sent.delete(elt);
      if (enqueue(s.path, s.body, elt)) return;
    }
    if (form && form.tagName === "FORM") refuse(form, navigator.onLine ? UNREACHABLE : REFUSED);
  }

  // A row opened from the copy the worker kept folds back without hearth:
  // its folded form as it was before it opened is kept here, by row, until
  // hearth answers for the row again.
  var foldedRows = {};
  document.addEventListener("htmx:beforeSwap", function (e) {
    var d = e.detail;
    var row = d.target && d.target.matches && d.target.matches("[data-row]") ? d.target : null;
    if (!row || !d.xhr || !d.shouldSwap) return;
    if (d.xhr.getResponseHeader("Hearth-Offline-Copy") && row.dataset.expanded === "false") foldedRows[row.dataset.id] = row.outerHTML;
    else if (!d.xhr.getResponseHeader("Hearth-Offline-Copy")) delete foldedRows[row.dataset.id];
  });

  function foldBack(row) {
    var html = row.dataset.expanded === "true" && foldedRows[row.dataset.id];
    if (!html) return false;
    var tpl = document.createElement("template");
    tpl.innerHTML = html;
    var node = tpl.content.firstElementChild;
    if (!node) return false;
    row.replaceWith(node);
    if (window.htmx) htmx.process(node);
    markQueued();
    return true;
  }

  document.addEventListener("htmx:sendError", function (e) {
    if (navigator.onLine) markUnreachable();
    notSent(e.detail.elt);
  });
  // A proxy's 502/503/504 is not hearth's answer: nothing of it is swapped in.
  document.addEventListener("htmx:beforeSwap", function (e) {
    var xhr = e.detail.xhr;
    if (!gatewayError(xhr.status, xhr.getResponseHeader("Content-Security-Policy"))) return;
    e.detail.shouldSwap = false;
    e.detail.isError = false;
    markUnreachable();
    notSent(e.detail.requestConfig ? e.detail.requestConfig.elt : e.target);
  });
  // Any answer of hearth's own says it is back; a row the worker answered
  // from its copy says it is not.
  document.addEventListener("htmx:afterRequest", function (e) {
    var xhr = e.detail.xhr;
    if (!xhr || xhr.status === 0 || gatewayError(xhr.status, xhr.getResponseHeader("Content-Security-Policy"))) return;
    if (xhr.getResponseHeader("Hearth-Offline-Copy")) {
      if (navigator.onLine) markUnreachable();
      return;
    }
    if (unreachable) {
      markReachable();
      flush();
    }
  });

  // fresh puts a synced action's answer on the page: the row it names
  // (for a routine's step, its routine), or the live part for a row that
  // moved to Later. The owner's own entry is then shown as saved, and the
  // live refresh that follows sees no row being edited, so it never says
  // "changed elsewhere" about it.
  function fresh(item, res, html) {
    var tpl = document.createElement("template");
    tpl.innerHTML = html;
    var node = tpl.content.firstElementChild;
    var old = null;
    if (node && node.id === "live") old = document.getElementById("live");
    else if (node && node.matches("[data-row]")) old = rowOf(node.dataset.id);
    if (old && node) {
      old.replaceWith(node);
      if (window.htmx) htmx.process(node);
      var trend = item.path === WEIGH_IN && node.id === "live" && node.querySelector('[data-testid="weigh-in-trend"]');
      if (trend) {
        var before = trend.previousElementSibling;
        syncedTrend = { revision: Number(node.dataset.revision), html: trend.outerHTML, after: before && before.dataset.testid };
      }
      return;
    }
    (item.rows || [item.row]).forEach(function (id) {
      var row = rowOf(id);
      if (row) delete row.dataset.editing;
    });
  }

  // The trend a synced weigh-in's answer showed at the top of Home. The
  // live event of that save may come before the answer (the stream is
  // back as soon as hearth is) and re-read Home, which shows the trend only
  // in a save's own answer: a re-read of no newer revision keeps it, as
  // the owner's own save online keeps it.
  var syncedTrend = null;
  document.addEventListener("hearth:refreshed", function (e) {
    var el = document.getElementById("live");
    if (!syncedTrend || !el) return;
    if (e.detail.revision > syncedTrend.revision) {
      syncedTrend = null;
      return;
    }
    if (el.querySelector('[data-testid="weigh-in-trend"]')) return;
    var tpl = document.createElement("template");
    tpl.innerHTML = syncedTrend.html;
    var after = syncedTrend.after && el.querySelector(':scope > [data-testid="' + CSS.escape(syncedTrend.after) + '"]');
    if (after) after.after(tpl.content.firstElementChild);
    else el.prepend(tpl.content.firstElementChild);
  });

  // Sends the queue in order, once per item; a network failure stops and
  // keeps the rest for later.
  var flushing = false;
  var retry = 0;
  async function flush() {
    if (flushing || !navigator.onLine) return;
    flushing = true;
    var sentAny = false;
    var weighed = false;
    try {
      var q;
      while ((q = load()).length) {
        var item = q[0];
        var res;
        var body = new URLSearchParams(item.body);
        // The answer keeps the rows open on the page open.
        body.set("open", openRows().join(","));
        // A weigh-in is answered with Home's live part (its trend), from
        // wherever it was typed; the Weight page reads itself again after.
        if (item.path === WEIGH_IN) body.set("from", "home");
        try {
          res = await fetch(item.path, {
            method: "POST", body: body.toString(), credentials: "same-origin", redirect: "manual",
            headers: { "Content-Type": "application/x-www-form-urlencoded", "HX-Request": "true" },
          });
        } catch (err) {
          res = null;
        }
        if (!res || gatewayError(res.status, res.headers.get("Content-Security-Policy"))) {
          // Still offline or unreachable, or the online event came before
          // the network: try again shortly rather than at the next event.
          markUnreachable();
          clearTimeout(retry);
          retry = setTimeout(flush, 5000);
          return;
        }
        markReachable();
        if (res.type === "opaqueredirect" || res.status === 401) {
          // The session is gone (a logout, a logout-all for a lost phone):
          // nothing is sent under it. The action stays on this device for
          // the owner to send after signing in again here.
          setNote(shownOf(item.rows || [item.row]) || item.row, describe(item) + " Not sent yet: sign in again to send it.", "waiting");
          document.dispatchEvent(new CustomEvent("hearth:signed-out"));
          return;
        }
        if (res.status === 403 || res.status >= 500) {
          // Not the owner's session, or hearth could not save: keep it and say so.
          setNote(shownOf(item.rows || [item.row]) || item.row, describe(item) + " Not sent yet: " + (res.status >= 500 ? "hearth could not save it; it will try again." : "sign in again to send it."), "waiting");
          return;
        }
        store(load().filter(function (x) { return x.key !== item.key; }));
        var html = await res.text();
        var row = rowOf(item.row);
        if (res.ok) {
          sentAny = true;
          if (item.path === WEIGH_IN) weighed = true;
          fresh(item, res, html);
          var left = load();
          (item.rows || [item.row]).forEach(function (id) {
            if (!left.some(function (x) { return (x.rows || [x.row]).indexOf(id) >= 0; })) setNote(id, "", "");
          });
          markQueued();
          continue;
        }
        // Refused (409, 422, 404): the server's row says why. It replaces
        // the row when shown; on a folded routine its message is the note.
        var tpl = document.createElement("template");
        tpl.innerHTML = html;
        // A weigh-in's or a folded routine's tick's answer is Home's live part: its first row is not theirs.
        var freshRow = tpl.content.firstElementChild && tpl.content.firstElementChild.matches("[data-row]") ? tpl.content.firstElementChild : null;
        var why = tpl.content.querySelector('[role="alert"]');
        var text = "Not saved: " + (why ? why.textContent.trim() : "this changed or is gone.");
        if (row && freshRow) {
          // Kept through the next live refresh, as a row being edited is.
          freshRow.dataset.editing = "true";
          row.replaceWith(freshRow);
          if (window.htmx) htmx.process(freshRow);
        } else {
          refusedNotes.push({ rows: item.rows || [item.row], text: text });
          markQueued();
        }
      }
    } finally {
      flushing = false;
      if (sentAny) keepHome();
      // The Weight page shows a synced weigh-in as its own save does: the
      // saved note with the trend, and the weigh-in in its list.
      if (weighed && location.pathname === "/weight") location.replace("/weight?saved=1#weigh-in");
    }
  }

  // keepHome asks the worker to keep Home as it is now, soon after what
  // changed it here (a row answer, a live refresh, a synced queue): a cold
  // start without hearth then opens today's Home, not the morning's. A
  // Home the worker did not answer (its first visit, before the worker
  // controlled the page, or while it activated) is kept the same way.
  var keepTimer = 0;
  function keepHome() {
    clearTimeout(keepTimer);
    keepTimer = setTimeout(function () { worker("keep-home"); }, 2000);
  }
  // Whether the worker answered this page's own load: a worker that
  // activated during the load claims the page (so it has a controller)
  // without having seen it, and its navigation timing then says so.
  function loadedThroughWorker() {
    var nav = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
    return !!(navigator.serviceWorker && navigator.serviceWorker.controller) && !!nav && nav.workerStart > 0;
  }
  if (document.getElementById("live") && !unreachable) {
    document.addEventListener("hearth:refreshed", keepHome);
    document.addEventListener("htmx:afterRequest", function (e) {
      var xhr = e.detail.xhr;
      if (e.detail.successful && xhr && e.detail.requestConfig && e.detail.requestConfig.verb === "post") keepHome();
    });
  }

  window.addEventListener("online", function () {
    clearRefusals();
    clearUnreachableNotes();
    showBanner();
    flush();
    probe();
  });
  window.addEventListener("offline", showBanner);
  document.addEventListener("htmx:afterSettle", markQueued);
  document.addEventListener("hearth:refreshed", markQueued);

  // inTurn runs each step in a task of its own: together they were a
  // long task on a phone (the queue's first read waits on the browser).
  function inTurn(steps) {
    var i = 0;
    function next() {
      if (i >= steps.length) return;
      steps[i++]();
      setTimeout(next, 0);
    }
    setTimeout(next, 0);
  }
  var readQueue = [load, markQueued, flush];
  window.addEventListener("pageshow", function () { inTurn(readQueue); });
  var starting = [];
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", showBanner);
  else starting.push(showBanner);
  // Run after the page's first pageshow: read now, as that one would have.
  if (document.readyState === "complete") starting = starting.concat(readQueue);
  starting.push(function () {
    if (document.getElementById("live") && !unreachable && !loadedThroughWorker()) worker("keep-home");
  });
  inTurn(starting);
  // The Home the worker answered from its copy: find out when hearth is back.
  if (unreachable) probeTimer = setTimeout(probe, 5000);
  // A queue left by a lost connection without an offline event is retried.
  var syncTimer = setInterval(function () { if (load().length) flush(); }, 30000);
})();
