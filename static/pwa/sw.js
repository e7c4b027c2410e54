// The site's service worker, served at /sw.js (azul_site/pwa.py, which fills CONFIG in: the
// version, the offline page's URL and the static files it needs, the notices' images).
//
// What it keeps: the static files and the offline page, nothing else. A page of a signed-in
// player, a game, the API: always from the network, never kept (they say whose turn it is and
// what a player may see; a copy could show a stale board, or one player's page to another
// account on the same device). A page that cannot be fetched shows the offline page instead.
//
// Push notices (notifications.push sends them; the payload is the "push payload" of
// notifications/messages.py: kind, title, body, url, game_id, turn_off_url, badge, and the
// button's words in turn_off_title): one notice per game (tagged with its id, a newer one
// replaces it), a click opens the game, the "Turn off" button turns that kind of notice off.
"use strict";

const CONFIG = {"version": "dev"};
const CACHE = "azul-" + CONFIG.version;
const CACHE_PREFIX = "azul-";
const STATIC = CONFIG.static || "/static/";
const OFFLINE = CONFIG.offline || "/offline/";

self.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    await cache.addAll(CONFIG.precache || [OFFLINE]);
    await self.skipWaiting();
  })());
});

self.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    // The caches of earlier versions (kept files whose URLs have changed since).
    for (const name of await caches.keys()) {
      if (name.startsWith(CACHE_PREFIX) && name !== CACHE) await caches.delete(name);
    }
    await self.clients.claim();
  })());
});

function sameOrigin(url) {
  return url.origin === self.location.origin;
}

// A static file: from the cache at once, refreshed from the network behind it (in production
// its URL carries its hash, so the copy is never wrong; in development it is at most one
// load behind).
async function staticFile(event) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(event.request);
  const fresh = fetch(event.request).then((response) => {
    if (response.ok && response.type === "basic") cache.put(event.request, response.clone());
    return response;
  });
  if (kept) {
    event.waitUntil(fresh.catch(() => undefined));
    return kept;
  }
  return fresh;
}

// The offline page is in the reader's language: when a page comes back in another language
// than the kept offline page's, fetch the offline page again.
async function offlineInLanguage(language) {
  if (!language) return;
  const cache = await caches.open(CACHE);
  const kept = await cache.match(OFFLINE);
  if (kept && kept.headers.get("Content-Language") === language) return;
  const response = await fetch(OFFLINE);
  if (response.ok) await cache.put(OFFLINE, response);
}

// A page: from the network only; if the network fails, the offline page.
async function page(event) {
  try {
    const response = await fetch(event.request);
    event.waitUntil(offlineInLanguage(response.headers.get("Content-Language")).catch(() => undefined));
    return response;
  } catch (error) {
    const offline = await caches.match(OFFLINE);
    if (offline) return offline;
    throw error;
  }
}

self.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET") return;
  const url = new URL(request.url);
  if (!sameOrigin(url)) return;
  if (request.mode === "navigate") {
    event.respondWith(page(event));
  } else if (url.pathname.startsWith(STATIC)) {
    event.respondWith(staticFile(event));
  }
  // Anything else (the API, the live updates, the manifest): the browser's own fetch, never kept.
});

// -- push notices -------------------------------------------------------------------------

// A link of this site, or the home page: a notice opens or posts to nothing else.
function ownUrl(value) {
  try {
    const url = new URL(value, self.location.origin);
    return sameOrigin(url) ? url.href : null;
  } catch (error) {
    return null;
  }
}

async function setBadge(count) {
  const navigator = self.navigator;
  if (typeof count !== "number" || !navigator || !("setAppBadge" in navigator)) return;
  try {
    if (count > 0) await navigator.setAppBadge(count);
    else await navigator.clearAppBadge();
  } catch (error) {
    // Not allowed here (no app installed): the notice matters, not the badge.
  }
}

function showPush(payload) {
  const turnOff = ownUrl(payload.turn_off_url);
  const options = {
    body: typeof payload.body === "string" ? payload.body : "",
    // One notice per game: a newer one about the same game replaces it, and says so again.
    tag: String(payload.game_id || payload.kind || "azul"),
    renotify: true,
    icon: CONFIG.icon,
    badge: CONFIG.badge,
    data: { url: ownUrl(payload.url) || self.location.origin + "/", turn_off_url: turnOff },
    actions: turnOff ? [{ action: "turn_off", title: payload.turn_off_title || "Turn off" }] : [],
  };
  return Promise.all([
    self.registration.showNotification(payload.title || "Azul", options),
    setBadge(payload.badge),
  ]);
}

self.addEventListener("push", (event) => {
  let payload = {};
  try {
    payload = event.data ? event.data.json() : {};
  } catch (error) {
    payload = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(showPush(payload || {}));
});

// Focus a window already showing `url`, or open one; where the browser will not open one (it
// allows it only right after a click on the notice), take a window of the site there.
async function openOrFocus(url) {
  const windows = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const target = new URL(url);
  for (const client of windows) {
    const at = new URL(client.url);
    if (at.origin === target.origin && at.pathname === target.pathname && "focus" in client) {
      try {
        return await client.focus();
      } catch (error) {
        return client;
      }
    }
  }
  try {
    const opened = await self.clients.openWindow(url);
    if (opened) return opened;
  } catch (error) {
    // Not allowed: fall through.
  }
  const ours = windows.find((client) => "navigate" in client && sameOrigin(new URL(client.url)));
  if (!ours) return null;
  const moved = await ours.navigate(url);
  try {
    if (moved) await moved.focus();
  } catch (error) {
    // Focus needs the click too; the window has the game all the same.
  }
  return moved;
}

// The one-click turn-off (RFC 8058): a POST to the signed link, which needs no session.
async function turnOff(url) {
  if (!url) return;
  await fetch(url, {
    method: "POST",
    credentials: "omit",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: "List-Unsubscribe=One-Click",
  });
}

// Kept on the worker's global for the browser tests, which have no way to click a notice.
self.azulNotificationClick = function (event) {
  const notification = event.notification;
  const data = notification.data || {};
  notification.close();
  const done = event.action === "turn_off"
    ? turnOff(data.turn_off_url)
    : openOrFocus(data.url || self.location.origin + "/");
  event.waitUntil(done);
  return done;
};

self.addEventListener("notificationclick", (event) => self.azulNotificationClick(event));
