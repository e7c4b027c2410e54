"""In a real browser: the arrow keys and the buttons step through a replay (tests/games/record
has the rest of the replay's tests), the address follows so that a point can be linked to, and
the browser's back button returns to the point before."""

import contextlib
import re

import pytest
from playwright.sync_api import Error as PlaywrightError

from tests.support.play import play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_arrow_keys_and_buttons_step_through_a_replay(browser, live_server, start_game, alice, bob):
    game = play_to_end(start_game(alice, bob))
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/games/{game.id}/replay/?ply=10")

    def wait_for(ply: int) -> None:
        page.wait_for_function(f"() => document.getElementById('replay').dataset.ply === '{ply}'")

    page.keyboard.press("ArrowRight")
    wait_for(11)
    assert page.url.endswith("?ply=11")
    # Keys pressed faster than the page answers each count.
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    wait_for(8)
    page.click("#replay-next")
    wait_for(9)
    page.keyboard.press("End")
    wait_for(game.ply)
    assert "Game over." in page.locator("#replay-point-text").text_content()

    page.go_back()
    wait_for(9)
    assert page.url.endswith("?ply=9")
    page.close()


def test_a_page_fetched_before_the_points_arrived_does_not_land_on_a_later_step(
    browser, live_server, start_game, alice, bob
):
    """A step taken before the points have loaded fetches its page. When the points arrive and the
    player steps on before that page does, the late page is dropped: it does not replace the point
    the player has moved to (a CI run once saw ply 10's page land after ply 8 was shown)."""
    game = play_to_end(start_game(alice, bob))
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    held_points: list = []
    held_pages: list = []
    page.route("**/replay/points/", lambda route: held_points.append(route))
    page.route(re.compile(r".*/replay/\?ply=9$"), lambda route: held_pages.append(route))
    page.goto(f"{live_server.url}/games/{game.id}/replay/?ply=10")

    def until(condition) -> None:
        for _ in range(200):
            if condition():
                return
            page.wait_for_timeout(50)
        raise AssertionError("the request never came")

    until(lambda: held_points)
    page.keyboard.press("ArrowLeft")  # no points yet: ply 9's page is fetched
    until(lambda: held_pages)
    held_points[0].continue_()
    page.wait_for_selector("#replay-root[data-points-loaded]")
    page.keyboard.press("ArrowLeft")  # from the points, at once
    page.wait_for_function("() => document.getElementById('replay').dataset.ply === '8'")
    with contextlib.suppress(PlaywrightError):  # raised when the page has dropped the request
        held_pages[0].continue_()  # the late answer
    page.wait_for_timeout(500)
    assert page.evaluate("document.getElementById('replay').dataset.ply") == "8"
    assert page.url.endswith("?ply=8")
    page.click("#replay-next")
    page.wait_for_function("() => document.getElementById('replay').dataset.ply === '9'")
    page.close()


def test_stepping_asks_the_server_nothing_once_the_page_has_loaded(
    browser, live_server, start_game, alice, bob
):
    game = play_to_end(start_game(alice, bob))
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/games/{game.id}/replay/?ply=5")
    page.wait_for_selector("#replay-root[data-points-loaded]")
    asked: list[str] = []
    # The browser asks for the icon again when the address changes: pages are what matter.
    page.on("request", lambda r: None if "/static/" in r.url else asked.append(r.url))

    def shows(ply: int) -> None:
        page.wait_for_function(f"() => document.getElementById('replay').dataset.ply === '{ply}'")
        assert page.url.endswith(f"?ply={ply}")
        assert page.locator(".move-log li.current").get_attribute("value") == str(ply)
        assert (
            f"move {ply} of {game.ply}" in page.locator(".replay-status .meta").first.inner_text()
        )

    page.keyboard.press("ArrowRight")
    shows(6)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    shows(4)
    page.click("#replay-next")
    shows(5)
    # Focus stays on the button pressed, now the new point's: Enter steps again.
    page.keyboard.press("Enter")
    shows(6)
    page.keyboard.press("End")
    shows(game.ply)
    assert "Game over." in page.locator("#replay-point-text").text_content()
    assert "Game over." in page.locator("#replay-announce").text_content()  # read out
    assert page.title().startswith("Replay of ") and f"move {game.ply}" in page.title()
    page.keyboard.press("Home")
    shows(0)
    page.fill("#replay-ply", "12")
    page.press("#replay-ply", "Enter")
    shows(12)
    page.go_back()
    shows(0)
    page.locator(".move-log a[href='?ply=3']").click()
    shows(3)
    assert asked == []

    # A point past the end is no point: the server's page says so.
    page.fill("#replay-ply", str(game.ply + 1))
    page.evaluate("document.getElementById('replay-ply').removeAttribute('max')")
    page.press("#replay-ply", "Enter")
    page.wait_for_url(f"**?ply={game.ply + 1}")
    assert any("/replay/" in url for url in asked)
    page.close()
