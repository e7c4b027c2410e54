"""Issue 58, "messages out of sight", in Chromium on a phone and a desktop, in English and
Korean: on the settings page a webhook address refused comes back as typed, its error beside the
field, which has the focus; the answers of the forms used next (the webhook added, the choices
per channel saved, the profile saved) sit beside their forms and take the focus, in view. And
the push panel says why a browser cannot turn notices on: no Web Push at all, notices blocked,
or a failure that passes. Each state is axe-clean (no moderate violation) and photographed."""

from __future__ import annotations

import pytest

from accounts.models import Profile
from notifications.management.commands.vapid_keys import key_pair
from notifications.models import Webhook
from tests.e2e.test_axe import MODERATE_IMPACTS, serious_violations
from tests.support.browser import DESKTOP, PHONE, signed_in
from tests.support.http_sink import HttpSink

pytestmark = [pytest.mark.e2e, pytest.mark.slow]

PUBLIC, PRIVATE = key_pair()
CASES = [("en", DESKTOP), ("ko", PHONE), ("en", PHONE), ("ko", DESKTOP)]
IDS = ["en-desktop", "ko-phone", "en-phone", "ko-desktop"]


@pytest.fixture(scope="module")
def axe():
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    return axe_module.Axe()


def open_settings(contexts, live_server, user, language, viewport, init_script=None):
    Profile.objects.filter(user=user).update(language=language)
    options: dict = {"locale": "ko-KR" if language == "ko" else "en-US", "viewport": viewport}
    if viewport == PHONE:
        options |= {"is_mobile": True, "has_touch": True}
    context = contexts(**options)
    if init_script:
        context.add_init_script(init_script)
    page = signed_in(context, live_server.url, user)
    page.set_default_timeout(15_000)
    page.goto(live_server.url + "/settings/")
    return page


def focused(page) -> dict:
    """The focused element: its id, and whether it is wholly in the viewport."""
    return page.evaluate(
        """() => {
          const el = document.activeElement;
          const box = el.getBoundingClientRect();
          return {id: el.id, inView: box.top >= 0 && box.bottom <= innerHeight, text: el.innerText};
        }"""
    )


def submit_by_keyboard(page, button_selector: str) -> None:
    page.locator(button_selector).focus()
    with page.expect_navigation():
        page.keyboard.press("Enter")


@pytest.mark.parametrize(("language", "viewport"), CASES, ids=IDS)
def test_the_settings_forms_answer_beside_themselves_with_the_focus(
    contexts, live_server, alice, axe, artifacts, settings, language, viewport
):
    settings.OUTBOUND_ALLOW_HTTP = True
    name = f"{language}-{'phone' if viewport == PHONE else 'desktop'}"
    page = open_settings(contexts, live_server, alice, language, viewport)
    found: list[str] = []

    # A private address, typed by keyboard, refused.
    page.locator("#webhook-name").fill("Team channel")
    page.locator("#webhook-url").fill("https://10.0.0.5:8443/private-hook")
    page.locator("#webhook-style").select_option("slack")
    submit_by_keyboard(page, "form[action$='/webhooks/add/'] button[type=submit]")

    now = focused(page)
    assert now["id"] == "webhook-url" and now["inView"], now
    url = page.locator("#webhook-url")
    assert url.input_value() == "https://10.0.0.5:8443/private-hook"
    assert page.locator("#webhook-name").input_value() == "Team channel"
    assert page.locator("#webhook-style").input_value() == "slack"
    assert url.get_attribute("aria-invalid") == "true"
    assert "webhook-url-error" in url.get_attribute("aria-describedby").split()
    error = page.locator("#webhook-url-error")
    assert error.is_visible() and error.inner_text()
    assert page.locator("main > ul.messages").count() == 0, "nothing at the top of the page"
    page.screenshot(path=str(artifacts / f"answers-refused-{name}.png"))
    found += serious_violations(axe, page, f"refused address ({name})", MODERATE_IMPACTS)

    # Mended to the sink, added: the answer in the new webhook's row, focused.
    with HttpSink() as sink:
        url.fill(sink.url + "/team-hook")
        submit_by_keyboard(page, "form[action$='/webhooks/add/'] button[type=submit]")
    hook = Webhook.objects.get(user=alice)
    now = focused(page)
    assert now["id"] == f"answer-webhook-{hook.pk}" and now["inView"], now
    assert page.locator(f"#webhook-{hook.pk} #answer-webhook-{hook.pk}").count() == 1
    assert page.locator("main > ul.messages").count() == 0
    page.screenshot(path=str(artifacts / f"answers-webhook-added-{name}.png"))
    found += serious_violations(axe, page, f"webhook added ({name})", MODERATE_IMPACTS)

    # The choices per channel, saved: the answer under their table.
    submit_by_keyboard(page, "#channel-choices button[type=submit]")
    now = focused(page)
    assert now["id"] == "answer-channel-choices" and now["inView"], now
    found += serious_violations(axe, page, f"choices saved ({name})", MODERATE_IMPACTS)

    # The profile, saved: the answer under its form.
    submit_by_keyboard(page, "#profile-settings form button[type=submit]")
    now = focused(page)
    assert now["id"] == "answer-profile" and now["inView"], now
    page.screenshot(path=str(artifacts / f"answers-profile-saved-{name}.png"))
    found += serious_violations(axe, page, f"profile saved ({name})", MODERATE_IMPACTS)

    assert not found, "\n".join(found)


# What each browser is made to lack or say, before the page's script runs.
NO_PUSH = "delete window.PushManager;"
BLOCKED = """
  window.Notification = { permission: "denied", requestPermission: async () => "denied" };
"""
FAILING = """
(() => {
  const failing = { getSubscription: async () => null,
    subscribe: async () => { throw new DOMException("push service down", "AbortError"); } };
  const registration = { pushManager: failing };
  Object.defineProperty(navigator, "serviceWorker", { value: {
    getRegistration: async () => registration, register: async () => registration,
    ready: Promise.resolve(registration) } });
  window.PushManager = function PushManager() {};
  window.Notification = { permission: "default", requestPermission: async () => "granted" };
})();
"""
SAYS = {
    "en": {
        "unsupported": "Safari 16.4",
        "blocked": "Notices are blocked for this site",
        "failed": "could not turn notices on just now",
    },
    "ko": {
        "unsupported": "Safari 16.4",
        "blocked": "이 사이트의 알림이 차단되어",
        "failed": "지금은 알림을 켜지 못했습니다",
    },
}


@pytest.mark.parametrize(("language", "viewport"), CASES[:2], ids=IDS[:2])
def test_the_push_panel_says_why_notices_cannot_be_turned_on(
    contexts, live_server, alice, axe, artifacts, settings, language, viewport
):
    settings.WEBPUSH_VAPID_PUBLIC_KEY = PUBLIC
    settings.WEBPUSH_VAPID_PRIVATE_KEY = PRIVATE
    settings.WEBPUSH_VAPID_SUBJECT = "mailto:contact@example.org"
    name = f"{language}-{'phone' if viewport == PHONE else 'desktop'}"
    says = SAYS[language]
    found: list[str] = []

    page = open_settings(contexts, live_server, alice, language, viewport, NO_PUSH)
    status = page.locator("#push-status")
    status.filter(has_text=says["unsupported"]).wait_for()
    assert "Chrome" in status.inner_text() and not page.locator("#push-subscribe").is_visible()
    status.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"push-unsupported-{name}.png"))
    found += serious_violations(axe, page, f"push unsupported ({name})", MODERATE_IMPACTS)

    page = open_settings(contexts, live_server, alice, language, viewport, BLOCKED)
    status = page.locator("#push-status")
    status.filter(has_text=says["blocked"]).wait_for()  # said on load, before any press
    page.locator("#push-subscribe").click()
    status.filter(has_text=says["blocked"]).wait_for()
    status.scroll_into_view_if_needed()
    page.screenshot(path=str(artifacts / f"push-blocked-{name}.png"))
    found += serious_violations(axe, page, f"push blocked ({name})", MODERATE_IMPACTS)

    page = open_settings(contexts, live_server, alice, language, viewport, FAILING)
    page.locator("#push-subscribe").click()
    status = page.locator("#push-status")
    status.filter(has_text=says["failed"]).wait_for()
    assert says["unsupported"] not in status.inner_text()
    found += serious_violations(axe, page, f"push failed ({name})", MODERATE_IMPACTS)

    assert not found, "\n".join(found)
