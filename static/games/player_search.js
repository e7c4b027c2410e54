// Players suggested as a name is typed in any name box that lists the page's
// <datalist id="player-suggestions" data-api="..."> (GET /api/players/?search=<prefix>, at least
// 2 characters): inviting from the new-game form, or again to a declined seat. Without
// JavaScript the boxes work the same, minus the suggestions.
(function () {
  "use strict";
  const suggestions = document.getElementById("player-suggestions");
  if (!suggestions) return;
  const apiUrl = suggestions.dataset.api;
  const MIN_PREFIX = 2;
  const DELAY_MS = 150;
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

  document.addEventListener("input", (event) => {
    if (!event.target.matches("input[list=player-suggestions]")) return;
    const prefix = event.target.value.trim();
    clearTimeout(timer);
    if (prefix.length < MIN_PREFIX) {
      fill([]);
      return;
    }
    timer = setTimeout(() => search(prefix), DELAY_MS);
  });
})();
