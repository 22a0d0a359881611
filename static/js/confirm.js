// Asks before a button with data-confirm submits its form. Inline event handlers
// are refused by the site's Content-Security-Policy, so this lives in a file.
(function () {
  "use strict";
  document.querySelectorAll("[data-confirm]").forEach(function (button) {
    button.addEventListener("click", function (event) {
      if (!window.confirm(button.dataset.confirm)) { event.preventDefault(); }
    });
  });
})();
