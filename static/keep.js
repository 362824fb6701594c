// keep.js: nothing typed is lost. A field marked data-keep (a
// reply, a weight, a note, a correction) is kept on this device as it is
// typed: localStorage, so it outlives a reload, a crashed or closed tab.
// The key is the page, the field and the record (data-keep); the record's
// version when typed (data-keep-version) goes with the text. When the field
// is shown again without that text, the text is put back with a quiet
// "Restored" note (saying so when the record changed since), opening the
// disclosures and, on Home, the rows around it. The copy is forgotten once
// hearth took its form (a refusal keeps it), and on logout. A reply is a draft hearth stores: its
// text is also saved there as the owner's edit while typing
// (data-autosave), naming the edit it started from, so it never overwrites
// a newer edit made elsewhere. On Back the back/forward cache keeps the
// page itself; this covers a reload, a crash and a page read anew.
(function () {
  "use strict";

  var PREFIX = "hearth.keep:";
  // sessionStorage: the fields (nameOf) whose plain form was just
  // submitted; its answer settles them (hearth.js).
  var SENT = "hearth.keep.sent";
  var MAX_AGE = 14 * 24 * 3600 * 1000;
  // A pause in typing this long saves a reply to hearth.
  var AUTOSAVE_AFTER = 800;

  function keyOf(f) {
    return PREFIX + location.pathname + nameOf(f);
  }

  // nameOf is a field's key without its page: the same field on another
  // page (its form's refusal, shown at /answers/ID) has the same name.
  function nameOf(f) {
    return "|" + f.id + "|" + f.dataset.keep;
  }

  function read(k) {
    try {
      var e = JSON.parse(localStorage.getItem(k));
      return e && typeof e.value === "string" ? e : null;
    } catch (err) {
      return null;
    }
  }

  function write(k, e) {
    try {
      localStorage.setItem(k, JSON.stringify(e));
    } catch (err) {
      // Full or refused: the field still holds the text.
    }
  }

  function forget(k) {
    try {
      localStorage.removeItem(k);
    } catch (err) {}
  }

  function keptKeys() {
    var out = [];
    try {
      for (var i = 0; i < localStorage.length; i++) {
        var k = localStorage.key(i);
        if (k && k.indexOf(PREFIX) === 0) out.push(k);
      }
    } catch (err) {}
    return out;
  }

  function keptFields(root) {
    return Array.prototype.filter.call((root && root.querySelectorAll ? root : document).querySelectorAll("[data-keep]"), function (f) { return !!f.id; });
  }

  // The rows around a field, outermost first: a reload opens them again.
  function rowsOf(f) {
    var ids = [];
    for (var r = f.closest("[data-row]"); r; r = r.parentElement && r.parentElement.closest("[data-row]")) ids.unshift(r.dataset.id);
    return ids;
  }

  function keep(f) {
    met.add(f);
    var k = keyOf(f);
    if (f.value === f.defaultValue) {
      forget(k);
      return;
    }
    var old = read(k);
    // The version is the one the text was first typed against: a save of
    // the text itself (autosave) moves it on.
    write(k, { value: f.value, version: old ? old.version : f.dataset.keepVersion || "", rows: rowsOf(f), at: Date.now() });
  }

  function noteOf(f) {
    return document.getElementById("restored-" + f.id);
  }

  function say(f, text) {
    var n = noteOf(f);
    if (!n) {
      n = document.createElement("p");
      n.id = "restored-" + f.id;
      n.className = "hint";
      n.setAttribute("role", "status");
      n.setAttribute("data-testid", "restored");
      (f.closest(".inline") || f).insertAdjacentElement("afterend", n);
    }
    n.textContent = text;
  }

  // restore puts kept text back into the fields under root that lack it,
  // each field once, when it first appears: after that what the owner does
  // in it is what counts.
  var met = new WeakSet();
  function restore(root) {
    keptFields(root).forEach(function (f) {
      if (met.has(f)) return;
      met.add(f);
      var k = keyOf(f);
      var e = read(k);
      if (!e) {
        // Typed before this script ran (it loads once the page has loaded).
        if (f.value !== f.defaultValue) keep(f);
        return;
      }
      if (Date.now() - e.at > MAX_AGE) {
        forget(k);
        return;
      }
      if (e.value === f.value) {
        // hearth holds it (a reply's autosave): nothing left to keep.
        if (f.dataset.autosave) forget(k);
        return;
      }
      var changed = (e.version || "") !== (f.dataset.keepVersion || "");
      f.value = e.value;
      // Text put back out of sight is as good as lost: the disclosures
      // around it (Earlier days, a correction, pasted text) open.
      for (var d = f.closest("details"); d; d = d.parentElement && d.parentElement.closest("details")) d.open = true;
      // hearth.js keeps a field with input through a live update.
      f.dispatchEvent(new Event("input", { bubbles: true }));
      if (changed) {
        say(f, "Restored what you typed here. This changed elsewhere since, so check it; it is saved only when you save it.");
      } else {
        say(f, "Restored what you typed here.");
        if (f.dataset.autosave) schedule(f);
      }
    });
  }

  // reopen opens, on Home, the rows that hold kept text, one level per
  // swap (a routine, then its step): each swap restores and reopens again.
  // The tap is the row head's own, which htmx answers in place.
  var opened = {};
  function reopen() {
    if (!document.querySelector("[data-row]")) return;
    var page = PREFIX + location.pathname + "|";
    keptKeys().forEach(function (k) {
      if (k.indexOf(page) !== 0) return;
      var e = read(k);
      if (!e || !Array.isArray(e.rows)) return;
      for (var i = 0; i < e.rows.length; i++) {
        var id = e.rows[i];
        var row = document.querySelector('[data-row][data-id="' + CSS.escape(id) + '"]');
        if (!row) return;
        if (row.dataset.expanded === "true") continue;
        if (opened[id]) return;
        opened[id] = true;
        var head = row.querySelector(":scope > a.row-head");
        if (head && window.htmx) head.click();
        return;
      }
    });
  }

  document.addEventListener("input", function (e) {
    var f = e.target;
    if (!f.matches || !f.matches("[data-keep]") || !f.id) return;
    keep(f);
    // Only the owner's own typing: a restore or a chosen suggestion
    // (replies.js) dispatches input too.
    if (!e.isTrusted) return;
    var n = noteOf(f);
    if (n) n.remove();
    delete f.dataset.sent;
    if (f.dataset.autosave) schedule(f);
  });

  // --- a reply's autosave ---
  var timers = new WeakMap();
  var saving = new WeakMap(); // field → a save is in flight; "again" when typed meanwhile
  var viaRow = new Map(); // row element → field, for an autosave sent by htmx

  function schedule(f) {
    clearTimeout(timers.get(f));
    timers.set(f, setTimeout(function () { autosave(f); }, AUTOSAVE_AFTER));
  }

  function valuesOf(f) {
    var form = f.form;
    var v = { body: f.value, autosave: "1", since: f.dataset.keepVersion || "0" };
    if (!form) return v;
    var checked = form.querySelector('input[name="candidate"]:checked');
    if (checked) v.candidate = checked.value;
    ["shownBody", "shownCandidate"].forEach(function (n) {
      var el = form.querySelector('input[name="' + n + '"]');
      if (el) v[n] = el.value;
    });
    return v;
  }

  function autosave(f) {
    if (!f.isConnected || f.dataset.autosaveOff || !navigator.onLine || !f.value.trim()) return;
    if (saving.get(f)) {
      saving.set(f, "again");
      return;
    }
    saving.set(f, true);
    var row = f.closest("[data-row]");
    // On Home the save goes through htmx from its row, so hearth.js counts
    // it as the page's own action: its live event does not re-read Home
    // (which would take the focus from the field).
    if (row && row.closest("#live") && window.htmx) {
      viaRow.set(row, f);
      htmx.ajax("POST", f.dataset.autosave, { source: row, swap: "none", values: valuesOf(f) }).catch(function () {});
      return;
    }
    fetch(f.dataset.autosave, {
      method: "POST", credentials: "same-origin", redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(valuesOf(f)),
    }).then(function (res) {
      saved(f, res.status, res.headers.get("Hearth-Edit-Revision"), "");
    }, function () {
      saved(f, 0, null, "");
    });
  }

  // Each htmx request's answer is read where it arrives, on its xhr: the
  // element that sent it may be swapped out (a row's form) before any
  // htmx event after the swap could reach the document. load comes before
  // loadend, where hearth.js reads the revision the answer committed.
  document.addEventListener("htmx:beforeRequest", function (e) {
    var d = e.detail;
    var xhr = d.xhr;
    if (!xhr || !d.elt) return;
    var f = viaRow.get(d.elt);
    if (f) {
      viaRow.delete(d.elt);
      var done = false;
      xhr.addEventListener("load", function () {
        done = true;
        saved(f, xhr.status, xhr.getResponseHeader("Hearth-Edit-Revision"), xhr.responseText, d.elt);
      });
      xhr.addEventListener("loadend", function () {
        if (!done) saved(f, 0, null, "");
      });
      return;
    }
    // A form htmx sent and hearth took (2xx): what it held is saved. It is
    // forgotten on readystatechange, which comes before load: htmx swaps
    // in its onload, and the swap's restore would put the text back into
    // the fresh, empty field.
    var form = d.elt.closest && d.elt.closest("form");
    if (!form || !d.requestConfig || d.requestConfig.verb === "get") return;
    var keys = keptFields(form).map(keyOf);
    if (!keys.length) return;
    xhr.addEventListener("readystatechange", function () {
      if (xhr.readyState === XMLHttpRequest.DONE && xhr.status >= 200 && xhr.status < 300) keys.forEach(forget);
    });
  });

  // A form offline.js sent through fetch and hearth took: its answer is
  // the next page read, as for a plain form.
  document.addEventListener("hearth:sent", function (e) {
    var form = e.target.closest && e.target.closest("form");
    if (form) markSent(form);
  });

  function markSent(form) {
    var names = keptFields(form).map(nameOf);
    if (!names.length) return;
    // What the page before sent is settled first (a save held until the
    // scripts ran comes before start): SENT is then this page's own.
    settleSent();
    try {
      sessionStorage.setItem(SENT, JSON.stringify(names));
    } catch (err) {}
  }

  // hearth.js settles what the page before sent, once (this page is its
  // answer): it holds the listener from the page's parse on, so an answer
  // left before this script started is settled as it is left.
  function settleSent() {
    document.dispatchEvent(new CustomEvent("hearth:settle-sent"));
  }

  // An action the offline part queued (offline.js): the queue holds what
  // its form held and says so on the row, so the device copy is done with.
  document.addEventListener("hearth:queued", function (e) {
    var form = e.target.closest && e.target.closest("form");
    if (form) keptFields(form).map(keyOf).forEach(forget);
  });

  function saved(f, status, editRevision, html, row) {
    var again = saving.get(f) === "again";
    saving.delete(f);
    if (status >= 200 && status < 300 && editRevision) {
      var prev = f.dataset.keepVersion || "0";
      f.dataset.keepVersion = editRevision;
      var k = keyOf(f);
      var e = read(k);
      if (e) write(k, { value: e.value, version: editRevision, rows: e.rows, at: e.at });
      if (editRevision !== prev) {
        // hearth.js: this page's own change is no news to it.
        document.dispatchEvent(new CustomEvent("hearth:own-revision", { detail: { revision: Number(editRevision) } }));
      }
      // The row now shows what hearth has: its version follows, so a later
      // live update for other changes keeps it without a "changed" mark.
      if (row && html && row.dataset.stale !== "true") {
        var tpl = document.createElement("template");
        tpl.innerHTML = html;
        var fresh = tpl.content.querySelector('[data-row][data-id="' + CSS.escape(row.dataset.id) + '"]');
        if (fresh && fresh.dataset.version) row.dataset.version = fresh.dataset.version;
      }
      if (again) autosave(f);
      return;
    }
    if (status === 409 && f.dataset.sent === "true") return;
    if (status === 409) {
      // A newer edit was saved elsewhere: it stays; this text stays here.
      f.dataset.autosaveOff = "true";
      say(f, "This reply was changed elsewhere, so what you type here is kept on this phone only. Save it to replace the other version.");
      return;
    }
    // Offline, unreachable, or refused: the device copy holds it; the next
    // pause in typing tries again.
    if (again) schedule(f);
  }

  // --- forgetting ---
  // An owner page kept in the back/forward cache outlives a logout in
  // this tab (Chromium 156 does not drop it for Clear-Site-Data): shown
  // again after one, it hides and reloads, which leads to the login page.
  // Capturing on the target runs before hearth.js's resume and pageshow,
  // which are stopped: no stream opens for a page that is leaving.
  var OWNER = "hearth.keep.owner";
  var ownerPage = !!document.querySelector('header.bar nav[aria-label="Main"]');
  function markOwner() {
    try {
      if (ownerPage) sessionStorage.setItem(OWNER, "1");
    } catch (err) {}
  }
  function leaveIfSignedOut(e) {
    var signedIn = true;
    try {
      signedIn = !!sessionStorage.getItem(OWNER);
    } catch (err) {}
    if (!ownerPage || signedIn) return;
    e.stopImmediatePropagation();
    document.body.hidden = true;
    location.reload();
  }
  // A restored page resumes (unfrozen) before its pageshow.
  document.addEventListener("resume", leaveIfSignedOut, true);
  window.addEventListener("pageshow", function (e) {
    if (e.persisted) leaveIfSignedOut(e);
  }, true);

  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!(form instanceof HTMLFormElement)) return;
    // The form's own save supersedes a pending autosave, and an autosave
    // still in flight that meets the form's newer edit is no news.
    keptFields(form).forEach(function (f) {
      if (!f.dataset.autosave) return;
      clearTimeout(timers.get(f));
      f.dataset.sent = "true";
    });
    if ((form.getAttribute("action") || "") === "/logout") {
      // Clear-Site-Data does this too, but not on a plain-HTTP LAN address.
      keptKeys().forEach(forget);
      try {
        sessionStorage.removeItem(OWNER);
      } catch (err) {}
      return;
    }
    // htmx (and the offline queue) take their forms themselves: prevented here.
    if (e.defaultPrevented || (form.getAttribute("method") || "").toLowerCase() !== "post") return;
    markSent(form);
  });

  // The session's storage (the owner mark, the answer to settle) and
  // the device's (kept text) each open with a wait on the browser at
  // their first read: in two tasks, neither long on a phone's CPU. A page
  // with neither a kept field nor a row never opens the device's at all.
  function start() {
    markOwner();
    settleSent();
    setTimeout(function () {
      restore(document);
      reopen();
    }, 0);
  }

  // A page restored by Back is as it was left; a send that never reached
  // hearth (the browser's error page, then Back) keeps its text.
  window.addEventListener("pageshow", function (e) {
    if (!e.persisted) return;
    try {
      sessionStorage.removeItem(SENT);
    } catch (err) {}
  });
  // Right after the swap, in the same task: nothing typed can come between.
  document.addEventListener("htmx:afterSwap", function () {
    restore(document);
  });
  // Once settled, htmx has bound the new rows' heads.
  document.addEventListener("htmx:afterSettle", reopen);
  document.addEventListener("hearth:refreshed", function () {
    restore(document);
    reopen();
  });
  // In a task after this script's own, since the first read opens the
  // origin's storage, and the two together made one long task on a
  // phone's CPU. A row reopened before htmx has read the page is still
  // opened in place: the click starts htmx (hearth.js).
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else setTimeout(start, 0);
})();
