// Keeps the status of a run page current without reloading: polls the run's
// JSON status and updates the label, the reason and the progress bar. Stops
// once the run is finished (invalid, scored or failed) and reloads the page
// once, since the report and the scores are rendered by the server.
(function () {
  "use strict";
  var box = document.getElementById("run-status");
  if (!box || box.dataset.finished === "true") { return; }
  var url = box.dataset.statusUrl;
  var label = box.querySelector(".status-label");
  var reason = box.querySelector(".status-reason");
  var bar = box.querySelector(".status-progress");
  var reload = box.querySelector(".status-reload");
  var delay = 1000;

  function show(data) {
    label.textContent = data.status_display;
    label.dataset.status = data.status;
    reason.textContent = data.status_reason || "";
    bar.value = data.progress;
    bar.textContent = data.progress + "%";
  }

  function poll() {
    fetch(url, { credentials: "same-origin", headers: { "Accept": "application/json" } })
      .then(function (response) {
        if (!response.ok) { throw new Error("HTTP " + response.status); }
        return response.json();
      })
      .then(function (data) {
        show(data);
        if (data.finished) {
          box.dataset.finished = "true";
          reload.hidden = false;
          window.location.reload();
          return;
        }
        delay = 1000;
        window.setTimeout(poll, delay);
      })
      .catch(function () {
        delay = Math.min(delay * 2, 30000);  // the server is busy or away: back off
        window.setTimeout(poll, delay);
      });
  }
  window.setTimeout(poll, delay);
})();
