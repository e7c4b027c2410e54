"""In a real browser: the arrow keys and the buttons step through a replay (tests/games/record
has the rest of the replay's tests), the address follows so that a point can be linked to, and
the browser's back button returns to the point before."""

import pytest

from tests.support.play import finish

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_arrow_keys_and_buttons_step_through_a_replay(browser, live_server, start_game, alice, bob):
    game = finish(start_game(alice, bob))
    page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    page.set_default_timeout(10_000)
    page.goto(f"{live_server.url}/games/{game.id}/replay/?ply=10")

    def wait_for(ply: int) -> None:
        page.wait_for_function(f"document.getElementById('replay').dataset.ply === '{ply}'")

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
