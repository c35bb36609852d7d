// The service worker of Web Push (issue 13): shows a delivered push as a notification
// and opens its link when clicked. A push carries only what the server decided may be
// read on a lock screen (a secret one says only that something awaits in the game).
self.addEventListener("push", (event) => {
  let data = {};
  try { data = event.data ? event.data.json() : {}; } catch (e) { data = { body: event.data ? event.data.text() : "" }; }
  event.waitUntil(self.registration.showNotification(data.title || "Lepromafia", {
    body: data.body || "", data: { url: data.url || "/notifications" }, tag: data.url || undefined,
  }));
});

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(self.clients.openWindow(event.notification.data.url || "/notifications"));
});
