"""The game's version as an ETag: conditional GETs of the game API and of the board page's live
endpoint (no waiting here), the wait's validation, the permissions and the schema."""

import time

import pytest

from tests.support.play import first_move, mover_and_other, play_forward
from tests.support.urls import games_url, live_url

pytestmark = pytest.mark.django_db


def test_the_api_answers_304_while_the_game_is_unchanged_and_the_new_game_once_it_moved(
    alice, bob, api_client_for, two_player_game
):
    game, users = two_player_game()
    client = api_client_for(bob)
    first = client.get(games_url(game.id))
    assert first.status_code == 200
    tag = first["ETag"]
    assert tag.startswith('"') and "private" in first["Cache-Control"]

    again = client.get(games_url(game.id), HTTP_IF_NONE_MATCH=tag)
    assert again.status_code == 304
    assert again.content == b""
    assert again["ETag"] == tag

    play_forward(game.id, moves=1, users=users, pick=first_move)
    changed = client.get(games_url(game.id), HTTP_IF_NONE_MATCH=tag)
    assert changed.status_code == 200
    assert changed.json()["ply"] == first.json()["ply"] + 1
    assert changed["ETag"] != tag


def test_each_viewer_has_their_own_version(alice, bob, carol, api_client_for, two_player_game):
    """What is cached or matched is per viewer (a player sees their legal moves, a watcher
    does not), so one viewer's ETag never stands for another's view."""
    game, _ = two_player_game()
    users = (alice, bob, carol)
    tags = {u.username: api_client_for(u).get(games_url(game.id))["ETag"] for u in users}
    assert len(set(tags.values())) == 3
    other = api_client_for(carol).get(games_url(game.id), HTTP_IF_NONE_MATCH=tags["alice"])
    assert other.status_code == 200
    assert other.json()["legal_moves"] == []


def test_signing_in_is_needed_whatever_the_etag(alice, bob, two_player_game, client):
    game, _ = two_player_game()
    assert client.get(games_url(game.id), HTTP_IF_NONE_MATCH="*").status_code == 401
    assert client.get(games_url(game.id, wait_for_turn=5)).status_code == 401
    page = client.get(live_url(game.id, wait=0), HTTP_IF_NONE_MATCH="*")
    assert page.status_code == 302 and "/accounts/login/" in page["Location"]


@pytest.mark.parametrize("value", ["-1", "abc", "61", "nan", "inf", "", "1e9", "-0.5"])
def test_a_wait_that_is_not_0_to_60_seconds_is_refused_with_400(
    value, alice, bob, api_client_for, client_for, two_player_game
):
    game, _ = two_player_game()
    response = api_client_for(bob).get(games_url(game.id, wait_for_turn=value))
    assert response.status_code == 400
    assert response.json()["detail"] == (
        "Invalid input: wait_for_turn: must be a number of seconds from 0 to 60"
    )
    page = client_for(bob).get(live_url(game.id, wait=value))
    assert page.status_code == 400
    assert page.content.decode() == "wait: must be a number of seconds from 0 to 60"


@pytest.mark.parametrize("value", ["0", "0.5", "60"])
def test_a_gunicorn_worker_never_waits(value, alice, bob, api_client_for, two_player_game):
    """Valid waits; and a server that serves a fixed number of requests at once (gunicorn's
    workers) answers at once rather than hold one of them."""
    game, users = two_player_game()
    _, waiting = mover_and_other(game.id, users)
    started = time.monotonic()
    response = api_client_for(waiting).get(
        games_url(game.id, wait_for_turn=value), SERVER_SOFTWARE="gunicorn/23.0.0"
    )
    assert response.status_code == 200
    assert time.monotonic() - started < 0.5


def test_the_page_gets_the_current_etag_then_304_then_200_when_the_game_changed(
    alice, bob, client_for, two_player_game
):
    game, users = two_player_game()
    _, waiting = mover_and_other(game.id, users)
    client = client_for(waiting)
    # Without an ETag yet, the page names the ply it shows: 204 and the ETag when current.
    first = client.get(live_url(game.id, wait=0, since=game.ply))
    assert first.status_code == 204
    tag = first["ETag"]

    unchanged = client.get(live_url(game.id, wait=0, since=game.ply), HTTP_IF_NONE_MATCH=tag)
    assert unchanged.status_code == 304 and unchanged.content == b""
    assert "private" in unchanged["Cache-Control"]

    play_forward(game.id, moves=1, users=users, pick=first_move)
    changed = client.get(live_url(game.id, wait=0, since=game.ply), HTTP_IF_NONE_MATCH=tag)
    assert changed.status_code == 200
    assert changed.json() == {"ply": game.ply + 1}
    assert changed["ETag"] != tag
    # A page that shows an older ply is told at once, with no ETag of its own.
    stale = client.get(live_url(game.id, wait=0, since=game.ply))
    assert stale.status_code == 200 and stale["ETag"] == changed["ETag"]
    # The page then loads the board from the site.
    board = client.get(f"/games/{game.id}/board/")
    assert f'data-ply="{game.ply + 1}"' in board.content.decode()


def test_the_page_of_a_game_that_does_not_exist_is_404(alice, client_for):
    missing = "00000000-0000-4000-8000-000000000000"
    assert client_for(alice).get(live_url(missing, wait=0)).status_code == 404


def test_the_wait_is_in_the_schema(alice, api_client_for):
    schema = api_client_for(alice).get("/api/schema/", {"format": "json"}).json()
    get = schema["paths"]["/api/games/{game_id}/"]["get"]
    params = {p["name"]: p for p in get["parameters"]}
    wait = params["wait_for_turn"]
    assert wait["in"] == "query"
    assert wait["schema"] == {"type": "number", "minimum": 0, "maximum": 60}
    assert params["If-None-Match"]["in"] == "header"
    assert {"200", "304", "400", "404"} <= set(get["responses"])
    assert "ETag" in get["responses"]["304"]["headers"]
    assert "as soon as it is your turn" in get["description"]


def test_a_304_reads_the_version_and_builds_nothing(
    alice, bob, api_client_for, two_player_game, django_assert_num_queries, monkeypatch
):
    from games.presenters import game as game_presenters

    game, _ = two_player_game()
    client = api_client_for(bob)
    tag = client.get(games_url(game.id))["ETag"]

    def not_needed(**kwargs):
        raise AssertionError("a 304 needs no view of the game")

    monkeypatch.setattr(game_presenters, "game_view_cached", not_needed)
    with django_assert_num_queries(1):  # the game's version
        assert client.get(games_url(game.id), HTTP_IF_NONE_MATCH=tag).status_code == 304
