"""The game API with API tokens, and without credentials."""

import pytest
from rest_framework.test import APIClient

from accounts.services import token_create
from tests.support.play import player_to_move
from tests.support.records import snapshot
from tests.support.urls import games_url


def test_a_token_client_plays_a_move(active_game, alice, bob):
    mover = alice if player_to_move(active_game) == "alice" else bob
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_create(user=mover)[1]}")
    legal = client.get(games_url(active_game["id"], "legal-moves")).json()
    response = client.post(
        games_url(active_game["id"], "moves"),
        {"move": legal["legal_moves"][0], "expected_ply": legal["ply"]},
        format="json",
    )
    assert response.status_code == 201
    assert response.json()["ply"] > active_game["ply"]


def test_a_bad_token_is_401_and_changes_nothing(active_game):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    before = snapshot(active_game["id"])
    response = client.post(
        games_url(active_game["id"], "moves"),
        {"move": "F1 blue 1", "expected_ply": active_game["ply"]},
        format="json",
    )
    assert response.status_code == 401
    assert response.json()["detail"] == "Invalid token."
    assert snapshot(active_game["id"]) == before


def test_anonymous_reads_are_refused(active_game):
    for url in (games_url(), games_url(active_game["id"]), games_url(active_game["id"], "log")):
        response = APIClient().get(url)
        assert response.status_code == 401, url
        assert "credentials were not provided" in response.json()["detail"]


@pytest.mark.parametrize(
    ("header", "status", "detail"),
    [
        ("Token", 401, "Invalid token header. No credentials provided."),
        ("Token a b", 401, "Invalid token header. Token string should not contain spaces."),
        ("token   {key}  ", 201, None),  # the keyword in any case, spaces around the key
        ("Bearer {key}", 401, "Authentication credentials were not provided."),
    ],
)
def test_the_authorization_header_is_read_as_drf_reads_it(
    active_game, alice, bob, header, status, detail
):
    mover = alice if player_to_move(active_game) == "alice" else bob
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header.format(key=token_create(user=mover)[1]))
    legal = APIClient()
    legal.force_authenticate(mover)
    moves = legal.get(games_url(active_game["id"], "legal-moves")).json()
    before = snapshot(active_game["id"])
    response = client.post(
        games_url(active_game["id"], "moves"),
        {"move": moves["legal_moves"][0], "expected_ply": moves["ply"]},
        format="json",
    )
    assert response.status_code == status, response.content
    if detail is not None:
        assert response.json()["detail"] == detail
        assert snapshot(active_game["id"]) == before
