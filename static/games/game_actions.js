// The board's resign button asks first: a dialog, then the form goes with confirm=yes. Without
// JavaScript the form goes without it, and the server answers with a confirmation page.
(function () {
  "use strict";
  document.querySelectorAll("form.resign-form[data-confirm]").forEach((form) => {
    form.addEventListener("submit", (event) => {
      if (!window.confirm(form.dataset.confirm)) {
        event.preventDefault();
        return;
      }
      form.elements.confirm.value = "yes";
    });
  });
})();
