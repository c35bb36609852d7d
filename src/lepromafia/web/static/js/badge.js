// The unread-notification badge (issue 13): the count in the top bar and in the tab's
// title, refreshed every 15 s and when the tab comes back; while a tab is open, a new
// notification also shows through the browser's Notification API if the person allowed it.
(function () {
  const badge = document.querySelector("[data-notify-badge]");
  if (!badge) return;
  const label = badge.dataset.tLabel;
  const title = document.title;
  let last = -1;
  async function refresh() {
    let count;
    try {
      const r = await fetch("/api/notifications/count", { credentials: "same-origin" });
      if (!r.ok) return;
      count = (await r.json()).unread;
    } catch (e) { return; }
    const link = badge.querySelector("a");
    link.textContent = count ? label + " · " + count : label;
    link.dataset.unread = String(count);
    document.title = count ? "(" + count + ") " + title : title;
    if (last >= 0 && count > last && "Notification" in window && Notification.permission === "granted") {
      const n = new Notification(badge.dataset.tNew, { body: badge.dataset.tBody, tag: "lepromafia-unread" });
      n.onclick = () => { window.location.href = "/notifications"; };
    }
    last = count;
  }
  refresh();
  setInterval(refresh, 15000);
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
})();
