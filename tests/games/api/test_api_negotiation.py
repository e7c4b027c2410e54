"""The API's content negotiation (DRF's): JSON for scripts, the browsable API for browsers, a
clear 415 for a body that is not JSON, and nothing written then."""

import json

import pytest

from tests.support.play import player_to_move
from tests.support.records import snapshot
from tests.support.urls import games_url


@pytest.mark.parametrize(
    ("accept", "query", "content_type"),
    [
        (None, "", "application/json"),
        ("*/*", "", "application/json"),
        ("application/json", "", "application/json"),
        ("application/json; indent=2", "", "application/json"),
        ("text/html", "", "text/html"),
        ("*/*", "?format=json", "application/json"),
        ("*/*", "?format=api", "text/html"),
        ("*/*", "?other=1", "application/json"),
    ],
)
def test_the_renderer_is_the_one_asked_for(active_game, clients, accept, query, content_type):
    headers = {"HTTP_ACCEPT": accept} if accept else {}
    response = clients["carol"].get(games_url(active_game["id"]) + query, **headers)
    assert response.status_code == 200
    assert response["Content-Type"].split(";")[0] == content_type
    if content_type == "application/json":
        assert json.loads(response.content)["id"] == active_game["id"]


@pytest.mark.parametrize(
    ("content_type", "status"),
    [
        ("application/json", 201),
        ("application/json; charset=utf-8", 201),
        ("text/plain", 415),
    ],
)
def test_a_move_is_read_when_sent_as_json(active_game, clients, content_type, status):
    client = clients[player_to_move(active_game)]
    legal = client.get(games_url(active_game["id"], "legal-moves")).json()
    before = snapshot(active_game["id"])
    body = json.dumps({"move": legal["legal_moves"][0], "expected_ply": legal["ply"]})
    response = client.post(games_url(active_game["id"], "moves"), body, content_type=content_type)
    assert response.status_code == status, response.content
    if status != 201:
        assert "Unsupported media type" in response.json()["detail"]
        assert snapshot(active_game["id"]) == before
