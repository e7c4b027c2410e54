// Every page of a signed-in player: the count of games waiting for their move and invitations
// waiting for their answer, in the title ("(2) ...") and beside "My games" (a link to the next
// game waiting, or to the invitations when only they wait), kept true while the page stays open, in the background too
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

  function showBadge(count, games, invitations) {
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
      node.id = "games-waiting";
      link.after(" ", node);
    }
    const invited = invitations > 0;
    node.href = games > 0 ? (script.dataset.next || script.dataset.myGames) : (script.dataset.invitations || script.dataset.myGames);
    node.title = (invited ? script.dataset.invitedTitle : script.dataset.badgeTitle) || "";
    // The number, then what it counts for screen readers (as the server writes it).
    const label = document.createElement("span");
    label.className = "visually-hidden";
    label.textContent = " " + ((invited ? script.dataset.invitedLabel : script.dataset.badgeLabel) || "");
    node.replaceChildren(String(count), label);
  }

  function show(games, invitations) {
    const count = games + invitations;
    showTitle(count);
    showBadge(count, games, invitations);
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
        if (typeof data.games_waiting === "number") {
          show(data.games_waiting, typeof data.invitations_waiting === "number" ? data.invitations_waiting : 0);
        }
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
