/* The Sound Library's recorder and uploader (SOUND-3, SOUND-LW-3).
 *
 * A file picked or a take recorded with MediaRecorder is POSTed as multipart to the media
 * API with a fresh one-time CSRF token; the server measures it. On success the page reloads
 * with ?media=<id> to show the preview and the publish form; a refusal (too long, not
 * audio) is shown with its translated message, its code and its rule.
 */
(function () {
  "use strict";
  var form = document.getElementById("sound-upload");
  if (!form) { return; }
  var status = form.querySelector("[data-role=status]");
  var errorBox = form.querySelector("[data-role=error]");
  var recordBtn = form.querySelector("[data-role=record]");
  var stopBtn = form.querySelector("[data-role=stop]");
  var fileInput = form.querySelector("input[type=file]");
  var submit = form.querySelector("button[type=submit]");
  var take = null;

  function say(key) { status.textContent = key ? status.getAttribute("data-t-" + key) || "" : ""; }

  function showError(error) {
    errorBox.innerHTML = "";
    var box = document.createElement("div");
    box.className = "notice error";
    box.setAttribute("role", "alert");
    box.setAttribute("data-testid", "upload-error");
    var message = document.createElement("span");
    message.textContent = error.message || "";
    box.appendChild(message);
    // the code and the rule stay out of the sentence (as in components/flash.html)
    if (error.code) { box.setAttribute("data-code", error.code); }
    if (error.rule) {
      box.setAttribute("data-rule", error.rule);
      var rule = document.createElement("a");
      rule.className = "rule-ref";
      rule.href = "/rules#" + error.rule.split("-")[0];
      rule.title = error.rule;
      rule.textContent = status.getAttribute("data-t-rule") || "";
      box.appendChild(document.createTextNode(" "));
      box.appendChild(rule);
    }
    errorBox.appendChild(box);
  }

  // --- recording in the browser ----------------------------------------------------
  if (!(navigator.mediaDevices && navigator.mediaDevices.getUserMedia && window.MediaRecorder)) {
    recordBtn.disabled = true;
    recordBtn.title = status.getAttribute("data-t-norec");
  } else {
    var recorder = null, chunks = [];
    recordBtn.addEventListener("click", function () {
      navigator.mediaDevices.getUserMedia({ audio: true }).then(function (stream) {
        var type = MediaRecorder.isTypeSupported("audio/webm;codecs=opus") ? "audio/webm;codecs=opus" : "";
        recorder = type ? new MediaRecorder(stream, { mimeType: type }) : new MediaRecorder(stream);
        chunks = [];
        recorder.ondataavailable = function (e) { if (e.data && e.data.size) { chunks.push(e.data); } };
        recorder.onstop = function () {
          stream.getTracks().forEach(function (t) { t.stop(); });
          take = new Blob(chunks, { type: recorder.mimeType || "audio/webm" });
          say("");
          status.textContent = "● " + Math.round(take.size / 1024) + " KB";
          recordBtn.hidden = false;
          stopBtn.hidden = true;
        };
        recorder.start(1000);
        say("recording");
        recordBtn.hidden = true;
        stopBtn.hidden = false;
      }).catch(function () { say("norec"); });
    });
    stopBtn.addEventListener("click", function () { if (recorder) { recorder.stop(); } });
  }
  fileInput.addEventListener("change", function () { take = null; });

  // --- the upload ------------------------------------------------------------------
  form.addEventListener("submit", function (event) {
    event.preventDefault();
    errorBox.innerHTML = "";
    var file = take || (fileInput.files && fileInput.files[0]);
    if (!file) { fileInput.focus(); return; }
    var kind = form.querySelector("[name=kind]").value;
    var body = new FormData();
    body.append("kind", kind);
    body.append("file", file, take ? "recording.webm" : file.name);
    submit.disabled = true;
    say("uploading");
    fetch(form.getAttribute("data-token-url"), { credentials: "same-origin" })
      .then(function (r) { return r.json(); })
      .then(function (t) {
        return fetch(form.getAttribute("action"), {
          method: "POST", body: body, credentials: "same-origin", headers: { "X-CSRF-Token": t.token }
        });
      })
      .then(function (r) { return r.json().then(function (data) { return { ok: r.ok, data: data }; }); })
      .then(function (res) {
        submit.disabled = false;
        say("");
        if (res.ok) {
          window.location = form.getAttribute("data-next") + "&kind=" + encodeURIComponent(kind) +
            "&media=" + encodeURIComponent(res.data.media) + "#draft";
        } else {
          showError(res.data.error || {});
        }
      })
      .catch(function () { submit.disabled = false; say(""); showError({ message: "network", code: "network" }); });
  });
})();
