// Opt in to Web Push on this device (the account's notification settings page).
(function () {
  const box = document.getElementById("push");
  const button = document.getElementById("push-on");
  if (!box || !button) return;
  if (!("serviceWorker" in navigator) || !("PushManager" in window)) { box.textContent = box.dataset.tDenied; return; }
  const csrf = (document.querySelector('input[name="csrf_token"]') || {}).value || "";
  function key(b64) {
    const pad = "=".repeat((4 - (b64.length % 4)) % 4);
    const raw = atob((b64 + pad).replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }
  button.addEventListener("click", async () => {
    if ((await Notification.requestPermission()) !== "granted") { box.textContent = box.dataset.tDenied; return; }
    const reg = await navigator.serviceWorker.register("/sw.js");
    const sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: key(box.dataset.key) });
    const body = sub.toJSON();
    await fetch("/api/push/subscriptions", { method: "POST", credentials: "same-origin",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify({ endpoint: body.endpoint, keys: body.keys }) });
    box.textContent = box.dataset.tOn;
  });
})();
