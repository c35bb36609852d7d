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
  var T = {
    ru: { open: "Онлайн", closed: "Нет связи — переподключаемся…", connecting: "Подключаемся…" },
    en: { open: "Live", closed: "Offline — reconnecting…", connecting: "Connecting…" }
  }[lang === "en" ? "en" : "ru"];

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
        var active = document.activeElement;
        if (active && active.tagName === "TEXTAREA" && active.value && el.contains(active)) { return; }  // do not eat a draft
        fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true" } })
          .then(function (r) { return r.ok ? r.text() : null; })
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
    status.textContent = T[state];
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
