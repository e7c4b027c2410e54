"""Helpers for the game tests: games set up through the API, played as the players would."""

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

import azul
from games.models import Game, LogEntry


def games_url(*parts: Any) -> str:
    tail = "".join(f"{p}/" for p in parts)
    return f"/api/games/{tail}"


def snapshot(game_id: Any) -> tuple[int, int, dict, str]:
    """What must not change when a request is refused: ply, log length, state, status."""
    game = Game.objects.get(pk=game_id)
    return game.ply, LogEntry.objects.filter(game=game).count(), game.state, game.status


def walk(value: Any):
    """Every (key, value) pair in a JSON document, however deep."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key, item
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


def next_move(game: Game, users: dict[int, Any]) -> dict[str, Any]:
    """`services.move_submit`'s arguments for the first legal move of the player to move in
    `game` as given; `users` maps positions to users."""
    state = azul.State.from_dict(game.state)
    player = state.to_move[0]
    return {
        "game_id": game.id,
        "user": users[player],
        "move": str(azul.legal_moves(state, player)[0]),
        "expected_ply": game.ply,
    }


@pytest.fixture
def create_game(api_client_for) -> Callable[..., dict]:
    """`create_game(creator, seats=[...], players=2, variant="colored")` through the API."""

    def create(creator, seats: list[dict], players: int | None = None, **extra) -> dict:
        body = {"players": players or len(seats) + 1, "seats": seats, **extra}
        response = api_client_for(creator).post(games_url(), body, format="json")
        assert response.status_code == 201, response.json()
        return response.json()

    return create


@pytest.fixture
def active_game(alice, bob, create_game, api_client_for) -> dict:
    """A two-player colored game: alice invited bob and bob accepted, so it has started."""
    game = create_game(alice, [{"kind": "invite", "username": "bob"}])
    response = api_client_for(bob).post(
        games_url(game["id"], "invitation"), {"accept": True}, format="json"
    )
    assert response.status_code == 200, response.json()
    assert response.json()["status"] == "active"
    return response.json()


@pytest.fixture
def clients(alice, bob, carol, api_client_for) -> dict[str, APIClient]:
    return {u.username: api_client_for(u) for u in (alice, bob, carol)}


def player_to_move(game: dict) -> str:
    """Username of the (first) player to move in a game view."""
    position = game["to_move"][0]
    return next(p["username"] for p in game["players"] if p["position"] == position)


def play_one(clients: dict[str, APIClient], game: dict) -> dict:
    """Whoever is to move plays their first legal move; returns the new game view."""
    username = player_to_move(game)
    client = clients[username]
    moves = client.get(games_url(game["id"], "legal-moves")).json()
    assert moves["legal_moves"], moves
    response = client.post(
        games_url(game["id"], "moves"),
        {"move": moves["legal_moves"][0], "expected_ply": moves["ply"]},
        format="json",
    )
    assert response.status_code == 201, response.json()
    return response.json()
