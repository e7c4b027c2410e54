"""The history of finished games: the public page `/history/` and the game API with
`status=finished` or any history filter, sharing `games.filters.GameHistoryFilter`."""

from __future__ import annotations

import pytest
from django.urls import reverse
from rest_framework.test import APIClient

from games import selectors

pytestmark = pytest.mark.django_db

HISTORY = "/history/"
API = "/api/games/"


@pytest.fixture
def games(finished_game, alice, bob, carol):
    """Five played games and a study, each a different case (newest first by `days_ago`)."""
    return {
        "alice_won": finished_game([(alice, 60, 1), (bob, 40, 2)], days_ago=1),
        "alice_shared": finished_game([(alice, 50, 1), (bob, 50, 1), (carol, 20, 3)], days_ago=2),
        "alice_lost": finished_game([(alice, 30, 2), (carol, 45, 1)], variant="gray", days_ago=3),
        "bob_carol": finished_game([(bob, 33, 2), (carol, 44, 1)], days_ago=10),
        "alice_vs_computer": finished_game(
            [(alice, 70, 1), (None, 12, 2), (None, 11, 3), (None, 10, 4)], days_ago=20
        ),
        "study": finished_game([(alice, 99, 1), (bob, 1, 2)], days_ago=0, study=True),
    }


def page_ids(client, **params) -> list[str]:
    response = client.get(HISTORY, params)
    assert response.status_code == 200
    return [str(row["id"]) for row in response.context["rows"]]


def api_ids(**params) -> list[str]:
    response = APIClient().get(API, {"status": "finished", **params})
    assert response.status_code == 200, response.content
    return [row["id"] for row in response.json()["results"]]


def ids(games, *names) -> list[str]:
    return [str(games[name].id) for name in names]


CASES = [
    ({}, ["alice_won", "alice_shared", "alice_lost", "bob_carol", "alice_vs_computer"]),
    (
        {"player": "alice"},
        ["alice_won", "alice_shared", "alice_lost", "alice_vs_computer"],
    ),
    ({"player": "ALICE"}, ["alice_won", "alice_shared", "alice_lost", "alice_vs_computer"]),
    ({"player": "alice", "result": "won"}, ["alice_won", "alice_vs_computer"]),
    ({"player": "alice", "result": "shared"}, ["alice_shared"]),
    ({"player": "alice", "result": "lost"}, ["alice_lost"]),
    ({"player": "bob", "result": "shared"}, ["alice_shared"]),
    ({"player": "bob", "result": "lost"}, ["alice_won", "bob_carol"]),
    ({"player": "carol", "result": "won"}, ["alice_lost", "bob_carol"]),
    ({"variant": "gray"}, ["alice_lost"]),
    ({"players": 4}, ["alice_vs_computer"]),
    ({"players": 3}, ["alice_shared"]),
    (
        {"finished_after": "2026-02-26", "finished_before": "2026-02-28"},
        ["alice_shared", "alice_lost", "alice_won"],
    ),
    ({"finished_before": "2026-02-19"}, ["bob_carol", "alice_vs_computer"]),
    ({"player": "nobody"}, []),
]


@pytest.mark.parametrize(("params", "expected"), CASES)
def test_each_filter_narrows_the_page_and_the_api_alike(client, games, params, expected):
    want = sorted(ids(games, *expected))
    assert sorted(page_ids(client, **params)) == want
    assert sorted(api_ids(**params)) == want


def test_a_player_is_found_by_the_name_every_page_shows_them_by(client, games, alice, carol):
    """Issue #58: "Alice L.", the display name shown everywhere, finds alice's games as her
    username does, in any letter case; a display name two players share finds both's."""
    alice.profile.display_name = "Alice L."
    alice.profile.save()
    carol.profile.display_name = "Cee"
    carol.profile.save()
    want = sorted(ids(games, "alice_won", "alice_shared", "alice_lost", "alice_vs_computer"))
    for name in ("Alice L.", "alice l.", "  ALICE L. ", "alice"):
        assert sorted(page_ids(client, player=name)) == want, name
        assert sorted(api_ids(player=name)) == want, name
    assert sorted(page_ids(client, player="Alice L.", result="lost")) == ids(games, "alice_lost")
    assert page_ids(client, player="Alice L") == []  # a name is matched whole, not its start
    carol.profile.display_name = "Alice L."
    carol.profile.save()
    both = ids(games, "alice_won", "alice_shared", "alice_lost", "bob_carol", "alice_vs_computer")
    assert sorted(page_ids(client, player="Alice L.")) == sorted(both)
    assert sorted(api_ids(player="Alice L.")) == sorted(both)
    # A username names its player alone, whoever takes it as a display name.
    carol.profile.display_name = "bob"
    carol.profile.save()
    assert sorted(page_ids(client, player="BOB")) == sorted(page_ids(client, player="bob"))
    assert str(games["alice_lost"].id) not in page_ids(client, player="bob")


def test_the_player_box_suggests_names_as_the_invitations_do(client, games, alice, client_for):
    """The box lists the page's suggestions (base.html's datalist, filled as one types by
    static/games/player_search.js), which a signed-in player's page has."""
    page = client_for(alice).get(HISTORY).content.decode()
    assert 'list="player-suggestions"' in page
    assert '<datalist id="player-suggestions"' in page


def test_newest_first_and_studies_left_out(client, games):
    order = ["alice_won", "alice_shared", "alice_lost", "bob_carol", "alice_vs_computer"]
    assert page_ids(client) == ids(games, *order)
    assert api_ids() == ids(games, *order)
    assert str(games["study"].id) not in page_ids(client, player="alice")


def test_games_in_progress_are_not_history(client, games, start_game, alice, bob):
    game = start_game(alice, bob)
    assert str(game.id) not in page_ids(client)
    assert str(game.id) not in api_ids(player="alice")


def test_the_page_is_public_and_shows_each_row(client, games):
    response = client.get(HISTORY)
    assert response.status_code == 200
    page = response.content.decode()
    game = games["alice_shared"]
    assert reverse("games:replay", args=[game.id]) in page
    assert reverse("games:replay", args=[game.id]) == f"/games/{game.id}/replay/"
    row = page.split(f"/games/{game.id}/replay/")[0].rsplit('<tr class="history-row">', 1)[1]
    assert "alice" in row and "bob" in row and "carol" in row
    assert "50" in row and "20" in row and "1st" in row and "3rd" in row
    assert "3 players" in row and "colored wall" in row and "27 Feb 2026" in row


def test_the_api_rows_have_players_with_scores_and_places(games):
    response = APIClient().get(API, {"player": "carol", "variant": "gray"})
    assert response.status_code == 200
    body = response.json()
    assert body["count"] == 1
    (row,) = body["results"]
    assert row["variant"] == "gray" and row["num_players"] == 2 and row["finished_at"]
    assert [(p["username"], p["final_score"], p["place"]) for p in row["players"]] == [
        ("alice", 30, 2),
        ("carol", 45, 1),
    ]


def test_my_games_without_filters_stay_as_they_were(games, alice, api_client_for):
    assert APIClient().get(API).status_code in (401, 403)
    listed = api_client_for(alice).get(API).json()
    assert isinstance(listed, list)
    assert str(games["study"].id) not in {g["id"] for g in listed}
    assert APIClient().get(API, {"status": "active"}).status_code in (401, 403)


def test_bad_filters(client, games):
    assert APIClient().get(API, {"variant": "plaid"}).status_code == 400
    assert APIClient().get(API, {"status": "finished", "finished_after": "soon"}).status_code == 400
    assert APIClient().get(API, {"status": "finished", "page": 9}).status_code == 404
    # The page shows every game and says the filter was not understood.
    response = client.get(HISTORY, {"players": "9"})
    assert response.status_code == 200
    assert len(response.context["rows"]) == 5


def test_pagination(client, finished_game, alice, bob, monkeypatch):
    monkeypatch.setattr(selectors, "HISTORY_PAGE_SIZE", 3)
    made = [finished_game([(alice, i, 1), (bob, 0, 2)], days_ago=i) for i in range(7)]
    newest_first = [str(g.id) for g in made]
    assert page_ids(client, player="alice") == newest_first[:3]
    assert page_ids(client, player="alice", page=3) == newest_first[6:]
    response = client.get(HISTORY, {"player": "alice", "page": 2})
    assert "player=alice&amp;page=3" in response.content.decode()
    body = APIClient().get(API, {"player": "alice", "page_size": 3, "page": 2}).json()
    assert body["count"] == 7
    assert [row["id"] for row in body["results"]] == newest_first[3:6]
    assert body["next"] and body["previous"]


@pytest.mark.parametrize("count", [1, 8])
def test_query_budget_does_not_grow_with_games(
    count, client, finished_game, alice, bob, carol, django_assert_max_num_queries
):
    for i in range(count):
        finished_game([(alice, 40, 1), (bob, 30, 2), (carol, 20, 3)], days_ago=i)
    # the newest finished game (the count's key), the players of that name (by username or
    # display name), the count (kept after the first time), the page of games, their
    # creators, their seats with users and profiles: a field a row reads that the selector
    # does not load would cost a query per row
    with django_assert_max_num_queries(6):
        response = client.get(HISTORY, {"player": "alice", "result": "won"})
    assert len(response.context["rows"]) == count
    with django_assert_max_num_queries(6):
        response = APIClient().get(API, {"status": "finished", "player": "bob"})
    assert response.json()["count"] == count
    with django_assert_max_num_queries(5):
        response = APIClient().get(API, {"status": "finished", "player": "bob"})
    assert response.json()["count"] == count


def test_schema_describes_the_history(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    get = schema["paths"]["/api/games/"]["get"]
    names = {p["name"] for p in get["parameters"]}
    assert {"status", "player", "variant", "players", "result"} <= names
    assert {"finished_after", "finished_before", "page", "page_size"} <= names
    page = schema["components"]["schemas"]["HistoryPage"]
    assert set(page["properties"]) == {"count", "next", "previous", "results"}


def test_the_count_is_kept_until_a_game_finishes(
    client, finished_game, alice, bob, django_assert_max_num_queries
):
    """The count of finished games is counted once and kept (`history_count_key`), and counted
    again when a game finishes: the page never shows a number behind its rows."""
    finished_game([(alice, 40, 1), (bob, 30, 2)], days_ago=2)
    assert client.get(HISTORY).context["page"].paginator.count == 1
    # kept: the newest game, the page, its creators and seats; no count
    with django_assert_max_num_queries(4):
        assert client.get(HISTORY).context["page"].paginator.count == 1
    newest = finished_game([(alice, 10, 2), (bob, 30, 1)], days_ago=0)
    response = client.get(HISTORY)
    assert response.context["page"].paginator.count == 2
    assert page_ids(client)[0] == str(newest.id)
    assert APIClient().get(API, {"status": "finished"}).json()["count"] == 2
    # each filter has its own count
    assert (
        client.get(HISTORY, {"player": "alice", "result": "won"}).context["page"].paginator.count
        == 1
    )


def test_a_row_shows_what_it_holds_now(client, finished_game, alice, bob):
    """Each row's markup is kept under what it shows: a player's new display name shows at once,
    and the kept rows are in the reader's language."""
    finished_game([(alice, 40, 1), (bob, 30, 2)], days_ago=1)
    first = client.get(HISTORY).content.decode()
    assert client.get(HISTORY).content.decode().count("history-row") == 1
    assert 'href="/players/alice/"' in first
    alice.profile.display_name = "Alice the Bold"
    alice.profile.save()
    after = client.get(HISTORY).content.decode()
    assert "Alice the Bold" in after and 'href="/players/alice/"' in after
    korean = client.get(HISTORY, HTTP_ACCEPT_LANGUAGE="ko").content.decode()
    assert "1위" in korean and "다시 보기" in korean
    assert "1st" in client.get(HISTORY, HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_the_rows_render_with_the_cache_failing(client, finished_game, alice, bob, monkeypatch):
    """The cache is a helper: when it fails (a read gives nothing, a write is dropped), every
    row is rendered as it would be from the cache."""
    from django.core.cache import cache

    finished_game([(alice, 40, 1), (bob, 30, 2)], days_ago=1)

    def table() -> str:
        page = client.get(HISTORY).content.decode()
        return page[page.index('<table class="history-table">') : page.index("</table>")]

    kept = table()
    assert table() == kept and "alice" in kept
    monkeypatch.setattr(cache, "get_many", lambda keys, **kw: {})
    monkeypatch.setattr(cache, "set_many", lambda data, timeout=None, **kw: list(data))
    monkeypatch.setattr(cache, "get_or_set", lambda key, default, timeout=None, **kw: None)
    assert table() == kept
