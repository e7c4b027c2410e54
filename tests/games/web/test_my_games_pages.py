"""Fair play (issue #28): a player's own games come a page at a time, on `/api/games/` and the
"My games" page: however many games a player (or a hostile account playing against them) piles
up, a page costs the same few queries and holds at most a page of games; the pages follow one
another with no game twice and none left out, their turn first."""

import pytest
from django.urls import reverse

from games.models import Game
from tests.support.factories import api_client_for, client_for, start_game
from tests.support.urls import games_url

pytestmark = pytest.mark.django_db


@pytest.fixture
def many_games(alice, bob):
    """alice's 7 games with bob: 5 in progress, 2 finished."""
    games = [start_game(alice, bob) for _ in range(7)]
    for game in games[:2]:
        Game.objects.filter(pk=game.id).update(status=Game.Status.FINISHED)
    return games


def test_the_api_lists_a_page_at_a_time_with_links_to_the_others(alice, many_games):
    client = api_client_for(alice)

    first = client.get(games_url(page_size=3))
    second = client.get(games_url(page_size=3, page=2))
    third = client.get(games_url(page_size=3, page=3))

    assert [len(r.json()) for r in (first, second, third)] == [3, 3, 1]
    ids = [g["id"] for r in (first, second, third) for g in r.json()]
    assert sorted(ids) == sorted(str(g.id) for g in many_games)
    assert "page=2" in first["Link"] and 'rel="next"' in first["Link"]
    assert "prev" not in first["Link"]
    assert 'rel="next"' in second["Link"] and 'rel="prev"' in second["Link"]
    assert "next" not in third["Link"]
    # Their turn first, the finished ones last.
    listed = first.json() + second.json() + third.json()
    turns = [g["is_my_turn"] for g in listed if g["status"] == "active"]
    assert turns == sorted(turns, reverse=True)
    assert [g["status"] for g in listed][-2:] == ["finished", "finished"]
    # The default page holds every one of a handful of games: the shape is the list it was.
    everything = client.get(games_url()).json()
    assert isinstance(everything, list) and len(everything) == 7


@pytest.mark.parametrize(
    "query", [{"page": 0}, {"page": "x"}, {"page_size": 0}, {"page_size": 101}]
)
def test_a_bad_page_is_a_400_that_says_what_is_wrong(alice, query):
    response = api_client_for(alice).get(games_url(**query))
    assert response.status_code == 400
    assert next(iter(query)) in response.json()["detail"]


def test_a_page_past_the_last_is_a_404(alice, many_games):
    response = api_client_for(alice).get(games_url(page=2))
    assert response.status_code == 404
    assert response.json()["detail"] == "There is no page 2."


def test_a_page_costs_the_same_however_many_games(
    alice, bob, many_games, django_assert_max_num_queries
):
    client = api_client_for(alice)
    with django_assert_max_num_queries(12) as few:
        assert len(client.get(games_url(page_size=2)).json()) == 2
    for _ in range(5):
        start_game(alice, bob)
    with django_assert_max_num_queries(len(few.captured_queries)):
        assert len(client.get(games_url(page_size=2)).json()) == 2


def test_the_my_games_page_shows_pages(alice, bob, many_games, monkeypatch):
    from games import selectors

    monkeypatch.setattr(selectors, "MY_GAMES_PAGE_SIZE", 4)
    client = client_for(alice)

    first = client.get(reverse("games:my_games")).content.decode()
    second = client.get(reverse("games:my_games") + "?page=2").content.decode()

    shown = lambda page: sum(page.count(f"/games/{g.id}/") > 0 for g in many_games)  # noqa: E731
    assert shown(first) == 4 and shown(second) == 3
    assert 'href="?page=2" rel="next"' in first and "Page 1" in first
    assert 'href="?page=1" rel="prev"' in second and 'rel="next"' not in second
    assert client.get(reverse("games:my_games") + "?page=3").status_code == 404
    assert client.get(reverse("games:my_games") + "?page=nope").status_code == 404
