"""axe-core over every state of the board page issue #58 touched, in English and Korean, on a
desktop and a phone: no serious and no moderate violation (the skip link's target on a finished
game, content outside landmarks included)."""

import pytest

from chat import services as chat_services
from tests.e2e.test_axe import MODERATE_IMPACTS, serious_violations
from tests.e2e.test_next_game import play_a_move, two_games_waiting
from tests.support.browser import context_for, set_confirm, signed_in
from tests.support.factories import against_computer, invite_game
from tests.support.play import play_to_end

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


@pytest.fixture(scope="module")
def axe():
    return pytest.importorskip("axe_playwright_python.sync_playwright").Axe()


@pytest.mark.parametrize("language", ["en", "ko"])
@pytest.mark.parametrize("viewport", ["desktop", "phone"])
def test_no_moderate_violation_on_the_board_before_during_and_after_a_game(
    browser, axe, live_server, start_game, alice, bob, carol, language, viewport
):
    here, there = two_games_waiting(start_game, alice, bob, carol)
    chat_services.message_post(game_id=here.id, user=bob, text="hello")
    finished = play_to_end(start_game(alice, bob))
    against_the_computer = against_computer(alice)
    waiting_for_players = invite_game(alice, bob)
    set_confirm(alice, "off")
    alice.profile.next_game_after_move = True
    alice.profile.save()
    page = signed_in(
        context_for(browser, language=language, viewport=viewport), live_server.url, alice
    )
    found: list[str] = []

    def check(state: str, path: str | None = None) -> None:
        if path is not None:
            page.goto(live_server.url + path)
        assert page.locator("html").get_attribute("lang") == language, state
        found.extend(serious_violations(axe, page, state, MODERATE_IMPACTS))

    check("your turn", f"/games/{here.id}/")
    page.locator("button.tile.take").first.click()
    page.wait_for_selector("button.dest:not([disabled])")
    check("after a pick")
    page.keyboard.press("Escape")
    with page.expect_navigation():
        play_a_move(page)
    check("moved on to the next game, saying so")
    check("waiting for the others, the next game offered", f"/games/{here.id}/")
    bobs = page.locator(".chat-message", has_text="hello")
    bobs.locator("summary").click()
    bobs.locator("input[name=reason]").fill("rude")
    bobs.locator("button[type=submit]").click()
    bobs.locator(".chat-report-answer").wait_for()
    check("a chat message reported")
    page.locator(".chat-settings summary").click()
    with page.expect_navigation():
        page.locator(".chat-settings form").first.locator("button").click()
    page.locator("#chat .form-answer").wait_for()
    check("the chat muted, said in its panel")
    check("game over, with the next game", f"/games/{finished.id}/")
    check("against the computer", f"/games/{against_the_computer.id}/")
    check("waiting for players, the creator's seats", f"/games/{waiting_for_players.id}/")
    check("a replay on this screen", f"/games/{finished.id}/replay/?ply=5")

    assert not found, "\n".join(found)
