"""A player signs in, starts a game against the strong computer player from the new-game form,
plays a move by clicking, and sees the computer answer (its move runs in-process in the tests,
as Celery's eager mode runs it). On the way, the form suggests players as a name is typed."""

import re

import pytest

from games.models import Game, Seat
from tests.support.browser import play_one_move_by_clicking, sign_in

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_a_game_against_the_strong_computer_from_the_form(
    browser, live_server, alice, make_user, artifacts
):
    make_user("bobby")
    base = live_server.url
    page = sign_in(browser, base, "alice")

    page.goto(base + "/games/new/")
    seat = page.locator("[name=seat2_kind]")
    assert seat.input_value() == "computer:medium"  # the default: a computer, ready to play
    assert page.locator("[name=seat2_username]").is_hidden()
    options = seat.locator("option").all_text_contents()
    assert "Computer (strong)" in options  # the level's name: the list is not cut off
    # How well the chosen level plays, in full under the list.
    assert page.locator("#seat2_level").inner_text().startswith("Looks a little ahead")
    seat.select_option("computer:strong")
    assert page.locator("#seat2_level").inner_text().startswith("Searches about a second")
    # Inviting instead: the name box appears and suggests players as their name is typed.
    seat.select_option("invite")
    username = page.locator("[name=seat2_username]")
    assert username.is_visible()
    username.press_sequentially("bo")
    page.wait_for_selector('#player-suggestions option[value="bobby"]', state="attached")
    page.screenshot(path=str(artifacts / "new-game-invite.png"), full_page=True)

    seat.select_option("computer:strong")
    assert username.is_hidden()
    page.click("#new-game-form button[type=submit]")
    page.wait_for_url(re.compile(r"/games/[0-9a-f-]{36}/$"))
    game = Game.objects.get()
    computer = game.seats.get(position=1)
    assert (computer.kind, computer.bot_level) == (Seat.Kind.COMPUTER, "strong")
    assert game.status == Game.Status.ACTIVE

    # If the computer opened the game, it has moved already: it is the player's turn either way.
    page.wait_for_selector("#game.can-move")
    before = page.locator(".move-log li").count()
    play_one_move_by_clicking(page, turn=0)
    # The computer answers after the player's move, and the board comes back to the player.
    page.wait_for_function(
        "before => [...document.querySelectorAll('.move-log li')].slice(before + 1)"
        ".some((row) => row.textContent.includes('Computer (strong)'))",
        arg=before,
        timeout=30_000,
    )
    page.wait_for_selector("#game.can-move", timeout=30_000)
    assert "alice: " in page.locator(".move-log li").nth(before).text_content()
    page.screenshot(path=str(artifacts / "new-game-strong-answered.png"), full_page=True)
    page.context.close()
