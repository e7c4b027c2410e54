"""Fixtures of the live-update tests: a started game with its users by seat, and no wait left
running after a test."""

from collections.abc import Callable
from typing import Any

import pytest


@pytest.fixture
def two_player_game(alice, bob, start_game) -> Callable[[], tuple[Any, dict[int, Any]]]:
    """`two_player_game()`: a started game of alice and bob, and its users by seat."""
    from games import selectors

    def make():
        game = start_game(alice, bob)
        game = selectors.game_get(game_id=game.id)
        return game, {seat.position: seat.user for seat in game.seat_list}

    return make


@pytest.fixture(autouse=True)
def _no_one_left_waiting():
    """After each test, end the waits still running and let the watch thread close its
    connection (the test database is dropped at the end)."""
    yield
    from games import live

    live.watch.wake_all()
    live.watch.join(timeout=5)
