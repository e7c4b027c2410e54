"""On a phone (390x844): the header is one row whose links open from a menu button, no page
scrolls sideways, and the board's first tile is in the first screen."""

import pytest

from tests.support.browser import PHONE, page_for
from tests.support.urls import board_url

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def no_sideways_scroll(page) -> bool:
    return page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")


def test_the_board_fits_a_phone_below_a_one_row_header(
    browser, live_server, start_game, alice, bob, artifacts
):
    game = start_game(alice, bob)
    page = page_for(browser, live_server.url, alice, PHONE, phone=True)
    page.goto(live_server.url + board_url(game))
    page.screenshot(path=str(artifacts / "phone-board.png"))
    header = page.locator(".site-header").bounding_box()
    assert header["height"] <= 64  # one row, not three
    tile = page.locator(".factories .tile").first.bounding_box()
    assert tile["y"] + tile["height"] <= PHONE["height"]
    assert no_sideways_scroll(page)

    # The links are one tap away, and the menu works by keyboard too.
    menu = page.locator(".nav-menu > summary")
    assert menu.is_visible()
    box = menu.bounding_box()
    assert box["width"] >= 24 and box["height"] >= 24
    lobby = page.get_by_role("link", name="Lobby")
    assert not lobby.is_visible()
    menu.focus()
    page.keyboard.press("Enter")
    assert lobby.is_visible()
    assert no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / "phone-menu.png"))
    lobby.click()
    page.wait_for_url("**/lobby/")
    assert no_sideways_scroll(page)


def test_the_replay_shows_its_board_in_the_first_screen(
    browser, live_server, start_game, alice, bob, artifacts
):
    from tests.support.play import play_to_end

    game = play_to_end(start_game(alice, bob))
    page = page_for(browser, live_server.url, alice, PHONE, phone=True)
    page.goto(f"{live_server.url}/games/{game.id}/replay/?ply=3")
    tile = page.locator(".factories .tile").first.bounding_box()
    assert tile["y"] + tile["height"] <= PHONE["height"]
    assert no_sideways_scroll(page)
    page.screenshot(path=str(artifacts / "phone-replay.png"))
