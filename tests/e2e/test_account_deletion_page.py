"""The account deletion page's choice of what becomes of the chat messages (#59), in a browser:
no serious axe violation in English and Korean, on a desktop and a phone, and the choice made by
keyboard alone deletes the messages."""

import pytest

from chat.models import Message
from tests.e2e.test_axe import serious_violations
from tests.support.browser import DESKTOP, PHONE, page_for
from tests.support.factories import PASSWORD

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def axe():
    axe_module = pytest.importorskip("axe_playwright_python.sync_playwright")
    return axe_module.Axe()


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_the_page_has_no_serious_violation(
    browser, axe, live_server, alice, artifacts, language, viewport
):
    page = page_for(
        browser,
        live_server.url,
        alice,
        DESKTOP if viewport == "desktop" else PHONE,
        phone=viewport == "phone",
    )
    page.context.add_cookies(
        [{"name": "django_language", "value": language, "url": live_server.url}]
    )
    page.goto(live_server.url + "/settings/delete/")

    assert page.locator("html").get_attribute("lang") == language
    page.screenshot(path=artifacts / f"delete-account-{language}-{viewport}.png", full_page=True)
    assert not serious_violations(axe, page, f"delete account, {language}, {viewport}")


def test_removing_the_messages_by_keyboard(browser, live_server, start_game, alice, bob):
    game = start_game(alice, bob)
    Message.objects.create(game=game, author=alice, text="so long", ply=game.ply)
    page = page_for(browser, live_server.url, alice, DESKTOP)
    page.goto(live_server.url + "/settings/delete/")

    keep = page.get_by_role("radio", name="Keep them in their games")
    assert keep.is_checked()
    keep.focus()
    page.keyboard.press("ArrowDown")  # the group's next choice, as a screen reader user moves
    assert page.get_by_role("radio", name="Remove them from every game's chat").is_checked()
    page.get_by_label("Your password").fill(PASSWORD)
    page.get_by_label("Your password").press("Enter")
    page.wait_for_url(live_server.url + "/")

    assert not Message.objects.filter(author=alice).exists()
