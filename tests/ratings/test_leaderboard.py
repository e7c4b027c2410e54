"""The leaderboard page and API: public, ordered by rating, filtered by kind of game, paginated,
with the signed-in player's own rank, in a fixed number of queries."""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import Profile
from ratings import selectors
from ratings.models import PlayerRecord, Rating
from ratings.serializers import (
    LeaderboardPageSerializer,
    LeaderboardRowSerializer,
    LeaderboardStandingSerializer,
)
from tests.support.play import play_to_end

pytestmark = pytest.mark.django_db

API = "/api/leaderboard/"
# Measured with the cache emptied: the newest finished game (the key the count is kept under),
# count, page; and for a signed-in player their own record and rank (+2); the page also reads
# the signed-in user, and the count of games waiting for them that every page shows.
API_BUDGET = 6
PAGE_BUDGET = 8


def rate_player(
    user, rating: float, kinds: dict[tuple[str, int], tuple[int, int]], opponents: int = 10
) -> None:
    """Give `user` a rating and records, as rated games would have (written directly: these
    tests are about reading them). `kinds` maps (variant, players) to (games, wins); the
    any-kind records are their sums, as the rating service keeps them."""
    Rating.objects.create(user=user, rating=rating, opponents=opponents)
    totals: dict[tuple[str, int], list[int]] = {}
    for (variant, players), (games, wins) in kinds.items():
        for kind in ((variant, players), (variant, 0), ("", players), ("", 0)):
            counts = totals.setdefault(kind, [0, 0])
            counts[0] += games
            counts[1] += wins
    PlayerRecord.objects.bulk_create(
        PlayerRecord(user=user, variant=v, num_players=n, games=g, wins=w, rating=rating)
        for (v, n), (g, w) in totals.items()
    )


@pytest.fixture
def board(make_user):
    """Six rated players (and one with too few games), best first: ann (colored 2p and gray
    3p), ben (colored 2p), cat (gray 3p), dan (colored 4p), eve (colored 2p), fay (gray 2p);
    gus has 3 games."""
    made = {}
    specs = [
        ("ann", 1500, {("colored", 2): (4, 3), ("gray", 3): (6, 2)}),
        ("ben", 1400, {("colored", 2): (8, 4)}),
        ("cat", 1300, {("gray", 3): (5, 1)}),
        ("dan", 1200, {("colored", 4): (10, 5)}),
        ("eve", 1100, {("colored", 2): (20, 5)}),
        ("fay", 1000, {("gray", 2): (5, 0)}),
        ("gus", 1900, {("colored", 2): (3, 3)}),
    ]
    for name, rating, kinds in specs:
        made[name] = make_user(name)
        rate_player(made[name], rating, kinds)
    Profile.objects.filter(user=made["ann"]).update(display_name="Ann the Great")
    return made


def usernames(body: dict) -> list[str]:
    return [row["username"] for row in body["results"]]


def listed(html: str) -> list[str]:
    """The usernames in the page's leaderboard table, in order."""
    if "<table" not in html:
        return []
    table = html[html.index("<table") : html.index("</table>")]
    return re.findall(r'href="/players/([^/"]+)/"', table)


def test_the_api_is_public_and_matches_its_schema(board, api_client_for):
    for client in (APIClient(), api_client_for(board["eve"])):
        body = client.get(API).json()
        assert set(body) == set(LeaderboardPageSerializer().fields)
        for row in body["results"]:
            assert set(row) == set(LeaderboardRowSerializer().fields)
    assert body["me"] is not None
    assert set(body["me"]) == set(LeaderboardStandingSerializer().fields)
    assert APIClient().get(API).json()["me"] is None


def test_players_by_rating_with_enough_games(board, settings):
    body = APIClient().get(API).json()
    assert usernames(body) == ["ann", "ben", "cat", "dan", "eve", "fay"]  # not gus: 3 games
    assert body["count"] == 6 and body["min_games"] == 5
    assert [r["rank"] for r in body["results"]] == [1, 2, 3, 4, 5, 6]
    ann = body["results"][0]
    assert ann == {
        "rank": 1,
        "username": "ann",
        "display_name": "Ann the Great",
        "rating": 1500,
        "games": 10,
        "wins": 5,
        "win_rate": 0.5,
    }
    settings.RATINGS_MIN_GAMES = 3
    assert usernames(APIClient().get(API).json())[0] == "gus"


@pytest.mark.parametrize(
    ("query", "expected", "games"),
    [
        ("variant=gray", ["ann", "cat", "fay"], [6, 5, 5]),
        ("players=2", ["ben", "eve", "fay"], [8, 20, 5]),  # ann: only 4 two-player games
        ("variant=colored&players=2", ["ben", "eve"], [8, 20]),
        ("variant=colored", ["ben", "dan", "eve"], [8, 10, 20]),
        ("variant=gray&players=4", [], []),
    ],
)
def test_filters_choose_players_and_count_their_games_of_that_kind(board, query, expected, games):
    body = APIClient().get(f"{API}?{query}").json()
    assert usernames(body) == expected
    assert [r["games"] for r in body["results"]] == games
    assert [r["rank"] for r in body["results"]] == list(range(1, len(expected) + 1))


def test_invalid_filters_are_refused(board):
    for query in ("variant=purple", "players=5", "players=two"):
        response = APIClient().get(f"{API}?{query}")
        assert response.status_code == 400, query
        assert "detail" in response.json()


def test_pages_and_own_rank(board, api_client_for):
    client = api_client_for(board["eve"])
    first = client.get(f"{API}?page_size=2").json()
    assert usernames(first) == ["ann", "ben"] and first["previous"] is None
    assert first["count"] == 6 and "page=2" in first["next"]
    # Eve is on page 3, and sees her rank on every page.
    assert first["me"]["rank"] == 5 and first["me"]["username"] == "eve"
    second = client.get(first["next"]).json()
    assert usernames(second) == ["cat", "dan"]
    assert [r["rank"] for r in second["results"]] == [3, 4]
    assert second["me"]["rank"] == 5
    assert client.get(f"{API}?page_size=2&page=9").status_code == 404
    # Within a filter, her rank there.
    assert client.get(f"{API}?players=2").json()["me"]["rank"] == 2


def test_own_row_before_enough_games(board, api_client_for):
    me = api_client_for(board["gus"]).get(API).json()["me"]
    assert me["rank"] is None and me["games_needed"] == 2 and me["rating"] == 1900
    # No game of the kind at all: no row.
    assert api_client_for(board["gus"]).get(f"{API}?variant=gray").json()["me"] is None


def test_equal_ratings_rank_in_a_stable_order(make_user):
    users = [make_user(f"tie{i}") for i in range(4)]
    for user in users:
        rate_player(user, 1234.0, {("colored", 2): (5, 1)})
    body = APIClient().get(API).json()
    assert usernames(body) == [u.username for u in users]
    for user in users:
        client = APIClient()
        client.force_authenticate(user)
        assert client.get(API).json()["me"]["rank"] == users.index(user) + 1


def test_the_page_is_public(board, client_for):
    page = Client().get(reverse("ratings:leaderboard"))
    assert page.status_code == 200
    html = page.content.decode()
    assert listed(html) == ["ann", "ben", "cat", "dan", "eve", "fay"]
    assert "Ann the Great" in html
    assert "my-rank" not in html
    # The navigation links to it.
    assert f'href="{reverse("ratings:leaderboard")}"' in html

    mine = client_for(board["eve"]).get(reverse("ratings:leaderboard")).content.decode()
    assert "You are <strong>#5</strong>" in mine
    few = client_for(board["gus"]).get(reverse("ratings:leaderboard")).content.decode()
    assert "2 more rated games" in few


def test_the_page_filters_and_paginates(board, client_for, settings, monkeypatch):
    monkeypatch.setattr(selectors, "PAGE_SIZE", 2)
    url = reverse("ratings:leaderboard")
    client = client_for(board["fay"])
    html = client.get(url, {"variant": "gray"}).content.decode()
    assert listed(html) == ["ann", "cat"]
    assert "Page 1 of 2" in html and "?variant=gray&amp;page=2" in html
    assert "You are <strong>#3</strong>" in html
    html = client.get(url, {"variant": "gray", "page": 2}).content.decode()
    assert listed(html) == ["fay"] and "?variant=gray&amp;page=1" in html
    # A filter that is not a choice shows every kind, and says so.
    html = client.get(url, {"players": "9"}).content.decode()
    assert "not one of the choices" in html and listed(html) == ["ann", "ben"]


def count(func) -> int:
    # Cold: nothing from the cache (the count of games waiting that every page shows, sessions).
    cache.clear()
    with CaptureQueriesContext(connection) as ctx:
        response = func()
    assert response.status_code == 200
    return len(ctx.captured_queries)


def test_query_budget_does_not_grow_with_players(
    board, make_user, api_client_for, client_for, django_assert_max_num_queries
):
    url = reverse("ratings:leaderboard")
    # Signed in and not (the clients are made first: signing in costs queries of its own).
    api_visitor, api_player = APIClient(), api_client_for(board["eve"])
    visitor, player = Client(), client_for(board["eve"])

    def measure() -> list[int]:
        counts = []
        for make_request, budget in (
            (lambda: api_visitor.get(f"{API}?variant=colored"), API_BUDGET),
            (lambda: api_player.get(f"{API}?variant=colored"), API_BUDGET),
            (lambda: visitor.get(url), PAGE_BUDGET),
            (lambda: player.get(url, {"players": 2}), PAGE_BUDGET),
        ):
            with django_assert_max_num_queries(budget):
                counts.append(count(make_request))
        return counts

    few = measure()
    for i in range(60):
        rate_player(make_user(f"more{i}"), 900.0 + i, {("colored", 2): (5 + i % 3, 2)})
    assert measure() == few


def test_the_index_orders_the_leaderboard(board):
    """PostgreSQL can read a leaderboard page in rating order from the index, with no sort.
    (With a few rows it would rather scan the table, so that is switched off here.)"""
    sql, params = selectors.leaderboard(variant="gray", num_players=3)[:50].query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute(f"EXPLAIN {sql}", params)
        plan = "\n".join(row[0] for row in cursor.fetchall())
    assert "playerrecord_board_idx" in plan, plan
    assert "Sort" not in plan, plan


def test_the_schema_describes_the_leaderboard(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    operation = schema["paths"]["/api/leaderboard/"]["get"]
    names = {p["name"] for p in operation["parameters"]}
    assert {"variant", "players", "page", "page_size"} <= names
    assert {"200", "400", "404"} <= set(operation["responses"])


def test_ratings_from_real_games_reach_the_leaderboard(start_game, alice, bob, settings):
    settings.RATINGS_MIN_GAMES = 1
    settings.RATINGS_MIN_OPPONENTS = 1
    game = play_to_end(start_game(alice, bob).id)
    body = APIClient().get(API).json()
    assert sorted(usernames(body)) == ["alice", "bob"]
    by_name = {r["username"]: r for r in body["results"]}
    for seat in game.seat_list:
        assert by_name[seat.user.username]["rating"] == seat.rating_after


def test_the_count_is_counted_again_once_a_game_finishes(finished_game, alice, bob):
    """The leaderboard keeps its count of players under a key that names the newest finished
    game (ratings change with a game's result) and the thresholds for being listed."""
    before = selectors.leaderboard_count_key(variant="colored", num_players=2)
    assert before == selectors.leaderboard_count_key(variant="colored", num_players=2)
    assert before != selectors.leaderboard_count_key(variant="gray", num_players=2)
    assert before != selectors.leaderboard_count_key(variant="colored")
    finished_game([(alice, 40, 1), (bob, 30, 2)])
    assert before != selectors.leaderboard_count_key(variant="colored", num_players=2)
