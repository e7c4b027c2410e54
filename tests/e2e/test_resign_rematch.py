"""A player resigns a game against the computer from the board (accepting the browser's
confirmation dialog): with nobody left to play for, the game is played out and finished at once,
the game-over page puts them last, and the rematch button starts a new game with the same
seats (the computer's moves run in-process, as Celery's eager mode runs them)."""

import re

import pytest

from games import services
from games.models import Game, Seat
from tests.e2e.test_new_game import sign_in

pytestmark = [pytest.mark.e2e, pytest.mark.slow]


def test_resign_against_the_computer_then_rematch(browser, live_server, alice, artifacts):
    game = services.game_create(
        creator=alice,
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec("computer", level="greedy")],
    )
    base = live_server.url
    page = sign_in(browser, base, "alice")
    game_url = f"{base}/games/{game.id}/"
    page.goto(game_url)

    dialogs = []

    def accept(dialog):
        dialogs.append(dialog.message)
        dialog.accept()

    page.on("dialog", accept)
    page.click("#resign-button")
    page.wait_for_selector("#rematch-button")
    assert page.url == game_url
    assert dialogs and "finish last" in dialogs[0]

    game.refresh_from_db()
    assert game.status == Game.Status.FINISHED
    places = {s.position: s.place for s in Seat.objects.filter(game=game)}
    assert places == {0: 2, 1: 1}
    content = page.content()
    assert "You came 2nd of 2" in content
    assert "You resigned, and finished last." in content
    page.screenshot(path=str(artifacts / "resigned-game-over.png"), full_page=True)

    page.click("#rematch-button")
    page.wait_for_url(re.compile(r"/games/[0-9a-f-]{36}/$"))
    rematch = Game.objects.get(rematch_of=game)
    assert page.url == f"{base}/games/{rematch.id}/"
    assert rematch.status == Game.Status.ACTIVE  # against the computer: it starts at once
    seats = list(Seat.objects.filter(game=rematch).order_by("position"))
    assert [(s.kind, s.user_id, s.bot_level) for s in seats] == [
        ("human", alice.pk, seats[0].bot_level),
        ("computer", None, "greedy"),
    ]
    assert "Your rematch against the computer has started." in page.content()
