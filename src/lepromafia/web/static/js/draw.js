// The drawn deal (pages/draw.html): the party's value is made and kept here, in the browser;
// the server receives only its SHA-256 until the reveal (docs/verification.md).
(function () {
  "use strict";

  function hex(bytes) {
    return Array.prototype.map.call(new Uint8Array(bytes), function (b) {
      return ("0" + b.toString(16)).slice(-2);
    }).join("");
  }
  function sha256(text) {
    return crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)).then(hex);
  }
  function stored(key) {
    try { return window.localStorage.getItem(key); } catch (e) { return null; }
  }
  function keep(key, value) {
    try { window.localStorage.setItem(key, value); } catch (e) { /* private mode: shown below */ }
  }

  var commit = document.querySelector("form[data-draw-commit]");
  if (commit && window.crypto && crypto.subtle) {
    commit.addEventListener("submit", function (event) {
      var own = commit.querySelector("[name=digest]");
      if (own.value.trim()) { return; }  // the party brought his own value's hash
      event.preventDefault();
      var value = stored(commit.getAttribute("data-store"));
      if (!value) {
        var bytes = new Uint8Array(32);
        crypto.getRandomValues(bytes);
        value = hex(bytes);
        keep(commit.getAttribute("data-store"), value);
      }
      var shown = commit.querySelector("[data-draw-value]");
      shown.querySelector("code").textContent = value;
      shown.hidden = false;
      sha256(value).then(function (digest) {
        own.value = digest;
        commit.submit();
      });
    });
  }

  var kept = document.querySelector("[data-draw-kept]");
  if (kept && stored(kept.getAttribute("data-store"))) {
    kept.querySelector("code").textContent = stored(kept.getAttribute("data-store"));
    kept.hidden = false;
  }

  var reveal = document.querySelector("form[data-draw-reveal]");
  if (reveal) {
    var field = reveal.querySelector("[name=value]");
    var value = stored(reveal.getAttribute("data-store"));
    if (value && !field.value) { field.value = value; }
  }
})();
