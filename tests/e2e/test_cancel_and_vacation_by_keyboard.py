"""Around the game by keyboard, on a phone's screen (issue #29): the creator cancels a game
waiting for players through its confirmation page, and a player ends a vacation early from the
settings page, with Tab and Enter only (no script's dialog in the way)."""

import pytest

from games.models import Game
from tests.support.browser import PHONE, page_for
from tests.support.factories import invite_game

pytestmark = [pytest.mark.e2e]


def press_on(page, selector: str, *, limit: int = 80) -> None:
    """Tab until `selector` has the focus, then press Enter on it."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate(f"document.activeElement.matches({selector!r})"):
            page.keyboard.press("Enter")
            return
    raise AssertionError(f"{selector} never got the focus")


def test_cancel_a_waiting_game_by_keyboard(browser, live_server, alice, bob, artifacts):
    game = invite_game(alice, bob)
    page = page_for(browser, live_server.url, alice, PHONE, phone=True)
    page.goto(f"{live_server.url}/games/{game.id}/")
    assert page.locator("text=Waiting for an answer").count() == 1
    assert page.locator("text=Seats waiting for your choice").count() == 0
    page.screenshot(path=str(artifacts / "waiting-for-an-answer-phone.png"), full_page=True)

    press_on(page, "#cancel-button")
    page.wait_for_selector("#cancel-confirm")
    page.screenshot(path=str(artifacts / "cancel-confirm-phone.png"), full_page=True)
    box = page.locator("#cancel-confirm").bounding_box()
    assert box is not None and box["height"] >= 24 and box["width"] >= 24
    assert Game.objects.get(pk=game.pk).status == "open"

    press_on(page, "#cancel-confirm")
    page.wait_for_url(f"{live_server.url}/games/")
    assert Game.objects.get(pk=game.pk).status == "aborted"


def test_end_a_vacation_by_keyboard(browser, live_server, alice, artifacts):
    page = page_for(browser, live_server.url, alice, PHONE, phone=True)
    page.goto(f"{live_server.url}/settings/")
    page.fill("#id_days", "4")
    page.locator("#vacation button[type=submit]").click()
    page.wait_for_selector("#vacation-end")
    assert "10 vacation days left" in page.locator("#vacation").text_content()

    press_on(page, "#vacation-end")
    page.wait_for_selector("#vacation form[action$='/settings/vacation/'] #id_days")
    page.locator("#vacation").screenshot(path=str(artifacts / "vacation-ended-phone.png"))
    # Ended at once: the days not taken (all 4, less the day begun) are back.
    assert "13 vacation days left" in page.locator("#vacation").text_content()
