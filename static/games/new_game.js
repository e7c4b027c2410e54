// The new-game form: only the seats the number of players uses, the name box only for an
// invitation, and players suggested as a name is typed (GET /api/players/?search=<prefix>, at
// least 2 characters, into the <datalist> that every name box lists). Without JavaScript the
// form works the same, minus the suggestions.
(function () {
  "use strict";
  const form = document.getElementById("new-game-form");
  if (!form) return;
  const players = form.querySelector("[name=num_players]");
  const suggestions = document.getElementById("player-suggestions");
  const apiUrl = form.dataset.playersApi;
  const MIN_PREFIX = 2;
  const DELAY_MS = 150;

  function showSeats() {
    const n = Number(players.value);
    form.querySelectorAll(".seat-fieldset").forEach((fieldset) => {
      fieldset.hidden = Number(fieldset.dataset.seat) > n;
      const kind = fieldset.querySelector("select").value;
      fieldset.querySelector(".seat-username").hidden = kind !== "invite";
    });
  }

  const found = new Map(); // prefix (upper case) -> players, for this page's life
  let timer = null;
  let pending = null;

  function fill(list) {
    suggestions.replaceChildren(
      ...list.map((player) => {
        const option = document.createElement("option");
        option.value = player.username;
        if (player.display_name !== player.username) option.label = player.display_name;
        return option;
      }),
    );
  }

  async function search(prefix) {
    const key = prefix.toUpperCase();
    if (found.has(key)) return fill(found.get(key));
    if (pending) pending.abort();
    pending = new AbortController();
    try {
      const response = await fetch(`${apiUrl}?search=${encodeURIComponent(prefix)}`, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
        signal: pending.signal,
      });
      if (!response.ok) return;
      const list = await response.json();
      found.set(key, list);
      fill(list);
    } catch (error) {
      if (error.name !== "AbortError") fill([]); // suggestions are a help, never in the way
    }
  }

  form.addEventListener("input", (event) => {
    if (!event.target.matches(".seat-username input")) return;
    const prefix = event.target.value.trim();
    clearTimeout(timer);
    if (prefix.length < MIN_PREFIX) {
      fill([]);
      return;
    }
    timer = setTimeout(() => search(prefix), DELAY_MS);
  });
  form.addEventListener("change", (event) => {
    showSeats();
    // Choosing "A player I name" goes straight on to typing the name.
    if (event.target.matches(".seat-kind select") && event.target.value === "invite") {
      event.target.closest(".seat-fieldset").querySelector(".seat-username input").focus();
    }
  });
  showSeats();
})();
