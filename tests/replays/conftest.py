"""Recorded games for the replay tests: played to the end through the services, as players
play them (the engine's random player chooses the moves; the server deals)."""

from typing import Any

import pytest

import azul
from games.models import Game, LogEntry
from tests.pages.conftest import play_moves


def finish(game: Game, seed: int = 7) -> Game:
    """Play `game` to its end (no game lasts 2,000 moves) and return it as it is then."""
    game = play_moves(game, 2000, seed=seed)
    assert game.status == Game.Status.FINISHED
    return game


def log_of(game: Game) -> list[dict[str, Any]]:
    return list(
        LogEntry.objects.filter(game=game).order_by("number").values_list("data", flat=True)
    )


def replayed(game: Game, entries: list[dict[str, Any]]) -> azul.State:
    """The engine alone, from the first entries of the log."""
    return azul.replay(
        entries, players=game.num_players, variant=game.variant, first_player=game.first_player
    )


@pytest.fixture
def dave(make_user):
    return make_user("dave")


@pytest.fixture
def finished_colored(start_game, alice, bob) -> Game:
    return finish(start_game(alice, bob))


@pytest.fixture
def finished_gray(start_game, alice, bob, dave) -> Game:
    """Three players on the gray wall: wall-tiling choices, players tiling at once."""
    return finish(start_game(alice, bob, dave, variant="gray"), seed=11)
