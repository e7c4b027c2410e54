// The new-game form: only the seats the number of players uses, and the name box only for an
// invitation (player_search.js suggests names as they are typed). Without JavaScript the form
// works the same.
(function () {
  "use strict";
  const form = document.getElementById("new-game-form");
  if (!form) return;
  const players = form.querySelector("[name=num_players]");

  // How well the chosen computer plays, from the list of levels above the seats.
  function levelText(kind) {
    const level = form.querySelector(`.bot-levels li[data-choice="${CSS.escape(kind)}"] .description`);
    if (!level) return "";
    const text = level.textContent.trim();
    return text.charAt(0).toUpperCase() + text.slice(1) + ".";
  }

  function showSeats() {
    const n = Number(players.value);
    form.querySelectorAll(".seat-fieldset").forEach((fieldset) => {
      fieldset.hidden = Number(fieldset.dataset.seat) > n;
      const kind = fieldset.querySelector("select").value;
      fieldset.querySelector(".seat-username").hidden = kind !== "invite";
      const help = fieldset.querySelector(".seat-level");
      if (help) {
        help.textContent = levelText(kind);
        help.hidden = !help.textContent;
      }
    });
  }

  form.addEventListener("change", (event) => {
    showSeats();
    // Choosing "A player I name" goes straight on to typing the name.
    if (event.target.matches(".seat-kind select") && event.target.value === "invite") {
      event.target.closest(".seat-fieldset").querySelector(".seat-username input").focus();
    }
  });
  showSeats();
})();
