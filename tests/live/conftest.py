"""Helpers for the live-update tests: games set up through the services, moves made as the
player to move would, and the URLs that wait."""

from collections.abc import Callable
from typing import Any

import pytest

import azul
from games import selectors, services


def api_url(game_id: Any, **query: Any) -> str:
    tail = "".join(f"&{k}={v}" for k, v in query.items()).lstrip("&")
    return f"/api/games/{game_id}/" + (f"?{tail}" if tail else "")


def live_url(game_id: Any, **query: Any) -> str:
    tail = "".join(f"&{k}={v}" for k, v in query.items()).lstrip("&")
    return f"/games/{game_id}/live/" + (f"?{tail}" if tail else "")


def play_next(game_id: Any, users: dict[int, Any]) -> str:
    """The player to move plays their first legal move; returns it."""
    game = selectors.game_get(game_id=game_id)
    state = azul.State.from_dict(game.state)
    player = state.to_move[0]
    move = str(azul.legal_moves(state, player)[0])
    services.move_submit(game_id=game.id, user=users[player], move=move, expected_ply=game.ply)
    return move


@pytest.fixture
def two_player_game(alice, bob, start_game) -> Callable[[], tuple[Any, dict[int, Any]]]:
    """`two_player_game()`: a started game of alice and bob, and its users by seat."""

    def make():
        game = start_game(alice, bob)
        game = selectors.game_get(game_id=game.id)
        return game, {seat.position: seat.user for seat in game.seat_list}

    return make


def to_move(game_id: Any, users: dict[int, Any]) -> tuple[Any, Any]:
    """(the user to move, the other one)."""
    game = selectors.game_get(game_id=game_id)
    player = azul.State.from_dict(game.state).to_move[0]
    return users[player], next(u for p, u in users.items() if p != player)


@pytest.fixture(autouse=True)
def _no_one_left_waiting():
    """After each test, end the waits still running and let the watch thread close its
    connection (the test database is dropped at the end)."""
    yield
    from games import live

    live.watch.wake_all()
    live.watch.join(timeout=5)
