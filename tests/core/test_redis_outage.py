"""Redis is a helper, never a single point of failure: with the cache's Redis stopped, or hung
(accepting connections but never answering), players still sign in, load boards and move, each
request answered well within a second."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

import azul
from accounts.services import token_create
from core.outages import cache as site_cache
from core.outages.cache import redis_cache
from games.models import Game
from tests.support.factories import PASSWORD
from tests.support.outage import RedisServer, hung_server

pytestmark = pytest.mark.django_db

WITHIN = 1.0  # seconds, for each request


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    server = RedisServer()
    server.start()
    yield server
    server.stop()


def use_cache_at(settings, url: str) -> None:
    settings.CACHES = {"default": redis_cache(url, 0.25)}


def timed(request, *args, **kwargs):
    started = time.monotonic()
    response = request(*args, **kwargs)
    return response, time.monotonic() - started


def to_move(game_id, users) -> tuple[object, str, int]:
    """Who is to move in the game, a legal move of theirs, and the game's ply."""
    game = Game.objects.get(pk=game_id)
    state = azul.State.from_dict(game.state)
    player = state.to_move[0]
    return users[player], str(azul.legal_moves(state, player)[0]), game.ply


def play_through_every_door(game_id, users: dict) -> None:
    """Sign in, load the board, move through the page and through the API: each succeeds, each
    within `WITHIN` seconds."""
    player, move, ply = to_move(game_id, users)
    page = Client()
    response, took = timed(
        page.post, reverse("account_login"), {"login": player.username, "password": PASSWORD}
    )
    assert response.status_code == 302, response.content[:500]
    assert took < WITHIN, f"sign-in took {took:.2f} s"

    response, took = timed(page.get, reverse("games:detail", args=[game_id]))
    assert response.status_code == 200
    assert took < WITHIN, f"board took {took:.2f} s"

    response, took = timed(
        page.post, reverse("games:detail", args=[game_id]), {"move": move, "expected_ply": ply}
    )
    assert response.status_code == 302
    assert took < WITHIN, f"page move took {took:.2f} s"
    assert Game.objects.get(pk=game_id).ply > ply, "the page's move was not played"

    player, move, ply = to_move(game_id, users)
    _token, key = token_create(user=player)
    api = APIClient(HTTP_AUTHORIZATION=f"Token {key}")
    response, took = timed(
        api.post,
        f"/api/games/{game_id}/moves/",
        {"move": move, "expected_ply": ply},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert took < WITHIN, f"API move took {took:.2f} s"


def test_everything_works_with_redis_up_then_stopped(
    settings, redis_server, start_game, alice, bob
):
    use_cache_at(settings, redis_server.url)
    game = start_game(alice, bob)
    users = {0: alice, 1: bob}
    signed_in = Client()
    signed_in.post(reverse("account_login"), {"login": "alice", "password": PASSWORD})
    play_through_every_door(game.id, users)

    redis_server.stop()

    play_through_every_door(game.id, users)
    # A session started while Redis was up lives on in the database.
    response = signed_in.get(reverse("games:detail", args=[game.id]))
    assert response.status_code == 200 and response.context["user"].username == "alice"


def test_everything_works_with_redis_hung(settings, start_game, alice, bob):
    with hung_server() as url:
        use_cache_at(settings, url)
        game = start_game(alice, bob)
        play_through_every_door(game.id, {0: alice, 1: bob})


def test_an_outage_is_logged_once_and_the_recovery_once(
    settings, redis_server, start_game, alice, bob, caplog
):
    use_cache_at(settings, redis_server.url)
    game = start_game(alice, bob)
    redis_server.stop()
    client = Client()
    client.force_login(alice, backend="allauth.account.auth_backends.AuthenticationBackend")

    for _ in range(5):
        assert client.get(reverse("games:detail", args=[game.id])).status_code == 200
    redis_server.start()
    site_cache.outage.skip_until = 0  # the retry window has passed
    for _ in range(3):
        assert client.get(reverse("games:detail", args=[game.id])).status_code == 200

    messages = [r.getMessage() for r in caplog.records if r.name == "core.outages.cache"]
    assert len(messages) == 2, messages
    assert messages[0].startswith("Redis is not answering")
    assert messages[1] == "Redis answers again"


def test_healthz_says_which_service_answers(settings, redis_server, client):
    use_cache_at(settings, redis_server.url)
    assert client.get("/healthz").json() == {"status": "ok", "database": "ok", "cache": "ok"}

    redis_server.stop()

    response = client.get("/healthz")
    assert response.status_code == 200  # the site still serves moves
    assert response.json()["cache"] == "skipped (not answering)"
