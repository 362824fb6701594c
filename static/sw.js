// sw.js: offline entry (served at /sw.js; SHELL and VERSION are prepended
// by the server). It keeps the shell (stylesheet, scripts, icons), the
// last Home the owner loaded and, with it, the expanded fragment of each
// of its rows whose actions can wait (a weight, a tick, a skip, a move to
// later; for a routine, its steps' too), so Home opens without hearth
// (offline, or hearth unreachable) and those rows open there with their
// controls. It never answers from its copy while hearth answers: pages
// and fragments are network first. It queues nothing itself: offline.js
// keeps the owner's queued actions.
//
// When Home is kept: at install (beside it, not holding it back) when
// this device already has a session (the worker usually installs on the
// login page, before one exists: then nothing is kept), on every visit of
// Home through the worker, and when a Home page asks (its first visit,
// which the worker did not answer, and soon after the owner changed it
// there). So Home is on the phone from the first signed-in visit on.
"use strict";

var SHELL_CACHE = "hearth-shell-" + VERSION;
// Home as last loaded by this session; dropped on logout (here, and by the
// server's Clear-Site-Data), and as soon as any answer says the session is
// gone (a logout-all for a lost phone): offline the worker cannot know, but
// the first answer online tells it.
var PAGE_CACHE = "hearth-home";

// signedOut says an answer refused this device's session: a 401, or a page
// sent to log in.
function signedOut(res) {
  return res.status === 401 || (res.redirected && new URL(res.url).pathname === "/login");
}

// forgotten counts the times the kept Home was dropped: a keep that began
// before (its Home read under the session now gone) keeps nothing.
var forgotten = 0;

// forgetHome drops the kept Home, then hands on the answer.
function forgetHome(res) {
  forgotten++;
  return caches.delete(PAGE_CACHE).then(function () { return res; });
}

// A page's script saw a refusal the worker did not (the event stream, a
// fragment read, a queued action's replay).
self.addEventListener("message", function (e) {
  if (e.data === "signed-out") e.waitUntil(forgetHome());
  if (e.data === "keep-home") e.waitUntil(keepHome());
});

// keepHome reads Home and keeps it, or forgets the copy when the session is
// gone. It never fails: without hearth the copy stays as it was. One read
// at a time: asked again meanwhile (a first visit's page asks while the
// install reads), it reads once more after, since what changed Home may
// have come after that read began.
var keeping = null;
var keepAgain = false;
function keepHome() {
  if (keeping) {
    keepAgain = true;
    return keeping;
  }
  keeping = readHome().then(function () {
    keeping = null;
    if (keepAgain) {
      keepAgain = false;
      return keepHome();
    }
  });
  return keeping;
}

function readHome() {
  return fetch("/", { credentials: "same-origin", redirect: "manual", cache: "no-store" }).then(function (res) {
    if (res.type === "opaqueredirect" || res.status === 401) return forgetHome();
    if (res.ok && res.type === "basic") return keep(res);
  }).catch(function () {});
}

// A collapsed row of a kind and state whose actions can wait, and the URL
// its head reads to expand. A reply's send cannot wait, nor a settled
// row's Undo or feedback; a saved weight still takes a correction.
var ROW = /<li id="row-[^"]*"[^>]*\bdata-kind="([^"]*)" data-state="([^"]*)" data-expanded="false"[^>]*>[\s\S]*?<a class="row-head"[^>]*\bhx-get="([^"]*)"/g;

function rowURLs(html) {
  var out = [];
  for (var m of html.matchAll(ROW)) {
    var kind = m[1], state = m[2];
    if (kind === "reply") continue;
    if (kind !== "measurement" && state !== "available" && state !== "deferred" && state !== "") continue;
    out.push(new URL(m[3].replace(/&amp;/g, "&"), self.location.origin).href);
  }
  return out;
}

function readRow(url) {
  return fetch(url, { credentials: "same-origin", redirect: "manual", cache: "no-store", headers: { "HX-Request": "true" } }).then(function (res) {
    return res.ok && res.type === "basic" ? res : null;
  }, function () { return null; });
}

// keep keeps Home's answer and its rows' expanded fragments (read here,
// two levels: a routine, then its steps), Home last, so a kept Home has its
// rows with it; rows no longer on Home go.
async function keep(res) {
  var began = forgotten;
  var cache = await caches.open(PAGE_CACHE);
  var kept = new Set([new URL("/", self.location.origin).href]);
  var todo = rowURLs(await res.clone().text());
  for (var depth = 0; depth < 2 && todo.length; depth++) {
    todo = todo.filter(function (u) { return !kept.has(u); });
    todo.forEach(function (u) { kept.add(u); });
    var answers = await Promise.all(todo.map(readRow));
    var next = [];
    for (var i = 0; i < todo.length; i++) {
      if (!answers[i]) continue;
      next = next.concat(rowURLs(await answers[i].clone().text()));
      await cache.put(todo[i], answers[i]);
    }
    todo = next;
  }
  if (began !== forgotten) return;
  await cache.put("/", res);
  if (began !== forgotten) {
    await caches.delete(PAGE_CACHE);
    return;
  }
  var keys = await cache.keys();
  await Promise.all(keys.filter(function (k) { return !kept.has(k.url); }).map(function (k) { return cache.delete(k); }));
}

// Home is kept beside the install, not in it: a hearth that does not
// answer must not hold the shell (and so all offline use) back.
self.addEventListener("install", function (e) {
  keepHome();
  e.waitUntil(caches.open(SHELL_CACHE).then(function (c) { return c.addAll(SHELL); }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (e) {
  e.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k.indexOf("hearth-shell-") === 0 && k !== SHELL_CACHE; }).map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

// gatewayError says an answer is a proxy's, standing in for a hearth that
// does not answer (tailscale serve's 502): every answer of hearth's own
// carries its Content-Security-Policy.
function gatewayError(res) {
  return (res.status === 502 || res.status === 503 || res.status === 504) && !res.headers.get("Content-Security-Policy");
}

// offlinePage answers a page that was never kept: it says so and links Home.
function offlinePage() {
  var css = SHELL.filter(function (u) { return u.indexOf("/static/hearth.css") === 0; })[0] || "";
  var body = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Offline · hearth</title><link rel="stylesheet" href="' + css + '"></head><body><main>' +
    '<h1>hearth cannot be reached</h1><p>You are offline, or hearth is not answering. This page is not kept on the phone. Home is, with what you can do there until hearth answers again.</p>' +
    '<p><a href="/">Open Home</a></p></main></body></html>';
  return new Response(body, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'" } });
}

// keptHome answers Home from the copy, marked (data-offline-copy on its
// body) so the page says it is not hearth's answer and looks for hearth.
function keptHome() {
  return caches.open(PAGE_CACHE).then(function (c) { return c.match("/", { ignoreVary: true }); }).then(function (hit) {
    if (!hit) return offlinePage();
    return hit.text().then(function (html) {
      var headers = new Headers(hit.headers);
      // The body is read out: its length and encoding are no longer the wire's.
      headers.delete("Content-Encoding");
      headers.delete("Content-Length");
      return new Response(html.replace("<body", "<body data-offline-copy=\"true\""), { status: 200, headers: headers });
    });
  });
}

function home(e) {
  return fetch(e.request).then(function (res) {
    if (signedOut(res)) return forgetHome(res);
    if (gatewayError(res)) return keptHome();
    // Only Home itself: not a redirect to the login page, not an error.
    if (res.ok && !res.redirected && res.type === "basic") e.waitUntil(keep(res.clone()).catch(function () {}));
    return res;
  }, keptHome);
}

// keptRow answers a row's fragment from the copy kept with Home, marked
// (Hearth-Offline-Copy) so the page knows hearth did not answer; failed is
// what hearth's side gave (a proxy's error), else a network error.
function keptRow(req, failed) {
  return caches.open(PAGE_CACHE).then(function (c) { return c.match(req, { ignoreVary: true }); }).then(function (hit) {
    if (!hit) return failed || Response.error();
    var headers = new Headers(hit.headers);
    headers.delete("Content-Encoding");
    headers.delete("Content-Length");
    headers.set("Hearth-Offline-Copy", "true");
    return new Response(hit.body, { status: hit.status, headers: headers });
  });
}

self.addEventListener("fetch", function (e) {
  var req = e.request;
  var url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.method === "POST" && url.pathname === "/logout") {
    e.waitUntil(forgetHome());
    return;
  }
  if (req.method !== "GET") return;
  if (url.pathname.indexOf("/static/") === 0) {
    // Content-hashed URLs: a kept copy is the same bytes.
    e.respondWith(caches.match(req, { ignoreVary: true }).then(function (hit) { return hit || fetch(req); }));
    return;
  }
  if (req.headers.get("HX-Request") && /^\/activities\/[^/]+$/.test(url.pathname)) {
    e.respondWith(fetch(req).then(function (res) {
      if (signedOut(res)) return forgetHome(res);
      return gatewayError(res) ? keptRow(req, res) : res;
    }, function () { return keptRow(req); }));
    return;
  }
  if (req.mode !== "navigate") return;
  if (url.pathname === "/") {
    e.respondWith(home(e));
    return;
  }
  e.respondWith(fetch(req).then(function (res) {
    if (signedOut(res)) return forgetHome(res);
    return gatewayError(res) ? offlinePage() : res;
  }, offlinePage));
});

// Web Push (static/push.js subscribes): show what hearth sent; a tap opens
// the item in place, in an open hearth window when there is one.
self.addEventListener("push", function (e) {
  var data = {};
  try { data = e.data ? e.data.json() : {}; } catch (err) { data = {}; }
  e.waitUntil(data.close ? closeShown(data) : self.registration.showNotification(data.title || "hearth", {
    body: data.body || "",
    tag: data.tag || undefined,
    icon: "/static/icon-192.png",
    data: { url: data.url || "/" }
  }));
});

// closeShown closes the notification of an item decided elsewhere. Chrome
// lets a push show nothing only while another of the site's notifications
// is showing or one of its windows is in view (userVisibleOnly); else it
// shows its own "updated in the background". So then the item's
// notification is replaced by a silent "done elsewhere" under its tag.
function closeShown(data) {
  if (!data.tag) return Promise.resolve();
  return self.registration.getNotifications({ tag: data.tag }).then(function (ns) {
    ns.forEach(function (n) { n.close(); });
    return Promise.all([self.registration.getNotifications(), self.clients.matchAll({ type: "window", includeUncontrolled: true })]);
  }).then(function (r) {
    var others = r[0].filter(function (n) { return n.tag !== data.tag; });
    var inView = r[1].some(function (w) { return w.visibilityState === "visible"; });
    if (others.length || inView) return;
    return self.registration.showNotification(data.title || "hearth", {
      body: data.body || "",
      tag: data.tag,
      silent: true,
      icon: "/static/icon-192.png",
      data: { url: data.url || "/" }
    });
  });
}

self.addEventListener("notificationclick", function (e) {
  e.notification.close();
  var target = new URL((e.notification.data && e.notification.data.url) || "/", self.location.origin);
  if (target.origin !== self.location.origin) target = new URL("/", self.location.origin);
  e.waitUntil(self.clients.matchAll({ type: "window", includeUncontrolled: true }).then(function (wins) {
    for (var i = 0; i < wins.length; i++) {
      if ("navigate" in wins[i]) return wins[i].navigate(target.href).then(function (w) { return w && w.focus(); });
    }
    return self.clients.openWindow(target.href);
  }));
});
