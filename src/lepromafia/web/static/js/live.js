/* Lepromafia live pages: one WebSocket per browser tab, countdowns, partial refreshes.
 *
 * The server pushes the viewer's own stream (/ws: subscribe {game, since_seq}): only the
 * events he may see, numbered 1, 2, 3, … by his position in it (never the game's global
 * sequence; nothing at all for the events he may not see). A region marked data-live-src
 * declares what changes it: data-live-kinds (event types), and optionally data-live-inbox
 * and data-live-city (only events about that inbox or city). An arriving event re-fetches
 * (debounced) only the regions it matches, and only if the region was rendered before
 * that position (data-live-rendered, from the X-Live-Seq header of the response that drew
 * it: the htmx answer to one's own vote is not fetched again on its WebSocket echo). A
 * reconnect resumes from the last position seen; a jump in the numbering (a gap) resumes
 * from the last one too; a "resync" refreshes every region. The menu's unread badge is such a
 * region; its count also leads the tab title («(3) …»). The page stays fully usable without JavaScript. No third-party code
 * besides htmx.
 */
var LepromafiaLive = (function () {
  "use strict";
  function words(text) { return (text || "").split(/\s+/).filter(Boolean); }

  // Does an event (the payload of an "event" frame, at seq) change this region?
  // region: {kinds, inbox, city, rendered} as declared by its data-live-* attributes.
  function matches(region, event, seq) {
    if (region.rendered && seq <= parseInt(region.rendered, 10)) { return false; }  // drawn with it
    if (!region.kinds) { return true; }  // a region that declares nothing: every event
    if (words(region.kinds).indexOf(event.type) < 0) { return false; }
    if (region.inbox && event.inbox !== undefined && event.inbox !== region.inbox) { return false; }
    if (region.city && event.city !== undefined && event.city !== region.city) { return false; }
    return true;
  }
  return { matches: matches };
})();
if (typeof module !== "undefined" && module.exports) { module.exports = LepromafiaLive; }

(function () {
  "use strict";
  if (typeof document === "undefined") { return; }
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
    var kept = box.getAttribute("data-kept");
    if (kept) { refill(form, JSON.parse(kept)); }
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

  // --- the unread count in the tab title: «(3) …», from the menu's live badge ----------
  function syncTitle() {
    var el = document.querySelector("[data-unread-total]");
    if (!el) { return; }
    var n = parseInt(el.getAttribute("data-unread-total"), 10) || 0;
    var bare = document.title.replace(/^\(\d+\)\s*/, "");
    document.title = n ? "(" + n + ") " + bare : bare;
  }
  syncTitle();

  if (!game || !("WebSocket" in window)) { return; }

  // --- live regions ----------------------------------------------------------------
  function spec(el) {
    return { kinds: el.getAttribute("data-live-kinds"), inbox: el.getAttribute("data-live-inbox"),
             city: el.getAttribute("data-live-city"), rendered: el.getAttribute("data-live-rendered") };
  }
  function rendered(el, response) {
    var seq = response && response.headers ? response.headers.get("X-Live-Seq") : null;
    if (seq) { el.setAttribute("data-live-rendered", seq); }
  }
  var pending = false;
  var due = [];
  // Re-fetch the regions an event changes (all regions without an event: a resync).
  function refresh(event, seq) {
    document.querySelectorAll("[data-live-src]").forEach(function (el) {
      if (event && !LepromafiaLive.matches(spec(el), event, seq)) { return; }
      if (due.indexOf(el) < 0) { due.push(el); }
    });
    if (pending || !due.length) { return; }
    pending = true;
    setTimeout(function () {
      pending = false;
      var regions = due;
      due = [];
      regions.forEach(function (el) {
        var url = el.getAttribute("data-live-src");
        var active = document.activeElement;
        if (active && active.tagName === "TEXTAREA" && active.value && el.contains(active)) { return; }  // do not eat a draft
        fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true" } })
          .then(function (r) { if (!r.ok) { return null; } rendered(el, r); return r.text(); })
          .then(function (html) {
            if (html === null) { return; }
            var drafts = [];  // every composer's draft in the region, by its id (comments: one per post)
            el.querySelectorAll("textarea[name=text]").forEach(function (f, i) { drafts.push([f.id, i, f.value]); });
            el.innerHTML = html;
            var fields = el.querySelectorAll("textarea[name=text]");
            drafts.forEach(function (d) {
              if (!d[2]) { return; }
              var again = d[0] ? document.getElementById(d[0]) : fields[d[1]];
              if (again && el.contains(again)) { again.value = d[2]; }
            });
            if (window.htmx) { window.htmx.process(el); }
            syncTitle();
            var thread = el.querySelector(".thread");
            if (thread) { thread.scrollTop = thread.scrollHeight; }
            tick();
          })
          .catch(function () { /* the next event retries */ });
      });
    }, 150);
  }
  document.querySelectorAll(".thread").forEach(function (t) { t.scrollTop = t.scrollHeight; });
  document.body.addEventListener("htmx:afterRequest", function (e) {
    var target = e.detail && e.detail.target, xhr = e.detail && e.detail.xhr;
    var seq = xhr ? xhr.getResponseHeader("X-Live-Seq") : null;
    if (target && seq && target.hasAttribute("data-live-src")) { target.setAttribute("data-live-rendered", seq); }
  });
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
    ws = new WebSocket(proto + "//" + location.host + "/ws?unread=1&lang=" + lang);
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
      } else if (data.type === "event") {
        if (data.seq <= last) { return; }
        if (data.seq > last + 1) {  // a gap in one's own stream: ask again from the last one
          ws.send(JSON.stringify({ type: "subscribe", game: game, since_seq: last }));
          return;
        }
        last = data.seq;
        body.setAttribute("data-live-seq", String(last));
        try { sessionStorage.setItem(key, String(last)); } catch (e) { /* private mode */ }
        refresh(data.payload, data.seq);
      } else if (data.type === "unread") {  // issue 13: static/js/badge.js shows it
        document.dispatchEvent(new CustomEvent("lepromafia:unread", { detail: data.count }));
      } else if (data.type === "resync") {
        last = data.reason === "ahead_of_server" ? 0 : data.since_seq;
        refresh();
        ws.send(JSON.stringify({ type: "subscribe", game: game, since_seq: last }));
      }
    };
    ws.onclose = function () {
      show("closed");
      // jittered (0.5–1.5×), so that a restart's thousands of tabs do not return in step
      setTimeout(connect, delay * (0.5 + Math.random()));
      delay = Math.min(delay * 2, 15000);
    };
  }
  window.lepromafiaLive = {
    lastSeq: function () { return last; },
    drop: function () { if (ws) { ws.close(); } }
  };
  connect();
})();
