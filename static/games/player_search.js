// Players suggested as a name is typed in any name box that lists the page's
// <datalist id="player-suggestions" data-api="..."> (GET /api/players/?search=<prefix>, at least
// 2 characters, the players one follows first): inviting from the new-game form, or again to a
// declined seat. Before 2 characters are typed, the players one follows (data-following: GET
// /api/following/). Without JavaScript the boxes work the same, minus the suggestions.
(function () {
  "use strict";
  const suggestions = document.getElementById("player-suggestions");
  if (!suggestions) return;
  const apiUrl = suggestions.dataset.api;
  const followingUrl = suggestions.dataset.following;
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

  let following = null; // the players one follows, asked once, as a box is first used

  async function showFollowing() {
    if (!followingUrl) return fill([]);
    if (following === null) {
      following = [];
      try {
        const response = await fetch(followingUrl, {
          headers: { Accept: "application/json" },
          credentials: "same-origin",
        });
        if (response.ok) following = await response.json();
      } catch (error) {
        // suggestions are a help, never in the way
      }
    }
    // A search typed meanwhile has the last word.
    const box = document.activeElement;
    if (box && box.matches("input[list=player-suggestions]") && box.value.trim().length >= MIN_PREFIX) return;
    fill(following);
  }

  document.addEventListener("focusin", (event) => {
    if (!event.target.matches("input[list=player-suggestions]")) return;
    if (event.target.value.trim().length < MIN_PREFIX) showFollowing();
  });

  document.addEventListener("input", (event) => {
    if (!event.target.matches("input[list=player-suggestions]")) return;
    const prefix = event.target.value.trim();
    clearTimeout(timer);
    if (prefix.length < MIN_PREFIX) {
      showFollowing();
      return;
    }
    timer = setTimeout(() => search(prefix), DELAY_MS);
  });
})();
