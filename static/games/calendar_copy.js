// The settings page's "Copy the address" for the calendar feed (games/_calendar_settings.html).
// Without this script the address is in a read-only field, to select and copy by hand.
(function () {
  "use strict";
  var button = document.getElementById("calendar-feed-copy");
  var field = document.getElementById("calendar-feed-url");
  var status = document.getElementById("calendar-feed-copy-status");
  if (!button || !field || !status) {
    return;
  }
  button.hidden = false;
  button.addEventListener("click", function () {
    field.focus();
    field.select();
    var done = function () {
      status.textContent = button.dataset.copied;
    };
    var failed = function () {
      status.textContent = button.dataset.failed;
    };
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(field.value).then(done, failed);
    } else {
      failed();
    }
  });
})();
