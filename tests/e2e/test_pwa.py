"""The installable app in Chromium (azul_site/pwa.py, static/pwa/): Chromium finds the site
installable; the service worker controls the pages, keeps the static files and the offline page
and nothing of a signed-in player, and shows the offline page when the network is gone; a push
message (the contract's payload, delivered through the DevTools protocol as a push service
would) shows its notice; the notice's click opens the game and its "Turn off" button turns the
kind off on the server; the app's badge follows the header's count."""

import json
import shutil
import time
from collections.abc import Callable
from urllib.parse import urlsplit

import pytest

from notifications import selectors
from notifications.messages import short_message
from notifications.models import Channel, Notification
from tests.e2e.test_axe import serious_violations
from tests.support.browser import DESKTOP, PHONE, signed_in
from tests.support.play import waiting_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

CACHED = """async () => {
  const found = [];
  for (const name of await caches.keys()) {
    const cache = await caches.open(name);
    for (const request of await cache.keys()) {
      const body = await (await cache.match(request)).text();
      found.push({cache: name, url: request.url, body});
    }
  }
  return found;
}"""

NOTIFICATIONS = """async () => {
  const registration = await navigator.serviceWorker.ready;
  return (await registration.getNotifications()).map((n) => ({
    title: n.title, body: n.body, tag: n.tag, data: n.data, icon: n.icon, badge: n.badge,
    actions: n.actions.map((a) => ({action: a.action, title: a.title})),
  }));
}"""

# The worker's click handler, called as the browser calls it, with the notice the push showed.
CLICK = """async ([tag, action]) => {
  const [notification] = await self.registration.getNotifications({tag});
  if (!notification) throw new Error("no notice tagged " + tag);
  const pending = [];
  const event = {notification, action, waitUntil: (promise) => pending.push(promise)};
  self.azulNotificationClick(event);
  await Promise.all(pending);
  return true;
}"""


def controlled(page) -> None:
    """Wait until the site's service worker controls `page`."""
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")


def a_page_with_the_worker(context, base: str, user):
    page = signed_in(context, base, user)
    page.goto(base + "/")
    controlled(page)
    return page


def worker_of(context):
    return (
        context.service_workers[0]
        if context.service_workers
        else context.wait_for_event("serviceworker")
    )


@pytest.fixture
def profile_context(browser, tmp_path):
    """A context with a profile on disk, as a person's browser has: Chromium offers to install
    nothing from an incognito context (`new_context`'s kind)."""
    context = browser.browser_type.launch_persistent_context(
        tmp_path / "profile",
        executable_path=shutil.which("chromium"),
        args=["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run"],
        viewport={"width": 1280, "height": 900},
    )
    yield context
    context.close()


def test_chromium_finds_the_site_installable_and_its_icons_load(
    live_server, profile_context, alice
):
    base = live_server.url
    context = profile_context
    page = a_page_with_the_worker(context, base, alice)
    cdp = context.new_cdp_session(page)
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == base + "/manifest.webmanifest"
    assert manifest["errors"] == []
    sizes = page.evaluate(
        """async (url) => {
          const manifest = await (await fetch(url)).json();
          const sizes = [];
          for (const icon of manifest.icons) {
            const image = new Image();
            image.src = icon.src;
            await image.decode();
            sizes.push([icon.sizes, icon.purpose, image.naturalWidth, image.naturalHeight]);
          }
          return sizes;
        }""",
        "/manifest.webmanifest",
    )
    assert len(sizes) == 4
    for declared, _purpose, width, height in sizes:
        assert declared == f"{width}x{height}"


def test_the_worker_keeps_nothing_of_a_signed_in_player_and_shows_the_offline_page(
    live_server, contexts, alice, bob, start_game
):
    base = live_server.url
    game = waiting_for(start_game(alice, bob), alice)
    context = contexts()
    page = a_page_with_the_worker(context, base, alice)
    # Pages seen while the worker controls them: the player's home, their game, the API.
    page.goto(f"{base}/games/{game.id}/")
    assert page.evaluate("fetch('/api/games/waiting/').then((r) => r.status)") == 200
    page.goto(base + "/rules/")
    page.wait_for_load_state("networkidle")

    kept = page.evaluate(CACHED)
    assert kept, "the worker kept nothing, not even the offline page"
    assert {entry["cache"] for entry in kept} == {kept[0]["cache"]}
    assert kept[0]["cache"].startswith("azul-")
    paths = {urlsplit(entry["url"]).path for entry in kept}
    assert "/offline/" in paths and "/static/css/site.css" in paths
    assert all(path == "/offline/" or path.startswith("/static/") for path in paths), paths
    for entry in kept:
        assert "alice" not in entry["body"].lower(), entry["url"]
        assert str(game.id) not in entry["body"], entry["url"]

    context.set_offline(True)
    try:
        page.goto(f"{base}/games/{game.id}/")
        assert page.locator("h1").inner_text() == "You are offline"
        assert page.url == f"{base}/games/{game.id}/"
        # The kept stylesheet styles it.
        assert (
            page.evaluate(
                "getComputedStyle(document.querySelector('.site-header')).backgroundColor"
            )
            == "rgb(29, 36, 51)"
        )
    finally:
        context.set_offline(False)
    page.goto(f"{base}/games/{game.id}/")
    assert page.locator("#game").count() == 1


def shown_when(page, condition: Callable[[list[dict]], bool], seconds: float = 10) -> list[dict]:
    """The notices the worker shows (as NOTIFICATIONS lists them), read until they meet
    `condition` (`seconds` at most). Polled from here: `wait_for_function` does not wait for an
    async predicate's answer (its promise counts as true at once)."""
    deadline = time.monotonic() + seconds
    while True:
        notices = page.evaluate(NOTIFICATIONS)
        if condition(notices):
            return notices
        if time.monotonic() > deadline:
            raise AssertionError(f"the notices never met the condition: {notices}")
        page.wait_for_timeout(50)


def delivered(
    push: Callable[[dict], None],
    data: dict,
    page,
    condition: Callable[[list[dict]], bool],
    attempts: int = 3,
) -> list[dict]:
    """Push `data` until the worker's notices meet `condition`: the notices. Delivered again
    when it does not show within 5 seconds: under load, DevTools' push to a worker that is idle
    (just started, or left so by a navigation) was seen to be dropped, which a real push service
    would retry. A push about the same game replaces its notice, so a second delivery shows
    the same."""
    for _ in range(attempts - 1):
        push(data)
        try:
            return shown_when(page, condition, seconds=5)
        except AssertionError:
            pass
    push(data)
    return shown_when(page, condition, seconds=5)


def registration_id(page, cdp, base: str) -> str:
    """The worker's registration id, which the DevTools protocol names in its events."""
    seen: list[dict] = []
    cdp.on(
        "ServiceWorker.workerRegistrationUpdated", lambda event: seen.extend(event["registrations"])
    )
    cdp.send("ServiceWorker.enable")
    for _ in range(50):
        for registration in seen:
            if registration["scopeURL"] == base + "/" and not registration["isDeleted"]:
                return registration["registrationId"]
        page.wait_for_timeout(100)
    raise AssertionError(f"no registration for {base}/ in {seen}")


def test_a_push_shows_its_notice_whose_click_opens_the_game_and_whose_button_turns_it_off(
    live_server, contexts, settings, alice, bob, start_game
):
    base = live_server.url
    settings.SITE_URL = base  # the links a notice carries are absolute, to this server
    game = waiting_for(start_game(alice, bob), alice)
    notification = Notification.objects.create(
        recipient=alice, kind=Notification.Kind.YOUR_TURN, game=game, ply=game.ply + 1000
    )
    notification = Notification.objects.select_related("recipient__profile").get(pk=notification.pk)
    payload = short_message(notification, channel=Channel.PUSH).as_dict() | {"badge": 1}
    assert payload["url"] == f"{base}/games/{game.id}/"

    context = contexts()
    context.grant_permissions(["notifications"], origin=base)
    page = a_page_with_the_worker(context, base, alice)
    cdp = context.new_cdp_session(page)
    registration = registration_id(page, cdp, base)

    def push(data: dict) -> None:
        cdp.send(
            "ServiceWorker.deliverPushMessage",
            {"origin": base, "registrationId": registration, "data": json.dumps(data)},
        )

    [shown] = delivered(push, payload, page, lambda notices: len(notices) == 1)
    assert shown["title"] == payload["title"] == "Azul"
    assert shown["body"] == payload["body"] and shown["body"]
    assert shown["tag"] == str(game.id)
    assert shown["data"]["url"] == payload["url"]
    assert shown["icon"] == base + "/static/pwa/icon-192.png"
    assert shown["badge"] == base + "/static/pwa/badge-96.png"
    assert shown["actions"] == [{"action": "turn_off", "title": "Turn off"}]

    # A second push about the same game replaces the notice: one per game.
    again_payload = payload | {"body": "Again", "turn_off_title": "끄기"}
    [again] = delivered(
        push, again_payload, page, lambda notices: [n["body"] for n in notices] == ["Again"]
    )
    assert again["actions"] == [{"action": "turn_off", "title": "끄기"}]

    # The click: the game opens.
    worker = worker_of(context)
    assert worker.evaluate(CLICK, [str(game.id), ""]) is True
    page.wait_for_url(f"{base}/games/{game.id}/")
    assert page.locator("#game").count() == 1

    # The button: the kind is turned off for push, on the server, by the signed link alone.
    delivered(push, payload, page, lambda notices: len(notices) > 0)
    assert not selectors.unsubscribed_from(
        player=alice, kind=notification.kind, channel=Channel.PUSH
    )
    # (A GET of the link changes nothing: only its POST turns the kind off.)
    assert worker.evaluate(CLICK, [str(game.id), "turn_off"]) is True
    assert selectors.unsubscribed_from(player=alice, kind=notification.kind, channel=Channel.PUSH)
    assert not selectors.unsubscribed_from(
        player=alice, kind=notification.kind, channel=Channel.EMAIL
    )
    assert page.url == f"{base}/games/{game.id}/"  # the button opens nothing


BADGE_SPY = """
window.badges = [];
navigator.setAppBadge = (count) => { window.badges.push(count); return Promise.resolve(); };
navigator.clearAppBadge = () => { window.badges.push(0); return Promise.resolve(); };
"""


def test_the_app_badge_follows_the_headers_count_of_games_waiting(
    live_server, contexts, alice, bob, start_game
):
    """The Badging API is the browser's: spied on here, to see what the page asks of it."""
    base = live_server.url
    context = contexts()
    context.add_init_script(BADGE_SPY)
    page = signed_in(context, base, alice)
    page.goto(base + "/")
    page.wait_for_load_state("load")
    assert page.evaluate("window.badges") == [0]  # none waits: cleared
    waiting_for(start_game(alice, bob), alice)
    waiting_for(start_game(alice, bob), alice)
    page.goto(base + "/")
    page.wait_for_function("() => window.badges.length > 0")
    assert page.locator("#games-waiting").count() == 1
    assert page.evaluate("window.badges") == [2]


@pytest.mark.parametrize(
    ("language", "title"), [("en", "You are offline"), ("ko", "오프라인 상태입니다")]
)
def test_the_offline_page_has_no_serious_accessibility_violation(
    browser, live_server, contexts, language, title
):
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    context = contexts(
        locale="ko-KR" if language == "ko" else "en-US",
        viewport=PHONE if language == "ko" else DESKTOP,
    )
    page = context.new_page()
    page.goto(live_server.url + "/")
    controlled(page)
    context.set_offline(True)
    try:
        page.goto(live_server.url + "/lobby/")
        assert page.locator("h1").inner_text() == title
        assert page.locator("html").get_attribute("lang") == language
        assert serious_violations(axe_module.Axe(), page, f"offline, {language}") == []
    finally:
        context.set_offline(False)


def test_the_kept_offline_page_follows_the_readers_language(live_server, contexts, settings):
    base = live_server.url
    context = contexts(locale="en-US")
    page = context.new_page()
    page.goto(base + "/")
    controlled(page)
    # The reader switches to Korean: the next page comes in Korean, and so will the offline page.
    context.add_cookies([{"name": settings.LANGUAGE_COOKIE_NAME, "value": "ko", "url": base}])
    page.goto(base + "/rules/")
    assert page.locator("html").get_attribute("lang") == "ko"
    korean_kept = (
        "async () => { const kept = await caches.match('/offline/');"
        " return !!kept && (await kept.text()).includes('오프라인'); }"
    )
    deadline = time.monotonic() + 10
    while not page.evaluate(korean_kept):  # (evaluate waits for the promise; polled here)
        assert time.monotonic() < deadline, "the offline page was not kept in Korean"
        page.wait_for_timeout(50)
    context.set_offline(True)
    try:
        page.goto(base + "/lobby/")
        assert page.locator("h1").inner_text() == "오프라인 상태입니다"
    finally:
        context.set_offline(False)
