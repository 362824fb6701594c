// place.js: a page without a live part (Messages, People, Routines, Weight,
// the other tabs' pages) is reloaded by hearth.js on a change made
// elsewhere; this keeps what the owner opened and where they were across
// that reload: every disclosure's open state, by a key that outlives the
// reload, and the scroll position. They are kept in the page's own history
// entry (history.state, which a reload keeps) and read back once by the
// reloaded page: no storage is opened on a page's load. A reload or
// navigation of the owner's own is left to the browser. The browser's own
// scroll restoration is off for hearth's reload: it restored into a page
// whose disclosures had shut, so the page jumped. Home, which swaps its
// live part in place and never reloads for a change, does not load this.
(function () {
  "use strict";

  var KEY = "hearthPlace";
  var MAX_AGE = 60000;

  // disclosures pairs every <details> in main with its key: its own id, or
  // the ids and test ids of what holds it (a routine's card, a trial), its
  // own test id, and its place among the details with the same key.
  function disclosures() {
    var count = {};
    return Array.prototype.map.call(document.querySelectorAll("main details"), function (d) {
      var parts = [];
      for (var el = d; el && el.localName !== "main"; el = el.parentElement) {
        if (el.id) {
          parts.unshift("#" + el.id);
          break;
        }
        var ds = el.dataset;
        if (ds.testid || ds.id || ds.trial) parts.unshift((ds.testid || el.localName) + (ds.id ? "=" + ds.id : "") + (ds.trial ? "~" + ds.trial : ""));
      }
      var k = parts.join(">") || "details";
      count[k] = (count[k] || 0) + 1;
      return { el: d, key: k + "/" + count[k] };
    });
  }

  // The entry's state without the place (htmx keeps its own there).
  function stateWith(place) {
    var s = {};
    var cur = history.state;
    if (cur && typeof cur === "object") for (var k in cur) if (k !== KEY) s[k] = cur[k];
    if (place) s[KEY] = place;
    return Object.keys(s).length ? s : null;
  }

  // hearth.js announces its reload just before it makes it.
  document.addEventListener("hearth:reloading", function () {
    try {
      var open = {};
      disclosures().forEach(function (x) { open[x.key] = x.el.open; });
      history.replaceState(stateWith({ open: open, x: window.scrollX, y: window.scrollY, at: Date.now() }), "");
      history.scrollRestoration = "manual";
    } catch (err) {}
  });

  var saved = history.state && history.state[KEY];
  if (!saved) return;
  try {
    history.replaceState(stateWith(null), "");
  } catch (err) {}
  if (history.scrollRestoration === "manual") history.scrollRestoration = "auto";
  var nav = performance.getEntriesByType && performance.getEntriesByType("navigation")[0];
  if (!nav || nav.type !== "reload" || !(Date.now() - saved.at < MAX_AGE)) return;
  disclosures().forEach(function (x) {
    if (Object.prototype.hasOwnProperty.call(saved.open, x.key)) x.el.open = saved.open[x.key];
  });
  window.scrollTo(saved.x, saved.y);
})();
