// sw.js: offline entry (served at /sw.js; SHELL and VERSION are prepended
// by the server). It keeps the shell (stylesheet, scripts, icons) and the
// last Home the owner loaded, so Home opens without a network. It never
// answers from its copy while the network answers: pages are network first.
// It queues nothing itself: hearth.js keeps the owner's queued actions.
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

// forgetHome drops the kept Home, then hands on the answer.
function forgetHome(res) {
  return caches.delete(PAGE_CACHE).then(function () { return res; });
}

// A page's script saw a refusal the worker did not (the event stream, a
// fragment read, a queued action's replay).
self.addEventListener("message", function (e) {
  if (e.data === "signed-out") e.waitUntil(forgetHome());
});

self.addEventListener("install", function (e) {
  e.waitUntil(caches.open(SHELL_CACHE).then(function (c) { return c.addAll(SHELL); }).then(function () { return self.skipWaiting(); }));
});

self.addEventListener("activate", function (e) {
  e.waitUntil(caches.keys().then(function (keys) {
    return Promise.all(keys.filter(function (k) { return k.indexOf("hearth-shell-") === 0 && k !== SHELL_CACHE; }).map(function (k) { return caches.delete(k); }));
  }).then(function () { return self.clients.claim(); }));
});

// offlinePage answers a page that was never kept: it says so and links Home.
function offlinePage() {
  var css = SHELL.filter(function (u) { return u.indexOf("/static/hearth.css") === 0; })[0] || "";
  var body = '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    '<title>Offline · hearth</title><link rel="stylesheet" href="' + css + '"></head><body><main>' +
    '<h1>You are offline</h1><p>This page is not kept on the phone. Home is, with what you can do there offline.</p>' +
    '<p><a href="/">Open Home</a></p></main></body></html>';
  return new Response(body, { status: 503, headers: { "Content-Type": "text/html; charset=utf-8", "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'self'; script-src 'self'; style-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'" } });
}

function home(req) {
  return fetch(req).then(function (res) {
    if (signedOut(res)) return forgetHome(res);
    // Only Home itself: not a redirect to the login page, not an error.
    if (res.ok && !res.redirected && res.type === "basic") {
      var copy = res.clone();
      caches.open(PAGE_CACHE).then(function (c) { return c.put("/", copy); });
    }
    return res;
  }, function () {
    return caches.open(PAGE_CACHE).then(function (c) { return c.match("/", { ignoreVary: true }); }).then(function (hit) { return hit || offlinePage(); });
  });
}

self.addEventListener("fetch", function (e) {
  var req = e.request;
  var url = new URL(req.url);
  if (url.origin !== self.location.origin) return;
  if (req.method === "POST" && url.pathname === "/logout") {
    e.waitUntil(caches.delete(PAGE_CACHE));
    return;
  }
  if (req.method !== "GET") return;
  if (url.pathname.indexOf("/static/") === 0) {
    // Content-hashed URLs: a kept copy is the same bytes.
    e.respondWith(caches.match(req, { ignoreVary: true }).then(function (hit) { return hit || fetch(req); }));
    return;
  }
  if (req.mode !== "navigate") return;
  if (url.pathname === "/") {
    e.respondWith(home(req));
    return;
  }
  e.respondWith(fetch(req).then(function (res) { return signedOut(res) ? forgetHome(res) : res; }, offlinePage));
});
