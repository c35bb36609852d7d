/* Lepromafia live pages: one WebSocket per browser tab, countdowns, pushed messages,
 * coalesced partial refreshes.
 *
 * The server pushes the viewer's own stream (/ws: subscribe {game, since_seq}): only the
 * events he may see, numbered 1, 2, 3, … by his position in it (never the game's global
 * sequence; nothing at all for the events he may not see). A new or edited message comes
 * with its thread item rendered (frame field "html", once per audience and language on the
 * server, web/ws/content.py): it is inserted into the thread that shows its inbox, marked
 * for this viewer from data-author / data-mentions against <body data-live-user>, with no
 * request. The socket is told which threads the page shows and whether it is on screen
 * ("view" {game, inboxes, visible}, at each connect and visibility change): while it is,
 * the server counts each message of those threads it sends as read, with no report. What
 * arrives while the tab is hidden is reported when it is shown again, in one batched
 * report {upto} at most every READ_EVERY ms, and at once when the tab is hidden or left:
 * on the socket ("read" {game, inbox, upto}) while it is open, else as POST …/read {upto}
 * (and always so when the page is left, with keepalive: the socket closes with the page).
 * A thread that is not current (the item's number is not the next one) is re-fetched once
 * instead.
 *
 * Any other region marked data-live-src declares what changes it: data-live-kinds (event
 * types), and optionally data-live-inbox and data-live-city (only events about that inbox
 * or city). An arriving event re-fetches only the regions it matches, and only if the
 * region was rendered before that position (data-live-rendered, from the X-Live-Seq header
 * of the response that drew it: the htmx answer to one's own vote is not fetched again on
 * its WebSocket echo); re-fetches are coalesced, at most one per region per WINDOW ms
 * (trailing), never one per event. A region marked data-live-shown="skip" (the unread
 * badge) ignores a message this page has just shown. A reconnect resumes from the last
 * position seen; a jump in the numbering (a gap) resumes from the last one too; a "resync"
 * refreshes every region. The menu's unread badge's count also leads the tab title
 * («(3) …»). A chat composer's message goes on the socket while it is open (a "command"
 * frame, answered by "ack" or "error"; lost with a socket that stays away, it goes as the
 * API's command with the same id), else by its form. The page stays fully usable
 * without JavaScript. No third-party code besides htmx.
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

  // What to do with a pushed message item numbered `number` in a thread showing the
  // message numbers `shown` (ascending): "append" (it is the next one), "replace" (an
  // edit of one shown), "skip" (already there: the echo of one's own post) or "refetch"
  // (the thread is not current: it missed a message, or shows another window of it).
  function placement(shown, type, number) {
    var has = shown.indexOf(number) >= 0;
    var last = shown.length ? shown[shown.length - 1] : 0;
    if (type === "MessageEdited") { return has ? "replace" : "refetch"; }
    if (has) { return "skip"; }
    return number === last + 1 ? "append" : "refetch";
  }

  // The viewer's own marks on a pushed item: his message, or one that mentions him.
  function personal(author, mentions, me) {
    var mine = !!me && author === me;
    return { mine: mine, mentionsMe: !!me && !mine && words(mentions).indexOf(me) >= 0 };
  }

  // Milliseconds until a region's coalesced re-fetch: a short debounce, and never sooner
  // than `window` after its previous fetch started (trailing: the last event is caught).
  function fetchDelay(now, lastFetch, debounce, window) {
    return Math.max(debounce, lastFetch ? lastFetch + window - now : 0);
  }

  // The socket's form of a read report for the inbox whose marker URL is `url`
  // (…/games/<game>/inboxes/<inbox>/read), or null if the URL is not one.
  function readReport(url, upto) {
    var m = /\/games\/([^\/]+)\/inboxes\/(.+)\/read$/.exec(url || "");
    if (!m) { return null; }
    return { type: "read", game: decodeURIComponent(m[1]), inbox: decodeURIComponent(m[2]), upto: upto };
  }
  return { matches: matches, placement: placement, personal: personal, fetchDelay: fetchDelay,
           readReport: readReport };
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
    beside(form, input, (box.querySelector(".message") || box).textContent.trim()).scrollIntoView({ block: "center" });
  }
  // A refusal's words beside the field that caused it (marked invalid, focused), or atop its form.
  function beside(form, input, message) {
    var note = document.createElement("p");
    note.className = "field-error";
    note.id = "field-error";
    note.setAttribute("data-testid", "field-error");
    note.textContent = message;
    if (input) {
      input.setAttribute("aria-invalid", "true");
      input.setAttribute("aria-describedby", "field-error");
      input.insertAdjacentElement("afterend", note);
      input.focus({ preventScroll: true });
    } else {
      form.insertBefore(note, form.firstChild);
    }
    return note;
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

  // --- live regions: coalesced re-fetches ------------------------------------------
  var DEBOUNCE = 150, WINDOW = 2000, READ_EVERY = 5000;
  var me = body.getAttribute("data-live-user") || "";
  function spec(el) {
    return { kinds: el.getAttribute("data-live-kinds"), inbox: el.getAttribute("data-live-inbox"),
             city: el.getAttribute("data-live-city"), rendered: el.getAttribute("data-live-rendered") };
  }
  function rendered(el, response) {
    var seq = response && response.headers ? response.headers.get("X-Live-Seq") : null;
    if (seq) { el.setAttribute("data-live-rendered", seq); }
  }
  var timers = new Map();   // region -> its scheduled re-fetch
  var fetchedAt = new Map();  // region -> when its last re-fetch started
  var inflight = new Set();   // regions whose re-fetch has not answered yet
  function schedule(el) {
    if (timers.has(el)) { return; }  // one re-fetch already due catches this event too
    var wait = LepromafiaLive.fetchDelay(Date.now(), fetchedAt.get(el) || 0, DEBOUNCE, WINDOW);
    timers.set(el, setTimeout(function () { timers.delete(el); fetchRegion(el); }, wait));
  }
  function fetchRegion(el) {
    if (!el.isConnected) { return; }
    var url = el.getAttribute("data-live-src");
    var active = document.activeElement;
    if (active && active.tagName === "TEXTAREA" && active.value && el.contains(active)) { return; }  // do not eat a draft
    fetchedAt.set(el, Date.now());
    inflight.add(el);
    fetch(url, { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (r) { if (!r.ok) { return null; } rendered(el, r); return r.text(); })
      .then(function (html) {
        inflight.delete(el);  // in the same turn as the swap: no pushed item falls in between
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
        var fresh = el.querySelector("input[name=csrf_token]");  // a newer token for the markers
        if (fresh && fresh.value) { body.setAttribute("data-live-csrf", fresh.value); }
        if (window.htmx) { window.htmx.process(el); }
        var awaited = sending && composerOf(sending);  // its answer still to come: busy anew
        if (awaited && el.contains(awaited)) { busy(awaited, true); }
        syncTitle();
        var thread = el.querySelector(".thread");
        if (thread) { thread.scrollTop = thread.scrollHeight; }
        tick();
      })
      .catch(function () { inflight.delete(el); /* the next event retries */ });
  }
  // Re-fetch the regions an event changes (all regions without an event: a resync).
  // `shown`: the event's content was just put on this page (a pushed message).
  function refresh(event, seq, shown) {
    document.querySelectorAll("[data-live-src]").forEach(function (el) {
      if (event && !LepromafiaLive.matches(spec(el), event, seq)) { return; }
      if (shown && (el.getAttribute("data-live-shown") === "skip" || el.contains(shown))) { return; }
      schedule(el);
    });
  }

  // --- pushed messages ------------------------------------------------------------
  function threadOf(inbox) {
    var found = null;
    document.querySelectorAll("ol.thread[data-inbox]").forEach(function (t) {
      if (t.getAttribute("data-inbox") === inbox) { found = t; }
    });
    return found;
  }
  function shownNumbers(thread) {
    var out = [];
    thread.querySelectorAll(":scope > li[data-seq]").forEach(function (li) {
      out.push(parseInt(li.getAttribute("data-seq"), 10));
    });
    return out.sort(function (a, b) { return a - b; });
  }
  // The viewer's own parts of a neutral item: mine / new / mentions-me, the controls his
  // page offers (quotes where he may post, an "Edit" that fetches his form when opened).
  function personalize(li, thread) {
    var marks = LepromafiaLive.personal(li.getAttribute("data-author"), li.getAttribute("data-mentions"), me);
    var canPost = !!thread.getAttribute("data-can-post");
    li.classList.toggle("mine", marks.mine);
    if (!marks.mine) { li.classList.add("new"); }
    if (marks.mentionsMe) {
      li.classList.add("mentions-me");
      var flag = document.createElement("span");
      flag.className = "mention-flag";
      flag.setAttribute("data-testid", "mentions-me");
      flag.textContent = thread.getAttribute("data-t-mentions") || "";
      li.querySelector(".meta").appendChild(flag);
    }
    var actions = li.querySelector(".msg-actions");
    if (actions && !canPost) { actions.remove(); actions = null; }
    if (!actions) { return; }
    actions.querySelectorAll("[data-quote], .pick").forEach(function (el) { el.hidden = false; });
    if (marks.mine) {
      var edit = document.createElement("details");
      edit.className = "edit";
      edit.setAttribute("data-edit-src", thread.getAttribute("data-edit-base") + li.getAttribute("data-seq") + "/edit");
      var summary = document.createElement("summary");
      summary.textContent = thread.getAttribute("data-t-edit") || "";
      edit.appendChild(summary);
      actions.appendChild(edit);
    }
  }
  // Put a pushed item on the page: its element once shown, false if its region must be
  // re-fetched instead, null if no thread on this page shows its inbox.
  function applyPushed(event, seq, html) {
    var thread = threadOf(event.inbox);
    if (!thread) { return null; }
    var region = thread.closest("[data-live-src]");
    if (region && (timers.has(region) || inflight.has(region))) { return false; }  // one is due anyway
    var box = document.createElement("template");
    box.innerHTML = html;
    var li = box.content.firstElementChild;
    if (!li) { return false; }
    var number = parseInt(li.getAttribute("data-seq"), 10);
    var how = LepromafiaLive.placement(shownNumbers(thread), event.type, number);
    if (how === "refetch") { return false; }
    if (how === "skip") { return document.getElementById("m" + number) || false; }
    if (how === "append" || how === "replace") {
      var old = document.getElementById("m" + number);
      var active = document.activeElement;
      if (old && active && old.contains(active) && active.tagName === "TEXTAREA") { return false; }
      personalize(li, thread);
      if (how === "replace" && old) {
        li.classList.toggle("new", old.classList.contains("new"));
        old.replaceWith(li);
      } else {
        thread.appendChild(li);
        var empty = region && region.querySelector("[data-empty]");
        if (empty) { empty.remove(); }
        thread.scrollTop = thread.scrollHeight;
      }
      read(region, seq, event.inbox);
    }
    if (region) {
      var drawn = parseInt(region.getAttribute("data-live-rendered") || "0", 10);
      if (seq > drawn) { region.setAttribute("data-live-rendered", String(seq)); }
    }
    return li;
  }
  document.addEventListener("toggle", function (e) {  // "Edit" of a pushed message of one's own
    var box = e.target;
    if (!box.matches || !box.matches("details.edit[data-edit-src]") || !box.open) { return; }
    var src = box.getAttribute("data-edit-src");
    box.removeAttribute("data-edit-src");
    fetch(src, { credentials: "same-origin", headers: { "HX-Request": "true" } })
      .then(function (r) { return r.ok ? r.text() : null; })
      .then(function (html) {
        if (html === null) { box.setAttribute("data-edit-src", src); return; }
        var t = document.createElement("template");
        t.innerHTML = html.trim();
        var form = t.content.firstElementChild;
        if (form) { box.replaceWith(form); var f = form.querySelector("textarea"); if (f) { f.focus(); } }
      })
      .catch(function () { box.setAttribute("data-edit-src", src); });
  }, true);

  // --- the read marker: batched ------------------------------------------------------
  var unread = new Map();  // read URL -> the stream position of the last message shown
  var readRegion = new Map();  // read URL -> the region whose messages it reports
  var readTimer = null, lastRead = 0;
  // The read-marker URL of a region that holds a thread (…/part → …/read), else null.
  function readUrl(region) {
    var src = region && region.getAttribute("data-live-src");
    return src && /\/part$/.test(src) ? src.replace(/\/part$/, "/read") : null;
  }
  function read(region, seq, inbox) {
    var url = readUrl(region);
    if (!url) { return; }
    // on screen, through the socket that was told what the page shows: the server counts
    // it read as it sends it (the "view" below); what comes while hidden is reported here
    if (document.visibilityState !== "hidden" && ws && ws === viewSocket && viewed.indexOf(inbox) >= 0) {
      return;
    }
    unread.set(url, Math.max(seq, unread.get(url) || 0));
    readRegion.set(url, region);
    flushSoon();
  }
  function flushSoon() {
    if (readTimer || !unread.size || document.visibilityState === "hidden") { return; }
    var wait = Math.max(0, lastRead + READ_EVERY - Date.now());
    readTimer = setTimeout(flush, wait);
  }
  // Report the markers now: on the open socket (no request at all), else by POST
  // (leaving the page: keepalive, so the request outlives it; the socket closes with it).
  function flush(leaving) {
    if (readTimer) { clearTimeout(readTimer); readTimer = null; }
    if (!unread.size || (document.visibilityState === "hidden" && !leaving)) { return; }
    lastRead = Date.now();
    var token = body.getAttribute("data-live-csrf") || "";
    var socket = leaving !== true && ws && ws.readyState === 1 ? ws : null;
    unread.forEach(function (upto, url) {
      var report = socket ? LepromafiaLive.readReport(url, upto) : null;
      if (report) { socket.send(JSON.stringify(report)); return; }
      fetch(url, { method: "POST", credentials: "same-origin", keepalive: leaving === true,
                   headers: { "Content-Type": "application/json", "X-CSRF-Token": token },
                   body: JSON.stringify({ upto: upto }) })
        .then(function (r) {  // a page open past its token's life: the region's fetch marks it
          if (r.status === 403 && readRegion.has(url)) { schedule(readRegion.get(url)); }
        })
        .catch(function () { /* the next one */ });
    });
    unread.clear();
  }
  // --- what the page shows, told to its socket -------------------------------------
  // While the page is on screen, the server counts each message of these threads it
  // delivers on this socket as read: no report per message (issue 17).
  var viewSocket = null, viewed = [];
  function sendView() {
    if (!(ws && ws.readyState === 1 && game)) { return; }
    var inboxes = [];
    document.querySelectorAll("ol.thread[data-inbox]").forEach(function (t) {
      var inbox = t.getAttribute("data-inbox");
      if (readUrl(t.closest("[data-live-src]")) && inbox && inboxes.length < 16) { inboxes.push(inbox); }
    });
    if (!inboxes.length) { return; }
    ws.send(JSON.stringify({ type: "view", game: game, inboxes: inboxes,
                             visible: document.visibilityState !== "hidden" }));
    viewSocket = ws;
    viewed = inboxes;
  }

  // What was on screen is read: report it when the tab is hidden or left, not later.
  document.addEventListener("visibilitychange", function () {
    sendView();
    if (document.visibilityState === "hidden") { flush("hidden"); } else { flushSoon(); }
  });
  window.addEventListener("pagehide", function () { if (document.visibilityState !== "hidden") { flush(true); } });

  document.querySelectorAll(".thread").forEach(function (t) { t.scrollTop = t.scrollHeight; });
  document.body.addEventListener("htmx:afterRequest", function (e) {
    var target = e.detail && e.detail.target, xhr = e.detail && e.detail.xhr;
    var seq = xhr ? xhr.getResponseHeader("X-Live-Seq") : null;
    if (target && seq && target.hasAttribute("data-live-src")) { target.setAttribute("data-live-rendered", seq); }
    // A chat composer's post answers with its own card: the message comes by the socket.
    // With the socket down, the thread is fetched once instead.
    if (target && target.id === "composer-card" && e.detail.successful && !(ws && ws.readyState === 1)) {
      var region = target.closest("[data-live-src]");
      if (region) { schedule(region); }
    }
  });
  // "Show earlier messages" puts a page above the ones shown: the reader stays where he was
  // (the same distance from the thread's end), every other swap shows a thread's end.
  var kept = null;
  document.body.addEventListener("htmx:beforeSwap", function (e) {
    var target = e.detail && e.detail.target;
    var thread = target && target.classList.contains("earlier") ? target.closest(".thread") : null;
    kept = thread ? { thread: thread, fromEnd: thread.scrollHeight - thread.scrollTop } : null;
  });
  document.body.addEventListener("htmx:afterSwap", function (e) {
    var target = e.detail && e.detail.target;  // htmx 2: one event per element swapped in
    if (kept && target && target.classList.contains("earlier")) {
      kept.thread.scrollTop = kept.thread.scrollHeight - kept.fromEnd;
    } else {
      document.querySelectorAll(".thread").forEach(function (t) { t.scrollTop = t.scrollHeight; });
    }
    tick();
  });

  // --- the socket --------------------------------------------------------------------
  var key = "lp-seq:" + game;
  var last = parseInt(body.getAttribute("data-live-seq") || "0", 10) || 0;
  var delay = 500;
  var ws = null;
  var heard = [];  // the last frames' [type, seq, event type]: what a failing test reports

  function show(state) {
    if (!status) { return; }
    status.setAttribute("data-state", state);
    status.textContent = T(state);
  }

  // --- the chat composer on the socket (issue 17) -------------------------------------
  // A chat composer (form[data-socket-post]) sends its message as a "command" frame on
  // this socket while it is open and subscribed: no request and no form token. The
  // message reaches the thread by its push, as everyone else's does; the "ack" empties the
  // composer (and so its stored draft); a refusal is put beside the field in words, the
  // text kept. A socket that closes before the answer sends the same frame again once it
  // is back (the same id: one effect); one that is not back within FALLBACK ms has the
  // message sent as the API's command (/api/games/<game>/commands/PostMessage, the same
  // id: still one effect) and the thread fetched once. With the socket down when sending,
  // the form posts as it does without this script.
  var FALLBACK = 3000;
  var subscribed = false;
  var sending = null;  // {form, frame}: the message awaiting its answer
  var fallbackTimer = null;
  function commandId() {
    var bytes = new Uint8Array(12);
    window.crypto.getRandomValues(bytes);
    return "s" + Array.prototype.map.call(bytes, function (b) { return (b + 256).toString(16).slice(1); }).join("");
  }
  function busy(form, on) {
    var button = form.querySelector("button[type=submit]");
    if (button) { button.disabled = on; button.setAttribute("aria-busy", on ? "true" : "false"); }
  }
  function unmark(form) {
    form.querySelectorAll(".field-error").forEach(function (el) { el.remove(); });
    var f = form.querySelector("textarea[name=text]");
    if (f) { f.removeAttribute("aria-invalid"); f.setAttribute("aria-describedby", "composer-hint"); }
  }
  // The composer a message left from, or the one that replaced it (a region re-fetched
  // meanwhile draws its form anew, the draft put back in).
  function composerOf(done) {
    if (done.form.isConnected) { return done.form; }
    var again = null;
    document.querySelectorAll("form[data-socket-post]").forEach(function (f) {
      if (f.getAttribute("data-inbox") === done.frame.args.inbox) { again = f; }
    });
    return again || done.form;
  }
  function answered(data) {
    var done = sending;
    if (!done || data.id !== done.frame.id) { return false; }
    sending = null;
    if (fallbackTimer) { clearTimeout(fallbackTimer); fallbackTimer = null; }
    var form = composerOf(done);
    busy(form, false);
    var f = form.querySelector("textarea[name=text]");
    if (data.type === "ack") {
      if (f && f.value === done.frame.args.text) {
        f.value = "";
        f.dispatchEvent(new Event("input", { bubbles: true }));  // composer.js: the draft goes
      }
    } else {  // no page answer to carry an alert: the note is one
      beside(form, f, data.message || "").setAttribute("role", "alert");
    }
    return true;
  }
  // The socket went away before the answer: unless it is back first, the message goes
  // by the API with its id, and its answer (or refusal, in words) is the socket's would-be.
  function fallBackSoon() {
    if (!sending || fallbackTimer) { return; }
    fallbackTimer = setTimeout(function () {
      fallbackTimer = null;
      var pending = sending;
      if (!pending || subscribed) { return; }  // back on the socket: resent there
      var frame = pending.frame;
      fetch("/api/games/" + encodeURIComponent(game) + "/commands/PostMessage?lang=" + lang, {
        method: "POST", credentials: "same-origin", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ inbox: frame.args.inbox, text: frame.args.text, command_id: frame.id })
      })
        .then(function (r) {
          return r.json().then(function (answer) { return { ok: r.ok, answer: answer }; });
        })
        .then(function (res) {
          var error = res.answer && res.answer.error;
          if (!res.ok && !(error && error.message)) { throw new Error("no answer"); }
          if (!answered(res.ok ? { type: "ack", id: frame.id } :
                        { type: "error", id: frame.id, message: error.message })) { return; }
          var region = composerOf(pending).closest("[data-live-src]");
          if (res.ok && region && !subscribed) { schedule(region); }  // no push to show it
        })
        .catch(function () { fallBackSoon(); });  // offline: try again, the same id
    }, FALLBACK);
  }
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches || !form.matches("form[data-socket-post]")) { return; }
    if (!sending && !(ws && ws.readyState === 1 && subscribed)) { return; }  // the form posts
    e.preventDefault();
    e.stopPropagation();  // in the capture phase: htmx never sees it
    if (sending) { return; }  // one message at a time: its button is busy
    var f = form.querySelector("textarea[name=text]");
    if (!f || !f.value.trim()) { return; }
    unmark(form);
    sending = { form: form, frame: { type: "command", id: commandId(), game: game, name: "PostMessage",
                                     args: { inbox: form.getAttribute("data-inbox"), text: f.value } } };
    busy(form, true);
    ws.send(JSON.stringify(sending.frame));
  }, true);

  function connect() {
    show("connecting");
    var proto = location.protocol === "https:" ? "wss:" : "ws:";
    // ?game=: a proxy that routes a game's requests to one worker sends its socket there too
    var at = game ? "game=" + encodeURIComponent(game) + "&" : "";
    try {
      ws = new WebSocket(proto + "//" + location.host + "/ws?" + at + "unread=1&lang=" + lang);
    } catch (e) {  // no socket to be had now: try again later, as after a close
      ws = null;
      closed();
      return;
    }
    ws.onopen = function () {
      delay = 500;
      ws.send(JSON.stringify({ type: "subscribe", game: game, since_seq: last }));
      sendView();
    };
    ws.onmessage = function (msg) {
      var data;
      try { data = JSON.parse(msg.data); } catch (e) { return; }
      heard.push([data.type, data.seq, data.payload && data.payload.type]);
      if (heard.length > 40) { heard.shift(); }
      if ((data.type === "ack" || data.type === "error") && data.id && answered(data)) {
        return;
      }
      if (data.type === "subscribed") {
        show("open");
        subscribed = true;
        if (sending) { ws.send(JSON.stringify(sending.frame)); }  // its answer was lost
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
        var shown = data.html ? applyPushed(data.payload, data.seq, data.html) : null;
        refresh(data.payload, data.seq, shown || null);
      } else if (data.type === "unread") {  // issue 13: static/js/badge.js shows it
        document.dispatchEvent(new CustomEvent("lepromafia:unread", { detail: data.count }));
      } else if (data.type === "resync") {
        last = data.reason === "ahead_of_server" ? 0 : data.since_seq;
        refresh();
        ws.send(JSON.stringify({ type: "subscribe", game: game, since_seq: last }));
      }
    };
    ws.onclose = closed;
  }
  function closed() {
    show("closed");
    subscribed = false;
    fallBackSoon();
    // jittered (0.5–1.5×), so that a restart's thousands of tabs do not return in step
    setTimeout(connect, delay * (0.5 + Math.random()));
    delay = Math.min(delay * 2, 15000);
  }
  window.lepromafiaLive = {
    lastSeq: function () { return last; },
    heard: function () { return heard.slice(); },
    flushRead: function () { flush(true); },
    drop: function () { if (ws) { ws.close(); } }
  };
  connect();
})();
