"""Errors a script can act on: distinct codes for a move that is not notation at all and for a
legal-looking move the rules refuse, and the game's current ply on every 409."""

import pytest

from games import services
from games.models import Game
from games.serializers import ERROR_CODES
from tests.support.play import player_to_move
from tests.support.records import snapshot
from tests.support.urls import api_url


def post_move(client, game_id, move, expected_ply):
    return client.post(
        api_url("games", game_id, "moves"),
        {"move": move, "expected_ply": expected_ply},
        format="json",
    )


@pytest.fixture
def mover(active_game, clients):
    return clients[player_to_move(active_game)]


@pytest.mark.parametrize(
    "move, words",
    [
        ("F3 purple 2", "unknown color 'purple'"),
        ("F1", "a source, a color and a destination"),
        ("wall 9 1", "pattern line must be from 1 to 5"),
        ("G2 blue 1", "unknown source"),
    ],
)
def test_malformed_notation_is_invalid_notation(active_game, mover, move, words):
    before = snapshot(active_game["id"])

    response = post_move(mover, active_game["id"], move, active_game["ply"])

    assert response.status_code == 400
    body = response.json()
    assert body["code"] == "invalid_notation", body
    assert words in body["detail"]
    assert "current_ply" not in body
    assert snapshot(active_game["id"]) == before


@pytest.mark.parametrize("kind", ["empty colour", "wall in the factory offer", "no factory"])
def test_a_well_formed_move_the_rules_refuse_is_illegal_move(active_game, mover, kind):
    factory = active_game["state"]["factories"][0]
    empty = next(c for c in ("blue", "yellow", "red", "black", "white") if c not in factory)
    move = {
        "empty colour": f"F1 {empty} 1",
        "wall in the factory offer": "wall 1 1",
        "no factory": "F9 blue 1",  # a 2-player game has 5 factories
    }[kind]
    before = snapshot(active_game["id"])

    response = post_move(mover, active_game["id"], move, active_game["ply"])

    assert response.status_code == 400
    assert response.json()["code"] == "illegal_move", response.json()
    assert snapshot(active_game["id"]) == before


def conflict(response, code: str, ply: int) -> dict:
    assert response.status_code == 409, response.json()
    body = response.json()
    assert body["code"] == code, body
    assert body["current_ply"] == ply, body
    return body


def test_a_move_in_a_finished_game_says_the_ply(active_game, mover):
    Game.objects.filter(pk=active_game["id"]).update(status=Game.Status.FINISHED)

    response = post_move(mover, active_game["id"], "F1 blue 1", active_game["ply"])

    body = conflict(response, "game_over", active_game["ply"])
    assert "over" in body["detail"]


def test_a_move_before_the_game_starts_says_the_ply(alice, bob, create_game, clients):
    game = create_game(alice, [{"kind": "invite", "username": "bob"}])

    response = post_move(clients["alice"], game["id"], "F1 blue 1", 0)

    conflict(response, "game_not_active", 0)


def test_a_stale_move_says_the_ply(active_game, mover):
    conflict(post_move(mover, active_game["id"], "F1 blue 1", 0), "stale_move", active_game["ply"])


def test_joining_a_started_game_says_the_ply(active_game, clients):
    response = clients["carol"].post(api_url("games", active_game["id"], "join"))

    body = conflict(response, "invalid_action", active_game["ply"])
    assert "not waiting for players" in body["detail"]


def test_joining_twice_says_the_ply(alice, create_game, clients):
    game = create_game(alice, [{"kind": "open"}, {"kind": "open"}])
    assert clients["bob"].post(api_url("games", game["id"], "join")).status_code == 200

    conflict(clients["bob"].post(api_url("games", game["id"], "join")), "invalid_action", 0)


def test_cancelling_a_started_game_says_the_ply(active_game, clients):
    response = clients["alice"].post(api_url("games", active_game["id"], "cancel"))

    conflict(response, "invalid_action", active_game["ply"])


def test_answering_an_invitation_to_a_cancelled_game_says_the_ply(alice, bob, create_game, clients):
    game = create_game(alice, [{"kind": "invite", "username": "bob"}])
    services.game_cancel(game_id=game["id"], user=alice)

    response = clients["bob"].post(api_url("invitations", game["id"], "accept"))

    conflict(response, "invalid_action", 0)


def test_the_schema_lists_the_error_codes(client, db):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    error = schema["components"]["schemas"]["Error"]["properties"]
    for code in ("invalid_notation", "illegal_move", "stale_move", "already_moved", "game_over"):
        assert code in ERROR_CODES
        assert f"`{code}`" in error["code"]["description"]
    assert "409" in error["current_ply"]["description"]
