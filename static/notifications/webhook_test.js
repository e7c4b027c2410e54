// A webhook test's line on the settings page (templates/notifications/_webhook_test_status.html):
// while a worker sends the test, asks the API what the webhook answered, every two seconds for a
// minute, and puts the answer in the line (a live region, so it is read out). The page shows the
// answer on its next load too: this only spares the reload.
(function () {
  "use strict";
  const EVERY_MS = 2000;
  const TRIES = 30;

  function follow(line) {
    if (line.dataset.following) return; // the script is included once per waiting test
    line.dataset.following = "1";
    let tries = 0;
    function ask() {
      tries += 1;
      fetch(line.dataset.statusUrl, {
        credentials: "same-origin",
        headers: { Accept: "application/json" },
      })
        .then((answer) => (answer.ok ? answer.json() : null))
        .then((test) => {
          if (test && test.status !== "waiting") {
            const said = test.status === "sent" ? line.dataset.sent : line.dataset.failed;
            line.textContent = said + " " + test.summary;
          } else if (test && tries < TRIES) {
            setTimeout(ask, EVERY_MS);
          } else {
            line.textContent = line.dataset.late;
          }
        })
        .catch(() => {
          if (tries < TRIES) setTimeout(ask, EVERY_MS);
          else line.textContent = line.dataset.late;
        });
    }
    setTimeout(ask, EVERY_MS);
  }

  document.querySelectorAll(".webhook-test[data-status-url]").forEach(follow);
})();
