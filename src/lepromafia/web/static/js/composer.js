// The inbox composer: formatting buttons, quote and multi-quote, a draft kept across
// reloads (localStorage, one per inbox, cleared once the message is in the thread), a
// character counter, and the edit form opened where its refusal is shown.
// Event delegation: live.js and htmx replace the thread and the composer at any time.
(function () {
  "use strict";
  var picked = {};  // inbox draft key -> {message number: true}, survives live refreshes

  function composer() { return document.querySelector("form.composer-form"); }
  function field(form) { return form && form.querySelector("textarea[name=text]"); }
  function key(form) { return form && form.getAttribute("data-draft-key"); }

  function store(form) {
    var k = key(form), f = field(form);
    if (!k || !f) { return; }
    try { if (f.value.trim()) { localStorage.setItem(k, f.value); } else { localStorage.removeItem(k); } }
    catch (e) { /* private mode: no draft */ }
  }
  function posted(text) {  // is this draft already one of my messages in the thread?
    var mine = document.querySelectorAll(".thread > li.mine");
    for (var i = 0; i < mine.length; i++) {
      if ((mine[i].getAttribute("data-src") || "").trim() === text.trim()) { return true; }
    }
    return false;
  }
  function restore() {
    var form = composer(), k = key(form), f = field(form);
    if (!k || !f) { return; }
    var saved = null;
    try { saved = localStorage.getItem(k); } catch (e) { return; }
    if (!saved) { return; }
    if (posted(saved)) { try { localStorage.removeItem(k); } catch (e) { /* ignore */ } return; }
    if (!f.value) { f.value = saved; }
    count(form);
  }
  function count(form) {
    var f = field(form), out = form && form.querySelector("[data-counter]");
    if (!f || !out) { return; }
    var max = form.getAttribute("data-max") || f.getAttribute("maxlength");
    out.textContent = (out.getAttribute("data-t-counter") || "{n} / {max}")
      .replace("{n}", String(f.value.length)).replace("{max}", String(max));
  }

  function insert(f, before, after, placeholder) {
    var start = f.selectionStart, end = f.selectionEnd, value = f.value;
    var chosen = value.slice(start, end) || placeholder || "";
    f.value = value.slice(0, start) + before + chosen + after + value.slice(end);
    f.focus();
    f.setSelectionRange(start + before.length, start + before.length + chosen.length);
    f.dispatchEvent(new Event("input", { bubbles: true }));
  }
  function prefixLines(f, prefix) {
    var start = f.value.lastIndexOf("\n", f.selectionStart - 1) + 1, end = f.selectionEnd;
    var block = f.value.slice(start, end) || "";
    var lines = block.split("\n").map(function (l) { return prefix + l; }).join("\n");
    f.value = f.value.slice(0, start) + lines + f.value.slice(end);
    f.focus();
    f.setSelectionRange(start + lines.length, start + lines.length);
    f.dispatchEvent(new Event("input", { bubbles: true }));
  }

  // A quote: the message's own text without the quotes inside it, headed by a link to it.
  function quoteOf(li) {
    var own = (li.getAttribute("data-src") || "").split("\n")
      .filter(function (l) { return !/^\s*>/.test(l); }).join("\n").trim();
    var head = "> [" + li.getAttribute("data-label") + " · #" + li.getAttribute("data-seq") + "](#m" +
      li.getAttribute("data-seq") + ")";
    return head + "\n" + own.split("\n").map(function (l) { return "> " + l; }).join("\n") + "\n\n";
  }
  function addQuotes(items) {
    var form = composer(), f = field(form);
    if (!f || !items.length) { return; }
    var text = items.map(quoteOf).join("");
    var sep = f.value && !/\n\n$/.test(f.value) ? (/\n$/.test(f.value) ? "\n" : "\n\n") : "";
    f.value = f.value + sep + text;
    f.focus();
    f.setSelectionRange(f.value.length, f.value.length);
    f.dispatchEvent(new Event("input", { bubbles: true }));
  }

  function pickedOf(form) { var k = key(form) || ""; picked[k] = picked[k] || {}; return picked[k]; }
  function showPicked() {
    var form = composer();
    if (!form) { return; }
    var chosen = pickedOf(form), n = 0;
    document.querySelectorAll("input[data-pick]").forEach(function (box) {
      box.checked = !!chosen[box.value];
      if (box.checked) { n += 1; }
    });
    var button = form.querySelector("[data-quote-picked]");
    if (button) {
      button.disabled = n === 0;
      var c = button.querySelector("[data-picked-count]");
      if (c) { c.textContent = String(n); }
    }
  }

  // Controls that work only with this script stay hidden without it.
  function enable() {
    document.querySelectorAll(".composer-form .toolbar, .msg-actions [data-quote], .msg-actions .pick")
      .forEach(function (el) { el.hidden = false; });
    var err = document.querySelector(".msg .field-error, .msg [aria-invalid=true]");
    var box = err && err.closest("details.edit");
    if (box) { box.open = true; }
    showPicked();
    count(composer());
  }

  document.addEventListener("click", function (e) {
    var t = e.target.closest("button");
    if (!t) { return; }
    var form = composer(), f = field(form);
    if (t.hasAttribute("data-quote")) {
      addQuotes([t.closest("li.msg")]);
    } else if (t.hasAttribute("data-quote-picked")) {
      var chosen = pickedOf(form);
      var items = Array.prototype.filter.call(document.querySelectorAll(".thread > li.msg"),
        function (li) { return chosen[li.getAttribute("data-seq")]; });
      addQuotes(items);
      picked[key(form) || ""] = {};
      showPicked();
    } else if (f && t.closest(".composer-form .toolbar")) {
      if (t.hasAttribute("data-wrap")) { insert(f, t.getAttribute("data-wrap"), t.getAttribute("data-wrap")); }
      else if (t.hasAttribute("data-prefix")) { prefixLines(f, t.getAttribute("data-prefix")); }
      else if (t.hasAttribute("data-block")) { insert(f, "\n" + t.getAttribute("data-block") + "\n", "\n:::\n"); }
    }
  });
  document.addEventListener("change", function (e) {
    if (!e.target.matches("input[data-pick]")) { return; }
    var chosen = pickedOf(composer());
    if (e.target.checked) { chosen[e.target.value] = true; } else { delete chosen[e.target.value]; }
    showPicked();
  });
  document.addEventListener("input", function (e) {
    var form = e.target.closest && e.target.closest("form.composer-form");
    if (form) { store(form); count(form); }
  });
  // After the composer's own post: a refusal keeps the draft; a success has emptied it.
  document.body.addEventListener("htmx:afterSwap", function () {
    var form = composer(), f = field(form);
    if (form && f && !f.value && !document.querySelector("#inbox-live [data-testid=error]")) {
      try { localStorage.removeItem(key(form)); } catch (e) { /* ignore */ }
    }
    restore();
    enable();
  });
  // An edit is a full-page post: its whole text waits in sessionStorage, so a refusal
  // (shown beside the form by live.js, which keeps only a cookie's worth) loses nothing.
  document.addEventListener("submit", function (e) {
    var form = e.target;
    if (!form.matches || !form.matches("form[data-testid=edit-form]")) { return; }
    try { sessionStorage.setItem("lp-edit:" + form.getAttribute("action"), field(form).value); }
    catch (err) { /* private mode */ }
  });
  function restoreEdit() {
    var refused = document.querySelector("[data-testid=error][data-action]");
    document.querySelectorAll("form[data-testid=edit-form]").forEach(function (form) {
      var k = "lp-edit:" + form.getAttribute("action"), saved = null;
      try { saved = sessionStorage.getItem(k); sessionStorage.removeItem(k); } catch (err) { return; }
      if (saved !== null && refused && refused.getAttribute("data-action") === form.getAttribute("action")) {
        field(form).value = saved;
        var box = form.closest("details.edit");
        if (box) { box.open = true; }
      }
    });
  }
  restoreEdit();
  new MutationObserver(function () { enable(); })  // live.js redraws the region
    .observe(document.getElementById("inbox-live") || document.body, { childList: true });
  restore();
  enable();
})();
