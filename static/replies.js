// replies.js: a reply editor's suggestions. Choosing a
// suggestion puts its text in the editor; when the owner has edited the
// text, hearth asks before replacing it and, told to keep it, goes back to
// the suggestion chosen before. Without JavaScript the server resolves the
// choice itself (models.ChosenWording): the review shows the chosen
// suggestion unless the text was edited.
(function () {
  "use strict";

  function parts(el) {
    var form = el && el.closest && el.closest("[data-reply-editor]");
    if (!form) return null;
    return {
      form: form,
      body: form.querySelector("[data-reply-body]"),
      ask: form.querySelector("[data-replace-ask]"),
      shown: form.querySelector('input[name="shownCandidate"]'),
    };
  }

  function lf(s) {
    return String(s || "").replace(/\r\n/g, "\n");
  }

  // The owner edited the text when it is not what a suggestion put there.
  function edited(p) {
    return lf(p.body.value) !== lf(p.body.dataset.filled);
  }

  // accepted is the suggestion whose text the editor holds (or held last).
  function accepted(p) {
    return p.form.dataset.accepted || (p.shown ? p.shown.value : "");
  }

  function fill(p, radio) {
    p.body.value = radio.dataset.candidateBody;
    p.body.dataset.filled = radio.dataset.candidateBody;
    p.form.dataset.accepted = radio.value;
    // Home keeps a row the owner is working in when a live update arrives.
    p.body.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function hideAsk(p) {
    if (p.ask) p.ask.hidden = true;
    delete p.form.dataset.pending;
  }

  document.addEventListener("change", function (e) {
    var radio = e.target;
    if (!radio.matches || !radio.matches("input[type=radio][data-candidate-body]")) return;
    var p = parts(radio);
    if (!p || !p.body) return;
    if (!edited(p)) {
      fill(p, radio);
      hideAsk(p);
      return;
    }
    if (!p.ask) return; // no way to ask: the edit stays
    p.form.dataset.pending = radio.value;
    var style = p.ask.querySelector("[data-replace-style]");
    if (style) style.textContent = radio.dataset.candidateStyle || radio.value;
    p.ask.hidden = false;
  });

  document.addEventListener("click", function (e) {
    var yes = e.target.closest && e.target.closest("[data-replace-yes]");
    var no = e.target.closest && e.target.closest("[data-replace-no]");
    if (!yes && !no) return;
    var p = parts(yes || no);
    if (!p) return;
    var pending = p.form.dataset.pending;
    var radio = pending && p.form.querySelector('input[type=radio][data-candidate-body][value="' + CSS.escape(pending) + '"]');
    if (yes && radio) {
      fill(p, radio);
    } else {
      // Keep the text, and the suggestion it was written from.
      var back = p.form.querySelector('input[type=radio][data-candidate-body][value="' + CSS.escape(accepted(p)) + '"]');
      if (back) back.checked = true;
    }
    hideAsk(p);
    p.body.focus();
  });

  // "Copy the text" of a hand-off Beeper refused: the editor's text to the
  // clipboard, said in the status beside the button.
  document.addEventListener("click", function (e) {
    var btn = e.target.closest && e.target.closest("[data-copy]");
    if (!btn) return;
    var body = document.getElementById(btn.dataset.copy);
    var said = btn.parentNode.querySelector("[data-copied]");
    if (!body || !navigator.clipboard) {
      if (said) said.textContent = "Select the text above and copy it.";
      return;
    }
    navigator.clipboard.writeText(body.value).then(
      function () { if (said) said.textContent = "Copied."; },
      function () { if (said) said.textContent = "Could not copy: select the text above and copy it."; }
    );
  });
})();
