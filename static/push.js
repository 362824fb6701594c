// push.js: "Notifications on this phone" on More. Subscribes this browser's
// service worker to Web Push with the server's VAPID key and hands the
// subscription to hearth, or takes it back. The service worker (sw.js)
// shows what arrives and opens the item on a tap.
(function () {
  "use strict";
  var box = document.getElementById("push-controls");
  if (!box) return;
  var on = document.getElementById("push-subscribe");
  var off = document.getElementById("push-unsubscribe");
  var state = document.getElementById("push-state");
  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    state.textContent = "This browser cannot show notifications. On an iPhone, add hearth to the Home Screen first.";
    return;
  }

  // The key as the bytes pushManager.subscribe wants (base64url → Uint8Array).
  function keyBytes(b64) {
    var s = (b64 + "===".slice((b64.length + 3) % 4)).replace(/-/g, "+").replace(/_/g, "/");
    var raw = atob(s);
    var out = new Uint8Array(raw.length);
    for (var i = 0; i < raw.length; i++) out[i] = raw.charCodeAt(i);
    return out;
  }

  function post(path, sub) {
    return fetch(path, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(sub)
    }).then(function (res) {
      if (!res.ok) throw new Error("hearth answered " + res.status);
      return res;
    });
  }

  function show(sub) {
    on.hidden = !!sub;
    off.hidden = !sub;
  }

  function fail(words) {
    return function (err) {
      state.textContent = words + (err && err.message ? " (" + err.message + ")" : "");
    };
  }

  navigator.serviceWorker.ready.then(function (reg) {
    reg.pushManager.getSubscription().then(show);
    on.addEventListener("click", function () {
      Notification.requestPermission().then(function (perm) {
        if (perm !== "granted") throw new Error("notifications are not allowed for hearth");
        return reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(box.dataset.vapidKey) });
      }).then(function (sub) {
        return post("/api/push-subscriptions", sub.toJSON()).then(function () {
          state.textContent = "This phone is notified.";
          show(sub);
        });
      }).catch(fail("Not subscribed"));
    });
    off.addEventListener("click", function () {
      reg.pushManager.getSubscription().then(function (sub) {
        if (!sub) return show(null);
        return post("/api/push-subscriptions/remove", { endpoint: sub.endpoint }).then(function () {
          return sub.unsubscribe();
        }).then(function () {
          state.textContent = "This phone is no longer notified.";
          show(null);
        });
      }).catch(fail("Still subscribed"));
    });
  });
})();
