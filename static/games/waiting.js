// Every page of a signed-in player: the count of games waiting for their move, in the title
// ("(2) ...") and beside "My games" (a link to the next of them), kept true while the page stays open, in the background too
// (a tab left open says when a game waits). It asks the API (`GET /api/games/waiting/`, cached
// and throttled per player) once a POLL_MS, at once when the page becomes visible again after a
// while, and when the board page's script says the game changed (the "azul:game-changed" event:
// a move, or a live update).
(function () {
  "use strict";

  const script = document.currentScript;
  if (!script || !script.dataset.api) return;
  const POLL_MS = 45000;
  const COUNT_PREFIX = /^\(\d+\) /;
  let lastAsked = Date.now(); // the page itself came with the count
  let timer = null;
  let inFlight = false;
  let askAgain = false;

  function badge() { return document.getElementById("games-waiting"); }

  function myGamesLink() {
    return document.querySelector('.site-header a[href="' + script.dataset.myGames + '"]');
  }

  function showTitle(count) {
    const title = document.title.replace(COUNT_PREFIX, "");
    document.title = (count > 0 ? "(" + count + ") " : "") + title;
  }

  function showBadge(count) {
    let node = badge();
    if (count <= 0) {
      if (!node) return;
      const before = node.previousSibling;
      if (before && before.nodeType === Node.TEXT_NODE && !before.textContent.trim()) before.remove();
      node.remove();
      return;
    }
    if (!node) {
      const link = myGamesLink();
      if (!link) return;
      // Beside "My games", a link of its own to the game that waits next (as the server writes it).
      node = document.createElement("a");
      node.className = "badge";
      node.href = script.dataset.next || script.dataset.myGames;
      node.id = "games-waiting";
      node.title = script.dataset.badgeTitle || "";
      link.after(" ", node);
    }
    // The number, then what it counts for screen readers (as the server writes it).
    const label = document.createElement("span");
    label.className = "visually-hidden";
    label.textContent = " " + (script.dataset.badgeLabel || "");
    node.replaceChildren(String(count), label);
  }

  function show(count) {
    showTitle(count);
    showBadge(count);
  }

  function schedule(ms) {
    clearTimeout(timer);
    timer = setTimeout(ask, ms);
  }

  async function ask() {
    if (inFlight) { askAgain = true; return; }
    inFlight = true;
    lastAsked = Date.now();
    let next = POLL_MS;
    try {
      const response = await fetch(script.dataset.api, {
        headers: { "Accept": "application/json" }, credentials: "same-origin", cache: "no-store",
      });
      if (response.ok) {
        const data = await response.json();
        if (typeof data.games_waiting === "number") show(data.games_waiting);
      } else if (response.status === 429) {
        const wait = Number(response.headers.get("Retry-After"));
        if (wait > 0) next = Math.max(POLL_MS, wait * 1000);
      }
    } catch (err) {
      // Offline, or the site is down: the count stays as it was; the next look may do better.
    } finally {
      inFlight = false;
    }
    if (askAgain) { askAgain = false; schedule(0); return; }
    schedule(next);
  }

  // The board page's script shows the title the server wrote for the new board: put the count
  // back in front of it.
  window.azulWaiting = {
    setTitle(title) {
      const match = document.title.match(COUNT_PREFIX);
      document.title = (match ? match[0] : "") + title;
    },
  };

  document.addEventListener("azul:game-changed", () => schedule(0));
  document.addEventListener("visibilitychange", () => {
    if (!document.hidden && Date.now() - lastAsked >= POLL_MS) schedule(0);
  });
  schedule(POLL_MS);
})();
