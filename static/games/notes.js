// The board page's private notes (templates/games/_notes.html): saved through the API without
// leaving the page, and "Saved" said in the form's live region. Without this script the form
// posts to the page and comes back with a message.
(function () {
  "use strict";
  const form = document.querySelector(".notes-form");
  if (!form || !window.fetch) return;
  const text = form.querySelector("textarea");
  const status = document.getElementById("game-notes-status");
  const button = form.querySelector("button[type=submit]");

  function say(message) {
    status.textContent = message;
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    button.disabled = true;
    say(gettext("Saving…"));
    fetch(form.dataset.apiUrl, {
      method: "PUT",
      credentials: "same-origin",
      headers: {
        "Content-Type": "application/json",
        "Accept": "application/json",
        "X-CSRFToken": form.querySelector("input[name=csrfmiddlewaretoken]").value,
      },
      body: JSON.stringify({ text: text.value }),
    })
      .then(function (response) {
        if (response.ok) {
          say(gettext("Saved"));
          return null;
        }
        return response.json().then(function (body) {
          say(interpolate(gettext("Not saved: %(reason)s"), { reason: body.detail || response.status }, true));
        });
      })
      .catch(function () {
        say(gettext("Not saved: the connection failed. Try again."));
      })
      .finally(function () {
        button.disabled = false;
      });
  });
  // Typing after a save: the live region no longer tells the truth.
  text.addEventListener("input", function () {
    if (status.textContent) say("");
  });
})();
