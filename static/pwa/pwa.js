// Every page: registers the site's service worker (/sw.js: static files and the offline page,
// push notices), and keeps the installed app's badge (the Badging API, where the browser has it)
// at the header's count of games waiting for the player's move (#games-waiting, which
// static/games/waiting.js keeps true while the page is open), cleared when none waits.
(function () {
  "use strict";

  const script = document.currentScript;
  const worker = script && script.dataset.sw;

  if (worker && "serviceWorker" in navigator) {
    navigator.serviceWorker.register(worker, { scope: "/" }).catch(() => {
      // No worker (a private window, a browser that refuses): the site works without one.
    });
  }

  if (!("setAppBadge" in navigator)) return;

  let shown = null;

  function count() {
    const badge = document.getElementById("games-waiting");
    const number = badge ? parseInt(badge.textContent, 10) : 0;
    return Number.isFinite(number) && number > 0 ? number : 0;
  }

  function showCount() {
    const now = count();
    if (now === shown) return;
    shown = now;
    const done = now > 0 ? navigator.setAppBadge(now) : navigator.clearAppBadge();
    done.catch(() => {
      // Not allowed (the site is not installed, or the page is not in front): nothing to show.
    });
  }

  function start() {
    showCount();
    const header = document.querySelector(".site-header");
    if (header) {
      new MutationObserver(showCount).observe(header, {
        childList: true, subtree: true, characterData: true,
      });
    }
  }

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
