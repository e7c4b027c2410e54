"""The next game in Chromium: after a move the board offers the game that waits next, "n" goes
there (not while typing), and with the player's setting the page goes there by itself."""

import datetime
import json

import pytest
from django.utils import timezone

from games.models import Game
from tests.support.browser import board_of, set_confirm
from tests.support.play import waiting_for

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def two_games_waiting(start_game, alice, bob, carol) -> tuple[Game, Game]:
    """Two games waiting for alice: `here` (due in 1 hour) and `there` (due in 20 hours)."""
    here = waiting_for(start_game(alice, bob), alice)
    there = waiting_for(start_game(alice, carol), alice)
    now = timezone.now()
    Game.objects.filter(pk=here.pk).update(turn_deadline=now + datetime.timedelta(hours=1))
    Game.objects.filter(pk=there.pk).update(turn_deadline=now + datetime.timedelta(hours=20))
    return here, there


def play_a_move(page) -> None:
    """A move to a pattern line by clicking (no confirmation asked)."""
    moves = json.loads(page.locator("#legal-moves").text_content())
    source, color, line = next(m for m in moves if not m.endswith("floor")).split()
    page.locator(f'button.take[data-source="{source}"][data-color="{color}"]').first.click()
    page.click(f'button.dest[data-dest="{line}"]')


def test_after_a_move_n_goes_to_the_next_game(
    browser, live_server, contexts, alice, bob, carol, start_game, artifacts
):
    here, there = two_games_waiting(start_game, alice, bob, carol)
    set_confirm(alice, "off")
    page = board_of(contexts(), live_server.url, alice, here.id)
    offer = page.locator("#next-game")
    assert offer.is_hidden()  # it is alice's turn here

    play_a_move(page)
    offer.wait_for(state="visible")
    link = page.locator("#next-game-link")
    assert link.get_attribute("href") == f"/games/{there.id}/"
    assert link.get_attribute("aria-keyshortcuts") == "n"
    assert "Next game" in link.inner_text()
    page.screenshot(path=str(artifacts / "board-next-game.png"), full_page=True)

    # Typing an "n" in the private notes is typing, not going.
    notes = page.locator("#game-notes-text")
    if notes.count():
        notes.click()
        page.keyboard.press("n")
        assert page.url.endswith(f"/games/{here.id}/")
        page.evaluate("document.activeElement.blur()")

    with page.expect_navigation():
        page.keyboard.press("n")
    assert page.url == f"{live_server.url}/games/{there.id}/"
    # There it is alice's turn: nothing more to offer.
    assert page.locator("#next-game").is_hidden()


def test_with_the_setting_the_page_goes_on_by_itself(
    browser, live_server, contexts, alice, bob, carol, start_game
):
    here, there = two_games_waiting(start_game, alice, bob, carol)
    set_confirm(alice, "off")
    alice.profile.next_game_after_move = True
    alice.profile.save()
    page = board_of(contexts(), live_server.url, alice, here.id)
    ply = Game.objects.get(pk=here.pk).ply

    # The page there says where the move went (tests/e2e/test_board_next_steps.py).
    with page.expect_navigation(url=f"{live_server.url}/games/{there.id}/?moved_in={here.id}"):
        play_a_move(page)

    assert Game.objects.get(pk=here.pk).ply > ply
    assert page.locator("#game").get_attribute("data-game-id") == str(there.id)


@pytest.mark.parametrize("language", ["en", "ko"])
def test_the_pace_on_the_players_page_and_the_lobby_passes_axe(
    browser, live_server, alice, bob, carol, start_game, language
):
    from games import services
    from tests.e2e.test_axe import serious_violations

    axe = pytest.importorskip("axe_playwright_python.sync_playwright").Axe()
    game = waiting_for(start_game(alice, bob), bob)
    waiting_for(game, alice)
    services.game_create(
        creator=alice,
        num_players=3,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="open"), services.SeatSpec(kind="computer")],
    )
    context = browser.new_context(locale="ko-KR" if language == "ko" else "en-US")
    page = context.new_page()
    found = []
    for state, path in (("player", f"/players/{alice.username}/"), ("lobby", "/lobby/")):
        page.goto(live_server.url + path)
        assert page.locator("html").get_attribute("lang") == language
        assert page.locator(".pace").count() >= 1
        found += serious_violations(axe, page, state)
    context.close()
    assert not found, "\n".join(found)
