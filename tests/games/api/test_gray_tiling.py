"""The gray wall's tiling phase: every player with a choice tiles at the same ply, and one
board's choice changes nothing on another's, so a player's tiling is not refused as stale
because someone else tiled first. Anything else that happened since the ply they saw still is."""

import random
import threading
from typing import Any

import pytest
from django.db import connections
from rest_framework.test import APIClient

import azul
from games import services
from games.models import Game, LogEntry
from tests.support.play import play_forward
from tests.support.urls import api_url


def line_one_else_floor(state: azul.State, position: int, rng: random.Random) -> azul.Move:
    """Each player's first take goes to pattern line 1 (which fills it: the gray wall's first row
    takes any colour, in any of five columns), every later one to the floor line."""
    moves = azul.legal_moves(state, position)
    return next((m for m in moves if str(m).endswith(" 1")), None) or next(
        m for m in moves if str(m).endswith(" floor")
    )


def tiling_for_all(game: Game) -> bool:
    return game.engine_state().phase == "tile"


def play_to_tiling(game: Game, users: dict[int, Any]) -> Game:
    """A gray-wall game played to its first wall-tiling phase, with every player to tile."""
    game = play_forward(
        game, until=tiling_for_all, users=users, pick=line_one_else_floor, limit=100
    )
    assert sorted(game.engine_state().to_move) == list(range(game.num_players))
    return game


@pytest.fixture
def tiling(start_game, alice, bob, carol, api_client_for):
    """A 3-player gray game in its first tiling phase, all three to tile: the game, its users by
    position, and their API clients by position."""
    users = {0: alice, 1: bob, 2: carol}
    game = play_to_tiling(start_game(alice, bob, carol, variant="gray"), users)
    return game, users, {p: api_client_for(u) for p, u in users.items()}


def first_tiling(game: Game, position: int) -> str:
    move = str(azul.legal_moves(game.engine_state(), position)[0])
    assert move.startswith("wall "), move
    return move


def post_move(client, game_id, move: str, expected_ply: int):
    return client.post(
        api_url("games", game_id, "moves"),
        {"move": move, "expected_ply": expected_ply},
        format="json",
    )


def test_every_player_tiles_from_the_ply_they_saw(tiling):
    game, _, clients = tiling
    seen = game.ply
    moves = {p: first_tiling(game, p) for p in clients}

    for position in (1, 0, 2):
        response = post_move(clients[position], game.id, moves[position], seen)
        assert response.status_code == 201, response.json()

    after = Game.objects.get(pk=game.id)
    entries = list(LogEntry.objects.filter(game=after, number__gte=seen).order_by("number"))
    # The three tilings, in the order they came, then the next round's deal.
    assert [(e.kind, e.player) for e in entries] == [("move", 1), ("move", 0), ("move", 2)] + [
        ("deal", None)
    ]
    assert [e.data["move"] for e in entries[:3]] == [moves[1], moves[0], moves[2]]
    assert after.engine_state().round == 2


def test_a_tiling_is_still_checked_against_the_position_now(tiling):
    game, _, clients = tiling
    seen = game.ply
    assert post_move(clients[0], game.id, first_tiling(game, 0), seen).status_code == 201

    response = post_move(clients[1], game.id, "wall 2 1", seen)  # line 2 is not full

    assert response.status_code == 400
    assert response.json()["code"] == "illegal_move"


def test_a_player_who_tiled_already_is_told_so(tiling):
    game, _, clients = tiling
    seen = game.ply
    move = first_tiling(game, 0)
    assert post_move(clients[0], game.id, move, seen).status_code == 201

    response = post_move(clients[0], game.id, move, seen)

    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "already_moved"
    assert body["current_ply"] == seen + 1
    assert body["detail"].startswith("You already moved in another tab or window")


def test_a_take_since_the_ply_seen_is_still_stale(tiling):
    """The ply before the tiling phase is the take phase's last move: a player who saw the
    game then has not seen the position they tile in."""
    game, _, clients = tiling
    last_take = LogEntry.objects.get(game=game, number=game.ply - 1)
    assert last_take.kind == "move" and not last_take.data["move"].startswith("wall")
    other = next(p for p in clients if p != last_take.player)

    response = post_move(clients[other], game.id, first_tiling(game, other), game.ply - 1)

    assert response.status_code == 409
    assert response.json()["code"] == "stale_move"
    assert response.json()["current_ply"] == game.ply


def test_a_move_chosen_in_the_round_before_is_refused(tiling):
    game, users, clients = tiling
    seen = game.ply
    for position in clients:
        game = services.move_submit(
            game_id=game.id,
            user=users[position],
            move=first_tiling(game, position),
            expected_ply=game.ply,
        )
    assert game.engine_state().round == 2
    # Round 2's factory offer: its first player chose their move on round 1's tiling ply.
    player = game.engine_state().to_move[0]
    move = str(azul.legal_moves(game.engine_state(), player)[0])

    response = post_move(clients[player], game.id, move, seen)

    assert response.status_code == 409
    # They tiled in round 1 themselves since that ply: reported as their own move.
    assert response.json()["code"] == "already_moved"


@pytest.mark.django_db(transaction=True)
def test_three_players_tiling_at_once_are_all_accepted(start_game, alice, bob, carol):
    users = {0: alice, 1: bob, 2: carol}
    game = play_to_tiling(start_game(alice, bob, carol, variant="gray"), users)
    seen = game.ply
    moves = {p: first_tiling(game, p) for p in users}
    barrier = threading.Barrier(len(users))
    statuses: dict[int, int] = {}

    def tile(position: int) -> None:
        client = APIClient()
        client.force_authenticate(users[position])
        try:
            barrier.wait(timeout=10)
            statuses[position] = post_move(client, game.id, moves[position], seen).status_code
        finally:
            connections.close_all()

    threads = [threading.Thread(target=tile, args=(p,)) for p in users]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert statuses == {0: 201, 1: 201, 2: 201}
    after = Game.objects.get(pk=game.id)
    numbers = list(
        LogEntry.objects.filter(game=after).order_by("number").values_list("number", flat=True)
    )
    assert numbers == list(range(after.ply))
    assert after.ply == seen + 4  # three tilings and the next round's deal
