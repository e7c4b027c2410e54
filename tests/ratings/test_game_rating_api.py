"""What a finished game did to the ratings, for scripts (#28): `GET /api/games/<id>/rating/`
says whether the game is rated, why not (a stable code and the sentence the game's page shows)
and each seat's rating before and after it. The page and the API give the reason `game_rate`
decided by."""

from __future__ import annotations

import uuid

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from games import services
from games.models import Game
from ratings.serializers import GameRatingSerializer, SeatRatingSerializer
from tests.ratings.test_fair_play import rated, resigned_game
from tests.support.factories import against_computer
from tests.support.urls import games_url

pytestmark = pytest.mark.django_db


def rating_of(game_id, client=None, **headers):
    return (client or APIClient()).get(games_url(game_id, "rating"), **headers)


def test_a_rated_game_gives_each_seat_its_rating_before_and_after(alice, bob):
    game = resigned_game(alice, bob, moves=6)
    assert rated(game)

    response = rating_of(game.id)  # public, like the finished game itself

    assert response.status_code == 200
    body = response.json()
    assert set(body) == set(GameRatingSerializer().fields)
    assert body["rated"] is True
    assert body["reason"] is None and body["reason_text"] is None
    seats = {seat.position: seat for seat in Game.objects.get(pk=game.id).seats.all()}
    for row in body["seats"]:
        assert set(row) == set(SeatRatingSerializer().fields)
        seat = seats[row["position"]]
        assert row["username"] == seat.user.username
        assert (row["rating_before"], row["rating_after"]) == (
            seat.rating_before,
            seat.rating_after,
        )
        assert row["change"] == seat.rating_after - seat.rating_before
    winner = next(row for row in body["seats"] if row["username"] == "alice")
    assert winner["change"] > 0


def test_a_game_resigned_at_once_is_unrated_as_too_short(alice, bob):
    game = resigned_game(alice, bob)

    body = rating_of(game.id).json()

    assert body["rated"] is False
    assert body["reason"] == "too_short"
    assert "resigned or abandoned before every player had made 3 moves" in body["reason_text"]
    assert [
        (row["rating_before"], row["rating_after"], row["change"]) for row in body["seats"]
    ] == [(None, None, None)] * 2


def test_a_pair_past_its_daily_games_is_unrated_by_the_pair_limit(alice, bob):
    for _ in range(3):
        assert rated(resigned_game(alice, bob, moves=6))
    past_limit = resigned_game(alice, bob, moves=6)
    assert not rated(past_limit)

    body = rating_of(past_limit.id).json()

    assert body["rated"] is False
    assert body["reason"] == "pair_limit"
    assert "only 3 games a day and 10 a week between the same players" in body["reason_text"]


def test_the_page_and_the_api_give_the_same_reason(alice, bob, client_for):
    game = resigned_game(alice, bob)
    page = client_for(bob).get(reverse("games:detail", args=[game.id])).content.decode()

    text = rating_of(game.id).json()["reason_text"]

    assert 'id="unrated-reason"' in page and text in page


def test_a_game_against_the_computer_is_never_rated(alice, client_for):
    game = services.game_resign(game_id=against_computer(alice).id, user=alice)
    assert game.status == Game.Status.FINISHED
    # The page has nothing to explain: such a game is never rated.
    page = client_for(alice).get(reverse("games:detail", args=[game.id])).content.decode()
    assert 'id="unrated-reason"' not in page

    body = rating_of(game.id).json()

    assert body["rated"] is False
    assert body["reason"] == "not_between_people"
    assert "games between people" in body["reason_text"]
    computer = next(row for row in body["seats"] if row["username"] is None)
    assert computer["name"].startswith("Computer")


def test_a_game_in_progress_is_not_rated_yet(alice, bob, start_game, api_client_for):
    game = start_game(alice, bob)

    response = rating_of(game.id, api_client_for(alice))

    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "game_not_finished"
    assert "not over yet" in body["detail"]
    assert body["current_ply"] == game.ply


@pytest.mark.parametrize("game_id", [uuid.uuid4(), "not-a-game"])
def test_an_unknown_game_is_404(game_id):
    response = rating_of(game_id)

    assert response.status_code == 404
    assert response.json()["code"] == "game_not_found"


def test_the_reason_is_in_the_request_language(alice, bob):
    game = resigned_game(alice, bob)

    body = rating_of(game.id, HTTP_ACCEPT_LANGUAGE="ko").json()

    assert body["reason"] == "too_short"
    assert not body["reason_text"].isascii()


def test_the_schema_describes_the_game_rating(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/games/{game_id}/rating/"]["get"]
    assert {"200", "404", "409"} <= set(operation["responses"])
    fields = schema["components"]["schemas"]["GameRating"]["properties"]
    assert set(fields) == set(GameRatingSerializer().fields)
    assert "game_not_finished" in str(schema["components"]["schemas"]["Error"])
