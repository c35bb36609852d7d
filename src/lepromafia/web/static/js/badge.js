// The unread-notification badge (issue 13): the count in the top bar and in the tab's
// title. The server pushes the count over the WebSocket when a notification is created
// for the viewer or he reads some ("unread" frames): on a game page through live.js's
// socket (a "lepromafia:unread" event), elsewhere through a socket of its own. It is also
// fetched when the page opens, when the tab comes back, and by a slow poll as a safety
// net (every 15 s with no socket). While a tab is open, a new notification also shows
// through the browser's Notification API if the person allowed it.
(function () {
  "use strict";
  const badge = document.querySelector("[data-notify-badge]");
  if (!badge) return;
  const counter = badge.querySelector("[data-notify-count]");
  let last = -1;
  let live = false;  // a socket is delivering the count

  function show(count) {
    // the label stays; the count beside it (after «·» on a wide screen, beside the bell on a phone)
    counter.textContent = count ? String(count) : "";
    counter.hidden = !count;
    badge.querySelector("a").dataset.unread = String(count);
    // on a game's pages the title counts the game's unread messages (live.js) instead
    if (!document.querySelector("[data-unread-total]")) {
      const bare = document.title.replace(/^\(\d+\)\s*/, "");
      document.title = count ? "(" + count + ") " + bare : bare;
    }
    if (last >= 0 && count > last && "Notification" in window && Notification.permission === "granted") {
      const n = new Notification(badge.dataset.tNew, { body: badge.dataset.tBody, tag: "lepromafia-unread" });
      n.onclick = () => { window.location.href = "/notifications"; };
    }
    last = count;
  }

  async function refresh() {
    try {
      const r = await fetch("/api/notifications/count", { credentials: "same-origin" });
      if (r.ok) show((await r.json()).unread);
    } catch (e) { /* the next one */ }
  }

  document.addEventListener("lepromafia:unread", (e) => { live = true; show(Number(e.detail) || 0); });

  // outside a game's pages live.js opens no socket: listen on one of our own
  function connect(delay) {
    if (document.body.hasAttribute("data-live-game") || !("WebSocket" in window)) return;
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(proto + "//" + location.host + "/ws?unread=1");
    ws.onopen = () => { live = true; delay = 1000; refresh(); };
    ws.onmessage = (msg) => {
      let data;
      try { data = JSON.parse(msg.data); } catch (e) { return; }
      if (data.type === "unread") show(Number(data.count) || 0);
    };
    ws.onclose = () => {
      live = false;
      setTimeout(() => connect(Math.min(delay * 2, 30000)), delay * (0.5 + Math.random()));
    };
  }

  refresh();
  connect(1000);
  let idle = 0;
  setInterval(() => { idle += 15; if (!live || idle >= 120) { idle = 0; refresh(); } }, 15000);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
  window.lepromafiaBadge = { live: () => live, last: () => last };
})();
