"""A script finds games to play: the lobby's open games (public) and its player's invitations,
answered and joined through the API."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from games import services
from games.serializers import LobbyGameSerializer
from tests.support.urls import api_url

LOBBY = api_url("lobby")
INVITATIONS = api_url("invitations")


def ids(page: dict) -> list[str]:
    return [row["id"] for row in page["results"]]


@pytest.fixture
def waiting(alice, bob, carol, create_game):
    """alice's game with an open seat, and carol's, to which she invited bob (no open seat)."""
    alice.profile.display_name = "Alice the Tiler"
    alice.profile.save()
    open_game = create_game(alice, [{"kind": "open"}, {"kind": "computer", "level": "greedy"}])
    invitation = create_game(carol, [{"kind": "invite", "username": "bob"}])
    return open_game, invitation


def test_the_lobby_is_public(waiting, db):
    open_game, invitation = waiting

    response = APIClient().get(LOBBY)

    assert response.status_code == 200
    page = response.json()
    assert (page["count"], page["next"], page["previous"]) == (1, None, None)
    [row] = page["results"]
    assert row["id"] == open_game["id"]
    assert set(row) == set(LobbyGameSerializer().fields)
    assert [p["display_name"] for p in row["players"]] == [
        "Alice the Tiler",
        "Open seat",
        "Computer (greedy)",
    ]
    assert row["created_by"] == "alice"
    assert row["created_by_name"] == "Alice the Tiler"
    assert (row["variant"], row["num_players"], row["days_per_move"]) == ("colored", 3, 3)
    assert (row["seats_taken"], row["open_seats"]) == (2, 1)  # alice and the computer
    assert row["created_at"]
    assert (row["is_mine"], row["can_join"]) == (False, False)


def test_the_creator_sees_their_game_marked_and_others_may_join(waiting, clients):
    open_game, _ = waiting

    mine = clients["alice"].get(LOBBY).json()["results"]
    theirs = clients["carol"].get(LOBBY).json()["results"]

    assert [(r["id"], r["is_mine"], r["can_join"]) for r in mine] == [
        (open_game["id"], True, False)
    ]
    assert [(r["id"], r["is_mine"], r["can_join"]) for r in theirs] == [
        (open_game["id"], False, True)
    ]


def test_join_from_the_lobby(waiting, clients):
    open_game, _ = waiting

    response = clients["carol"].post(api_url("games", open_game["id"], "join"))

    assert response.status_code == 200
    assert response.json()["status"] == "active"
    assert clients["bob"].get(LOBBY).json()["results"] == []
    # A game one sits in, not created, is not in one's lobby (it is in one's games).
    assert clients["carol"].get(LOBBY).json()["count"] == 0


def test_the_lobby_is_paginated_newest_first(alice, bob, create_game, clients):
    made = [create_game(alice, [{"kind": "open"}])["id"] for _ in range(3)]

    first = clients["bob"].get(LOBBY, {"page_size": 2}).json()
    second = clients["bob"].get(first["next"]).json()

    assert first["count"] == 3
    assert ids(first) + ids(second) == made[::-1]
    assert second["next"] is None
    assert clients["bob"].get(LOBBY, {"page": 9}).status_code == 404


def test_invitations_list_and_accept(waiting, clients):
    _, invitation = waiting
    assert clients["alice"].get(INVITATIONS).json()["count"] == 0

    page = clients["bob"].get(INVITATIONS).json()

    [row] = page["results"]
    assert row["id"] == invitation["id"]
    assert set(row) == set(LobbyGameSerializer().fields)
    assert (row["created_by"], row["is_mine"], row["can_join"]) == ("carol", False, False)
    # An invitation is not in the invited player's lobby: it is answered, not joined.
    assert invitation["id"] not in ids(clients["bob"].get(LOBBY).json())

    response = clients["bob"].post(api_url("invitations", invitation["id"], "accept"))

    assert response.status_code == 200
    assert response.json()["status"] == "active"
    assert clients["bob"].get(INVITATIONS).json()["results"] == []


def test_decline_an_invitation(waiting, clients):
    _, invitation = waiting

    response = clients["bob"].post(api_url("invitations", invitation["id"], "decline"))

    assert response.status_code == 200
    assert response.json()["status"] == "open"
    assert clients["bob"].get(INVITATIONS).json()["results"] == []


def test_the_invitation_endpoint_with_a_body_still_answers(waiting, clients):
    _, invitation = waiting

    response = clients["bob"].post(
        api_url("games", invitation["id"], "invitation"), {"accept": True}, format="json"
    )

    assert response.status_code == 200
    assert response.json()["status"] == "active"


def test_answering_without_an_invitation(waiting, clients):
    open_game, invitation = waiting
    for game_id in (open_game["id"], "00000000-0000-0000-0000-000000000000", "nonsense"):
        response = clients["bob"].post(api_url("invitations", game_id, "decline"))
        assert response.status_code == 404, game_id
    response = clients["bob"].post(api_url("invitations", invitation["id"], "accept"))
    assert clients["bob"].post(api_url("invitations", invitation["id"], "accept")).status_code == (
        409 if response.status_code == 200 else 404
    )


def test_invitations_need_signing_in(waiting, db):
    anonymous = APIClient()
    _, invitation = waiting
    assert anonymous.get(INVITATIONS).status_code in (401, 403)
    assert anonymous.post(api_url("invitations", invitation["id"], "accept")).status_code in (
        401,
        403,
    )


def make_waiting_games(alice, bob, carol, n: int) -> None:
    for _ in range(n):
        for creator, seats in (
            (bob, [services.SeatSpec(kind="open"), services.SeatSpec(kind="computer")]),
            (carol, [services.SeatSpec(kind="invite", username="alice")]),
            (alice, [services.SeatSpec(kind="open")]),
        ):
            services.game_create(
                creator=creator,
                num_players=len(seats) + 1,
                variant="gray",
                days_per_move=1,
                seats=seats,
            )


def count_queries(client, url: str) -> int:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(url).status_code == 200
    return len(ctx.captured_queries)


def test_the_lists_cost_the_same_for_one_and_five_games(alice, bob, carol, api_client_for):
    client = api_client_for(alice)
    make_waiting_games(alice, bob, carol, 1)
    one = {url: count_queries(client, url) for url in (LOBBY, INVITATIONS)}
    make_waiting_games(alice, bob, carol, 4)
    five = {url: count_queries(client, url) for url in (LOBBY, INVITATIONS)}

    assert client.get(LOBBY).json()["count"] == 10  # bob's and her own
    assert client.get(INVITATIONS).json()["count"] == 5
    assert one == five
    # The page's games with their seats, and the count.
    assert five[LOBBY] <= 3 and five[INVITATIONS] <= 3, five


def test_the_schema_lists_the_lobby_and_invitations(client, db):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    paths = schema["paths"]
    assert "get" in paths["/api/lobby/"] and "get" in paths["/api/invitations/"]
    for action in ("accept", "decline"):
        assert "post" in paths[f"/api/invitations/{{game_id}}/{action}/"]
    lobby = paths["/api/lobby/"]["get"]
    assert {"page", "page_size"} <= {p["name"] for p in lobby["parameters"]}
    assert lobby["security"] == [{"tokenAuth": []}, {"cookieAuth": []}, {}]
    row = schema["components"]["schemas"]["LobbyGame"]["properties"]
    assert {"is_mine", "can_join", "seats_taken", "open_seats", "created_by_name"} <= set(row)
