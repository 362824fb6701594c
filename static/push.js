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
      if (!res.ok) {
        var err = new Error("hearth answered " + res.status);
        err.hearth = true;
        throw err;
      }
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

  // A push service that does not answer leaves subscribe() pending for
  // good (a browser without one, such as a headless one): give up in words.
  var PUSH_SERVICE_WAIT = 15000;

  function within(ms, promise, words) {
    return new Promise(function (resolve, reject) {
      var timer = setTimeout(function () { reject(new Error(words)); }, ms);
      promise.then(function (v) { clearTimeout(timer); resolve(v); }, function (err) { clearTimeout(timer); reject(err); });
    });
  }

  // notSubscribed says why subscribing failed, in words the owner can act on.
  function notSubscribed(err) {
    var why;
    if (err && err.name === "NotAllowedError") {
      why = "notifications are blocked for hearth in this browser's settings: allow them there, then try again.";
    } else if (err && err.blocked) {
      why = err.message;
    } else if (err && err.hearth) {
      why = "hearth did not keep this phone's subscription (" + err.message + "); try again.";
    } else {
      why = "this browser's push service could not be reached" + (err && err.message ? " (" + err.message + ")" : "") +
        ". Try again later; on an iPhone, from hearth added to the Home Screen.";
    }
    state.textContent = "Not subscribed: " + why;
  }

  navigator.serviceWorker.ready.then(function (reg) {
    reg.pushManager.getSubscription().then(show);
    on.addEventListener("click", function () {
      state.textContent = "Subscribing…";
      Notification.requestPermission().then(function (perm) {
        if (perm !== "granted") {
          var err = new Error("notifications are blocked for hearth in this browser's settings: allow them there, then try again.");
          err.blocked = true;
          throw err;
        }
        return within(PUSH_SERVICE_WAIT, reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(box.dataset.vapidKey) }),
          "it did not answer within " + PUSH_SERVICE_WAIT / 1000 + " s");
      }).then(function (sub) {
        return post("/api/push-subscriptions", sub.toJSON()).then(function () {
          state.textContent = "This phone is notified.";
          show(sub);
        });
      }).catch(notSubscribed);
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
