"""The settings page's push panel in Chromium: its script shows this device's button, the page is
axe-clean (no serious violation) in English and Korean on a phone, the devices are removed and
the choices per channel saved by keyboard alone (forms, no script needed), under the strict CSP
(a blocked script or style would be reported)."""

import json

import pytest
from django.test import override_settings

from notifications.management.commands.vapid_keys import key_pair
from notifications.models import PushSubscription
from notifications.push import selectors as push_selectors
from notifications.push import services as devices
from tests.e2e.test_axe import serious_violations
from tests.support.browser import PHONE, page_for
from tests.support.push_service import Browser

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PUBLIC, PRIVATE = key_pair()


@pytest.fixture(scope="module")
def axe():
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    return axe_module.Axe()


def add_device(user, name):
    browser = Browser()
    devices.subscription_save(
        user_id=user.pk,
        endpoint=f"https://push.example.net/{name}",
        p256dh=browser.p256dh,
        auth=browser.auth,
        name=name,
    )


@pytest.mark.parametrize("language", ["en", "ko"])
@override_settings(
    WEBPUSH_VAPID_PUBLIC_KEY=PUBLIC,
    WEBPUSH_VAPID_PRIVATE_KEY=PRIVATE,
    WEBPUSH_VAPID_SUBJECT="mailto:contact@example.org",
)
def test_the_push_panel_by_keyboard_on_a_phone(browser, axe, live_server, alice, language):
    alice.profile.language = language
    alice.profile.save()
    add_device(alice, "Phone")
    add_device(alice, "Laptop")
    page = page_for(browser, live_server.url, alice, PHONE, phone=True)
    page.context.set_extra_http_headers({"Accept-Language": language})
    console = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)

    page.goto(live_server.url + "/settings/#push-settings")

    button = page.locator("#push-subscribe")
    button.wait_for(state="visible")  # shown by static/notifications/push.js
    found = serious_violations(axe, page, f"settings with devices ({language})")
    assert not found, "\n".join(found)

    # The choices: untick "your turn" for devices by keyboard, save with Enter.
    box = page.locator("#push-your_turn")
    box.focus()
    page.keyboard.press("Space")
    page.locator("#channel-choices button[type=submit]").focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert "your_turn" not in push_selectors.all_choices(user_id=alice.pk)["push"]
    assert not page.locator("#push-your_turn").is_checked()

    # Remove the first device by keyboard.
    page.locator("#push-devices button[type=submit]").first.focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")
    assert list(PushSubscription.objects.values_list("name", flat=True)) == ["Laptop"]
    assert page.locator("#push-devices li").count() == 1
    assert not [line for line in console if "Content Security Policy" in line], console
    page.context.close()


# The browser's Push API, faked (Chromium's own needs its vendor's push service): hands out the
# subscriptions in `SUBSCRIPTIONS` in turn, and notes what the page asked of it.
FAKE_PUSH = """
(() => {
  const handed = %s;
  let current = null;
  let next = 0;
  window.__push = { unsubscribed: 0, options: null };
  const pushManager = {
    getSubscription: async () => current,
    subscribe: async (options) => {
      window.__push.options = {
        userVisibleOnly: options.userVisibleOnly,
        keyLength: options.applicationServerKey.length,
      };
      const json = handed[next++];
      current = {
        endpoint: json.endpoint,
        toJSON: () => json,
        unsubscribe: async () => { current = null; window.__push.unsubscribed += 1; return true; },
      };
      return current;
    },
  };
  const registration = { pushManager };
  Object.defineProperty(navigator, "serviceWorker", {
    value: {
      getRegistration: async () => registration,
      register: async () => registration,
      ready: Promise.resolve(registration),
    },
  });
  window.PushManager = function PushManager() {};
  window.Notification = { permission: "default", requestPermission: async () => "granted" };
})();
"""


@override_settings(
    WEBPUSH_VAPID_PUBLIC_KEY=PUBLIC,
    WEBPUSH_VAPID_PRIVATE_KEY=PRIVATE,
    WEBPUSH_VAPID_SUBJECT="mailto:contact@example.org",
)
def test_the_button_subscribes_and_asks_anew_for_another_accounts_endpoint(
    browser, live_server, alice, bob
):
    taken, fresh = Browser(), Browser()
    shared = "https://push.example.net/shared-browser"
    devices.subscription_save(
        user_id=bob.pk, endpoint=shared, p256dh=taken.p256dh, auth=taken.auth, name="Bob's"
    )
    handed = [
        {"endpoint": shared, "keys": {"p256dh": taken.p256dh, "auth": taken.auth}},
        {
            "endpoint": "https://push.example.net/new-one",
            "keys": {"p256dh": fresh.p256dh, "auth": fresh.auth},
        },
    ]
    page = page_for(browser, live_server.url, alice, PHONE, phone=True)
    page.add_init_script(FAKE_PUSH % json.dumps(handed))
    page.goto(live_server.url + "/settings/#push-settings")

    page.locator("#push-device-name").fill("Kitchen tablet")
    page.locator("#push-subscribe").click()

    status = page.locator("#push-status")
    status.filter(has_text="Notices are on for this device.").wait_for()
    assert page.evaluate("window.__push") == {
        "unsubscribed": 1,  # the endpoint was bob's: the browser was asked for a new one
        "options": {"userVisibleOnly": True, "keyLength": 65},
    }
    [mine] = PushSubscription.objects.filter(user=alice)
    assert (mine.endpoint, mine.name, mine.p256dh) == (
        "https://push.example.net/new-one",
        "Kitchen tablet",
        fresh.p256dh,
    )
    assert PushSubscription.objects.get(endpoint=shared).user_id == bob.pk
    assert page.locator("#push-devices li", has_text="Kitchen tablet").count() == 1
    page.context.close()
