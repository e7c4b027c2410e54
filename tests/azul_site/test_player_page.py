"""A player's page: their record (games, wins, win rate, average and best score), their rating
and a chart of it over time, and their most recent finished games, in a fixed number of
queries."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from games.models import Seat
from ratings.models import Rating
from tests.support.play import play_to_end

pytestmark = pytest.mark.django_db


def player_url(user) -> str:
    return reverse("accounts:player", args=[user.username])


def stat(page: str, name: str) -> str:
    return re.search(rf'<dd id="stat-{name}">(.*?)</dd>', page).group(1)


@pytest.fixture
def played(start_game, alice, bob, finished_game):
    """Three games between alice and bob played to the end through the services (rated), and a
    study of alice's that counts for nothing."""
    games = [play_to_end(start_game(alice, bob).id, seed=seed) for seed in (1, 2, 3)]
    finished_game([(alice, 99, 1), (bob, 1, 2)], study=True)
    return games


def test_record_rating_and_chart_of_games_played_to_the_end(client, played, alice):
    seats = list(Seat.objects.filter(user=alice, game__in=played))
    scores = [s.final_score for s in seats]
    wins = sum(1 for s in seats if s.place == 1)

    response = client.get(player_url(alice))  # not signed in: the page is public
    assert response.status_code == 200
    page = response.content.decode()

    assert stat(page, "games") == "3"
    assert stat(page, "wins") == str(wins)
    assert stat(page, "win-rate") == f"{round(wins / 3 * 100)}%"
    assert stat(page, "average") == f"{sum(scores) / 3:.1f}"
    assert stat(page, "best") == str(max(scores))
    assert stat(page, "rating") == str(round(Rating.objects.get(user=alice).rating))
    assert response.context["stats"]["win_rate"] == pytest.approx(wins / 3)

    # One point per rated game, in the order they ended, the last at the current rating.
    assert page.count('class="rating-point"') == 3
    assert "<svg" in page and 'class="rating-line"' in page
    chart = response.context["chart"]
    by_end = sorted(seats, key=lambda s: s.game.finished_at)
    assert [p["rating"] for p in chart["points"]] == [s.rating_after for s in by_end]

    # Their finished games, each with its replay, and the way to all of them.
    for game in played:
        assert f"/games/{game.id}/replay/" in page
    assert 'href="/history/?player=alice"' in page


def test_a_player_without_games(client, alice):
    page = client.get(player_url(alice)).content.decode()
    assert stat(page, "games") == "0"
    assert stat(page, "rating") == "not rated yet"
    assert "rating-point" not in page
    assert "No rated game yet." in page


def test_chart_leaves_out_unrated_games(client, played, alice, finished_game, bob):
    finished_game([(alice, 10, 2), (None, 20, 1)])  # unrated: no rating_after on its seat
    page = client.get(player_url(alice)).content.decode()
    assert stat(page, "games") == "4"
    assert page.count('class="rating-point"') == 3


@pytest.mark.parametrize("count", [1, 8])
def test_query_budget_does_not_grow_with_games(
    count, client, client_for, finished_game, alice, bob, carol, django_assert_max_num_queries
):
    for i in range(count):
        game = finished_game([(alice, 40 + i, 1), (bob, 30, 2), (carol, 20, 3)], days_ago=i)
        Seat.objects.filter(game=game, user=alice).update(rating_before=i, rating_after=i + 1)
    # player, record, rating, chart, games, their creators, their seats, their pace
    # (games.selectors.pace), their events (events.panels)
    with django_assert_max_num_queries(9):
        response = client.get(player_url(alice))
    assert response.content.decode().count('class="rating-point"') == count
    # Signed in: the session and the site's header, and the player's current games, besides.
    carols = client_for(carol)
    with django_assert_max_num_queries(15):
        assert carols.get(player_url(alice)).status_code == 200
