// "Turn on notices on this device" on the settings page (templates/notifications/_push_settings.html):
// asks the browser's permission, subscribes it to push through the site's service worker (/sw.js,
// which shows the notices) with the site's VAPID key, and posts the subscription to the API. An
// endpoint that another account holds (a shared browser) is refused by the site: the browser is
// then asked for a new subscription, once.
(function () {
  "use strict";
  const box = document.getElementById("push-this-device");
  if (!box) return;
  const button = document.getElementById("push-subscribe");
  const status = document.getElementById("push-status");
  const nameInput = document.getElementById("push-device-name");
  // The page's catalog (jsi18n) when it loaded; the English otherwise.
  const gettext = window.gettext || ((s) => s);
  box.hidden = false;

  function say(text) {
    status.textContent = text;
  }

  // Three cases a player can act on differently: a browser without Web Push (another browser
  // would do), notices the player blocked for the site (the browser's settings allow them
  // again), and a failure that passes (try again later).
  const UNSUPPORTED = gettext("This browser cannot get notices from the site. They work in current Chrome, Edge and Firefox on computers and Android phones, and in Safari 16.4 or later on an iPhone or iPad once the site is added to the home screen (Share, then Add to Home Screen).");
  const BLOCKED = gettext("Notices are blocked for this site in this browser. To allow them, open the site's settings (the icon left of the address), set Notifications to Allow, then press the button again.");
  const DISMISSED = gettext("You did not allow notices. Press the button to be asked again.");
  const FAILED = gettext("The browser could not turn notices on just now. Try again in a few minutes.");

  if (!("serviceWorker" in navigator) || !("PushManager" in window) || !("Notification" in window)) {
    button.hidden = true;
    nameInput.parentElement.hidden = true;
    say(UNSUPPORTED);
    return;
  }
  if (Notification.permission === "denied") say(BLOCKED);

  function guessName() {
    const ua = navigator.userAgent;
    const browser = /Edg\//.test(ua) ? "Edge" : /Firefox\//.test(ua) ? "Firefox"
      : /Chrome\//.test(ua) ? "Chrome" : /Safari\//.test(ua) ? "Safari" : "";
    const system = /Android/.test(ua) ? "Android" : /iPhone|iPad/.test(ua) ? "iOS"
      : /Mac OS X/.test(ua) ? "macOS" : /Windows/.test(ua) ? "Windows" : /Linux/.test(ua) ? "Linux" : "";
    return [browser, system].filter(Boolean).join(" / ");
  }
  if (!nameInput.value) nameInput.value = guessName().slice(0, 60);

  function csrfToken() {
    const input = box.querySelector("input[name=csrfmiddlewaretoken]");
    return input ? input.value : "";
  }

  function keyBytes(base64url) {
    const padded = base64url.replace(/-/g, "+").replace(/_/g, "/") + "===".slice((base64url.length + 3) % 4);
    const raw = atob(padded);
    return Uint8Array.from(raw, (c) => c.charCodeAt(0));
  }

  async function registration() {
    // The worker is registered by the site's pages (the installable app); registered here too
    // in case this page came first. The same script again is no change.
    if (!(await navigator.serviceWorker.getRegistration("/"))) {
      await navigator.serviceWorker.register("/sw.js");
    }
    return navigator.serviceWorker.ready;
  }

  async function send(subscription) {
    const json = subscription.toJSON();
    return fetch(box.dataset.apiUrl, {
      method: "POST",
      credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      body: JSON.stringify({ endpoint: json.endpoint, keys: json.keys, name: nameInput.value.trim() }),
    });
  }

  async function detail(response) {
    try {
      const body = await response.json();
      return body.detail || "";
    } catch (e) {
      return "";
    }
  }

  function listed(name) {
    let list = document.getElementById("push-devices");
    const empty = document.getElementById("push-no-devices");
    if (!list) {
      list = document.createElement("ul");
      list.id = "push-devices";
      list.className = "push-devices";
      (empty || box).after(list);
    }
    if (empty) empty.remove();
    const item = document.createElement("li");
    const strong = document.createElement("strong");
    strong.textContent = name || gettext("Unnamed device");
    const meta = document.createElement("span");
    meta.className = "meta";
    meta.textContent = " " + gettext("added just now");
    item.append(strong, meta);
    list.appendChild(item);
  }

  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      const permission = await Notification.requestPermission();
      if (permission !== "granted") {
        say(permission === "denied" ? BLOCKED : DISMISSED);
        return;
      }
      say(gettext("Turning notices on…"));
      const reg = await registration();
      const options = { userVisibleOnly: true, applicationServerKey: keyBytes(box.dataset.publicKey) };
      let subscription = await reg.pushManager.getSubscription();
      if (!subscription) subscription = await reg.pushManager.subscribe(options);
      let response = await send(subscription);
      if (response.status === 409) {
        // Another account's subscription: a new one for this account.
        await subscription.unsubscribe();
        subscription = await reg.pushManager.subscribe(options);
        response = await send(subscription);
      }
      if (response.status === 201) {
        listed(nameInput.value.trim());
        say(gettext("Notices are on for this device."));
      } else if (response.status === 200) {
        say(gettext("Notices are on for this device."));
      } else {
        say((await detail(response)) || gettext("The site could not turn notices on. Try again later."));
      }
    } catch (e) {
      // A refusal of the permission shows as NotAllowedError, a browser that has the API but
      // no push service (some private windows) as NotSupportedError; anything else passes.
      const name = e && e.name;
      say(name === "NotAllowedError" ? BLOCKED : name === "NotSupportedError" ? UNSUPPORTED : FAILED);
    } finally {
      button.disabled = false;
    }
  });

  // Say so when this device gets notices already.
  navigator.serviceWorker.getRegistration("/").then((reg) => reg && reg.pushManager.getSubscription()).then((subscription) => {
    if (!subscription) return;
    const items = document.querySelectorAll("#push-devices li[data-endpoint]");
    if (Array.from(items).some((li) => li.dataset.endpoint === subscription.endpoint)) {
      say(gettext("This device gets notices."));
    }
  }).catch(() => {});
})();
