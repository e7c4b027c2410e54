"""Every way a move can be refused through the API: a clear 4xx body, and nothing changed."""

import json
import uuid

import pytest
from django.conf import settings

from tests.support.play import player_to_move
from tests.support.records import snapshot
from tests.support.urls import games_url


@pytest.fixture
def setup(active_game, clients):
    """The game, the client of the player to move, the other player's client, and a move."""
    game = active_game
    mover = player_to_move(game)
    other = "bob" if mover == "alice" else "alice"
    legal = clients[mover].get(games_url(game["id"], "legal-moves")).json()["legal_moves"]
    return game, clients[mover], clients[other], legal[0]


def post_move(client, game_id, body, **kwargs):
    return client.post(games_url(game_id, "moves"), body, format="json", **kwargs)


def test_a_legal_move_is_accepted(setup):
    game, mover, _, move = setup
    response = post_move(mover, game["id"], {"move": move, "expected_ply": game["ply"]})
    assert response.status_code == 201
    assert response.json()["ply"] == game["ply"] + 1


def refused(response, status: int, game_id, before, words: str):
    assert response.status_code == status, response.content
    body = response.json()
    assert words.lower() in body["detail"].lower(), body
    assert snapshot(game_id) == before
    return body


def test_malformed_json(setup):
    game, mover, _, _ = setup
    before = snapshot(game["id"])
    response = mover.generic(
        "POST", games_url(game["id"], "moves"), '{"move": "F1 blue', "application/json"
    )
    refused(response, 400, game["id"], before, "JSON parse error")


def test_not_json_at_all(setup):
    game, mover, _, _ = setup
    before = snapshot(game["id"])
    response = mover.post(games_url(game["id"], "moves"), {"move": "x", "expected_ply": 1})
    refused(response, 415, game["id"], before, "Unsupported media type")


@pytest.mark.parametrize(
    "body, words",
    [
        ({"expected_ply": 1}, "move: This field is required"),
        ({"move": "F1 blue 1"}, "expected_ply: This field is required"),
        ({"move": "F1 blue 1", "expected_ply": "soon"}, "expected_ply: A valid integer"),
        ({"move": "", "expected_ply": 1}, "move: This field may not be blank"),
        ([1, 2], "Invalid data"),
    ],
)
def test_missing_or_wrong_fields(setup, body, words):
    game, mover, _, _ = setup
    before = snapshot(game["id"])
    body_out = refused(post_move(mover, game["id"], body), 400, game["id"], before, words)
    assert "errors" in body_out


def test_illegal_move_gives_the_engines_reason(setup):
    game, mover, _, _ = setup
    before = snapshot(game["id"])
    state = game["state"]
    empty = next(
        c for c in ("blue", "yellow", "red", "black", "white") if c not in state["factories"][0]
    )
    response = post_move(mover, game["id"], {"move": f"F1 {empty} 1", "expected_ply": game["ply"]})
    body = refused(response, 400, game["id"], before, "Illegal move")
    assert body["code"] == "illegal_move"
    assert "factory 1" in body["detail"].lower()


def test_bad_notation_gives_the_parsers_reason(setup):
    game, mover, _, _ = setup
    before = snapshot(game["id"])
    response = post_move(mover, game["id"], {"move": "F3 purple 2", "expected_ply": game["ply"]})
    refused(response, 400, game["id"], before, "unknown color 'purple'")


def test_not_your_turn(setup):
    game, _, other, move = setup
    before = snapshot(game["id"])
    response = post_move(other, game["id"], {"move": move, "expected_ply": game["ply"]})
    body = refused(response, 403, game["id"], before, "not your turn")
    assert body["code"] == "not_your_turn"


def test_a_watcher_cannot_move(setup, clients):
    game, _, _, move = setup
    before = snapshot(game["id"])
    response = post_move(clients["carol"], game["id"], {"move": move, "expected_ply": game["ply"]})
    body = refused(response, 403, game["id"], before, "not playing in this game")
    assert body["code"] == "not_a_player"


def test_unknown_game(setup):
    _, mover, _, move = setup
    response = post_move(mover, uuid.uuid4(), {"move": move, "expected_ply": 1})
    assert response.status_code == 404
    assert response.json()["detail"] == "There is no such game."


@pytest.mark.parametrize("bad_id", ["12", "not-a-uuid", "1' OR 1=1"])
def test_malformed_game_id_is_404_not_500(setup, bad_id):
    _, mover, _, move = setup
    for url in (games_url(bad_id), games_url(bad_id, "log"), games_url(bad_id, "legal-moves")):
        response = mover.get(url)
        assert response.status_code == 404, url
        assert response.json()["code"] == "game_not_found"
    response = post_move(mover, bad_id, {"move": move, "expected_ply": 1})
    assert response.status_code == 404


def test_stale_expected_ply(setup):
    game, mover, _, move = setup
    before = snapshot(game["id"])
    for stale in (game["ply"] - 1, game["ply"] + 5):
        response = post_move(mover, game["id"], {"move": move, "expected_ply": stale})
        body = refused(response, 409, game["id"], before, "moved on")
        assert body["current_ply"] == game["ply"]
        assert body["code"] == "stale_move"


def test_oversized_body(setup):
    game, mover, _, move = setup
    before = snapshot(game["id"])
    padding = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)
    body = json.dumps({"move": move, "expected_ply": game["ply"], "padding": padding})
    response = mover.generic("POST", games_url(game["id"], "moves"), body, "application/json")
    refused(response, 413, game["id"], before, "too large")


def test_oversized_form_body_with_session_is_a_clean_4xx(setup, alice):
    """An oversized form body through a session (CSRF checked): a JSON 4xx, never a 500."""
    from django.test import Client

    from tests.support.factories import SESSION_BACKEND

    game = setup[0]
    before = snapshot(game["id"])
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice, backend=SESSION_BACKEND)
    token = "a" * 32
    client.cookies["csrftoken"] = token
    padding = "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)
    response = client.post(
        games_url(game["id"], "moves"), {"padding": padding}, headers={"X-CSRFToken": token}
    )
    # The API takes JSON only: a form body is refused before anything reads it.
    assert response.status_code == 415
    assert "Unsupported media type" in response.json()["detail"]
    assert snapshot(game["id"]) == before


def test_anonymous_is_refused(setup):
    from rest_framework.test import APIClient

    game, _, _, move = setup
    response = APIClient().post(
        games_url(game["id"], "moves"), {"move": move, "expected_ply": 1}, format="json"
    )
    assert response.status_code in (401, 403)
    assert "detail" in response.json()


def test_session_writes_need_csrf(setup, alice):
    from django.test import Client

    from tests.support.factories import SESSION_BACKEND

    game, _, _, move = setup
    client = Client(enforce_csrf_checks=True)
    client.force_login(alice, backend=SESSION_BACKEND)
    before = snapshot(game["id"])
    response = client.post(
        games_url(game["id"], "moves"),
        {"move": move, "expected_ply": game["ply"]},
        content_type="application/json",
    )
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]
    assert snapshot(game["id"]) == before
