"""The calendar feed's panel on the settings page in a real browser (issue #35): no serious axe
violation in English and Korean, on a desktop and a phone; the address made, copied and made
anew by keyboard alone, under the strict CSP; the old address 404 at once, the new one a
calendar."""

import pytest
from django.conf import settings

from games.models import CalendarFeed
from games.services.players import calendar_feed_renew
from tests.e2e.test_axe import serious_violations
from tests.support.browser import DESKTOP, PHONE, signed_in
from tests.support.factories import start_game
from tests.support.play import waiting_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def axe():
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    return axe_module.Axe()


@pytest.mark.parametrize(
    ("language", "viewport"), [("en", "desktop"), ("ko", "phone")], ids=["en-desktop", "ko-phone"]
)
def test_the_panel_is_accessible_and_works_by_keyboard(
    browser, axe, live_server, alice, bob, language, viewport
):
    waiting_for(start_game(alice, bob), alice)
    base = live_server.url
    options: dict = {
        "locale": "ko-KR" if language == "ko" else "en-US",
        "permissions": ["clipboard-read", "clipboard-write"],
    }
    options |= (
        {"viewport": PHONE, "is_mobile": True, "has_touch": True}
        if viewport == "phone"
        else {"viewport": DESKTOP}
    )
    context = browser.new_context(**options)
    errors: list[str] = []
    page = signed_in(context, base, alice)
    page.on("console", lambda m: m.type == "error" and errors.append(m.text))

    page.goto(base + "/settings/")
    assert serious_violations(axe, page, "settings, no calendar address") == []
    # Made by keyboard: the panel's one button.
    page.focus("#calendar-feed button[type=submit]")
    page.keyboard.press("Enter")
    page.wait_for_selector("#calendar-feed-url")
    first = CalendarFeed.objects.get(user=alice).token
    address = page.input_value("#calendar-feed-url")
    assert address == settings.SITE_URL + f"/calendar/{first}.ics"
    assert serious_violations(axe, page, "settings, with a calendar address") == []

    # The copy button shows only with the script, and says what it did in a live region.
    copy = page.locator("#calendar-feed-copy")
    assert copy.is_visible()
    copy.focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "() => document.getElementById('calendar-feed-copy-status').textContent !== ''"
    )
    assert page.evaluate("navigator.clipboard.readText()") == address

    feed = page.request.get(f"{base}/calendar/{first}.ics")
    assert feed.status == 200
    assert feed.headers["content-type"] == "text/calendar; charset=utf-8"
    assert "BEGIN:VEVENT" in feed.text()

    page.locator("#calendar-feed form").first.locator("button").focus()
    page.keyboard.press("Enter")
    page.wait_for_function(
        "old => document.getElementById('calendar-feed-url').value.indexOf(old) === -1",
        arg=first,
    )
    second = CalendarFeed.objects.get(user=alice).token
    assert second != first
    assert page.request.get(f"{base}/calendar/{first}.ics").status == 404
    assert page.request.get(f"{base}/calendar/{second}.ics").status == 200
    assert not errors
    context.close()


def test_a_subscribed_calendar_reads_only_with_the_token(browser, live_server, alice, bob):
    waiting_for(start_game(alice, bob), alice)
    token = calendar_feed_renew(user=alice).token
    base = live_server.url
    context = browser.new_context()
    # No session: a calendar app's request.
    answer = context.request.get(f"{base}/calendar/{token}.ics")
    assert answer.status == 200 and "Your move in Azul against bob" in answer.text()
    again = context.request.get(
        f"{base}/calendar/{token}.ics", headers={"If-None-Match": answer.headers["etag"]}
    )
    assert again.status == 304
    assert context.request.get(f"{base}/calendar/{'c' * 43}.ics").status == 404
    context.close()
