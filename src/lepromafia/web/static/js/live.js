/* Lepromafia live pages: one WebSocket per browser tab, countdowns, partial refreshes.
 *
 * The server pushes the viewer's gapless stream (/ws: subscribe {game, since_seq}).
 * Every region marked data-live-src is re-fetched (debounced) when an event arrives;
 * the page stays fully usable without JavaScript. A reconnect resumes from the last
 * seq seen; a "resync" refreshes every region. No third-party code besides htmx.
 */
(function () {
  "use strict";
  var body = document.body;
  var game = body.getAttribute("data-live-game");
  var status = document.getElementById("live-status");
  var lang = document.documentElement.lang || "ru";
  // the status texts come from the catalog, rendered into the element by base.html
  function T(state) { return status ? status.getAttribute("data-t-" + state) || "" : ""; }

  // --- countdowns ------------------------------------------------------------------
  function pad(n) { return n < 10 ? "0" + n : "" + n; }
  function tick() {
    var now = performance.now();
    document.querySelectorAll("time.countdown[data-left]").forEach(function (el) {
      if (!el.hasAttribute("data-t0")) { el.setAttribute("data-t0", String(now)); }
      var scale = parseFloat(el.getAttribute("data-scale") || "1") || 1;
      var since = (now - parseFloat(el.getAttribute("data-t0"))) / 1000;
      var left = Math.max(0, parseFloat(el.getAttribute("data-left")) - since * scale);
      var h = Math.floor(left / 3600), m = Math.floor((left % 3600) / 60), s = Math.floor(left % 60);
      el.textContent = h ? h + ":" + pad(m) + ":" + pad(s) : m + ":" + pad(s);
      el.classList.toggle("soon", left < 600);
    });
  }
  tick();
  setInterval(tick, 1000);

  // --- a refused form: the message beside its field (or atop its form), the input kept ----
  function refill(form, kept) {
    Object.keys(kept).forEach(function (name) {
      var value = kept[name];
      var values = Array.isArray(value) ? value : [value];
      Array.prototype.forEach.call(form.querySelectorAll('[name="' + name + '"]'), function (el) {
        if (el.type === "hidden" || el.type === "password" || el.type === "file") { return; }
        if (el.type === "checkbox" || el.type === "radio") { el.checked = values.indexOf(el.value) >= 0; }
        else { el.value = values[0]; }
      });
    });
  }
  function placeError() {
    var box = document.querySelector("[data-testid=error]:not([data-placed])");
    if (!box) { return; }
    box.setAttribute("data-placed", "");
    var action = box.getAttribute("data-action"), name = box.getAttribute("data-field");
    var form = action ? document.querySelector('form[action="' + action + '"]') : null;
    var input = name ? (form || document).querySelector('[name="' + name + '"]:not([type=hidden])') : null;
    form = form || (input && input.form);
    if (!form) { return; }
    var kept = document.getElementById("kept-form");
    if (kept) { refill(form, JSON.parse(kept.textContent || "{}")); }
    var note = document.createElement("p");
    note.className = "field-error";
    note.id = "field-error";
    note.setAttribute("data-testid", "field-error");
    note.textContent = (box.querySelector(".message") || box).textContent.trim();
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", "field-error");
      input.insertAdjacentElement("afterend", note);
      input.focus({ preventScroll: true });
    } else {
      form.insertBefore(note, form.firstChild);
    }
    note.scrollIntoView({ block: "center" });
  }
  placeError();
  document.body.addEventListener("htmx:afterSwap", placeError);  // the composer's own refusals

  if (!game || !("WebSocket" in window)) { return; }

  // --- live regions ----------------------------------------------------------------
  var pending = false;
  function refresh() {
    if (pending) { return; }
    pending = true;
    setTimeout(function () {
      pending = false;
      document.querySelectorAll("[data-live-src]").forEach(function (el) {
        var url = el.getAttribute("data-live-src");
        var keep = el.getAttribute("data-live-keep");
        if (keep) {
          var field = el.querySelector("textarea[name=text]");
          if (field && document.activeElement === field && field.value) { return; }  // do not eat a draft
        }
        fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true" } })
          .then(function (r) { return r.ok ? r.text() : null; })
          .then(function (html) {
            if (html === null) { return; }
            var draft = null, field = el.querySelector("textarea[name=text]");
            if (field) { draft = field.value; }
            el.innerHTML = html;
            if (draft) { var again = el.querySelector("textarea[name=text]"); if (again) { again.value = draft; } }
            if (window.htmx) { window.htmx.process(el); }
            var thread = el.querySelector(".thread");
            if (thread) { thread.scrollTop = thread.scrollHeight; }
            tick();
          })
          .catch(function () { /* the next event retries */ });
      });
    }, 150);
  }
  document.querySelectorAll(".thread").forEach(function (t) { t.scrollTop = t.scrollHeight; });
  document.body.addEventListener("htmx:afterSwap", function () {
    document.querySelectorAll(".thread").forEach(function (t) { t.scrollTop = t.scrollHeight; });
    tick();
  });

  // --- the socket --------------------------------------------------------------------
  var key = "lp-seq:" + game;
  var last = parseInt(body.getAttribute("data-live-seq") || "0", 10) || 0;
  var delay = 500;
  var ws = null;

  function show(state) {
    if (!status) { return; }
    status.setAttribute("data-state", state);
    status.textContent = T(state);
  }

  function connect() {
    show("connecting");
    var proto = location.protocol === "https:" ? "wss:" : "ws:";
    ws = new WebSocket(proto + "//" + location.host + "/ws?lang=" + lang);
    ws.onopen = function () {
      delay = 500;
      ws.send(JSON.stringify({ type: "subscribe", game: game, since_seq: last }));
    };
    ws.onmessage = function (msg) {
      var data;
      try { data = JSON.parse(msg.data); } catch (e) { return; }
      if (data.type === "subscribed") {
        show("open");
        if (data.version > last) { refresh(); }
      } else if (data.type === "event" || data.type === "marker") {
        if (data.seq <= last) { return; }
        last = data.seq;
        body.setAttribute("data-live-seq", String(last));
        try { sessionStorage.setItem(key, String(last)); } catch (e) { /* private mode */ }
        if (data.type === "event") { refresh(); }
      } else if (data.type === "resync") {
        last = data.reason === "ahead_of_server" ? 0 : data.since_seq;
        refresh();
        ws.send(JSON.stringify({ type: "subscribe", game: game, since_seq: last }));
      }
    };
    ws.onclose = function () {
      show("closed");
      setTimeout(connect, delay);
      delay = Math.min(delay * 2, 15000);
    };
  }
  window.lepromafiaLive = {
    lastSeq: function () { return last; },
    drop: function () { if (ws) { ws.close(); } }
  };
  connect();
})();
