"""Fair play (issue #28): a burst of waits that exhausts the live process's database pool gets
503 with `Retry-After` (the client backs off and tries again), never a 500: whether the
connection is missing in a middleware (the signed-in user is read before the view) or in the
view itself. Any other failure is still Django's 500."""

import pytest
from django.db import OperationalError
from django.test import Client

from tests.support.factories import SESSION_BACKEND
from tests.support.urls import games_url, live_url

pytestmark = pytest.mark.django_db

POOL_TIMEOUT = OperationalError("couldn't get a connection after 5.00 sec")


def client_of(user) -> Client:
    client = Client(raise_request_exception=False)
    client.force_login(user, backend=SESSION_BACKEND)
    return client


def test_no_connection_in_the_view_is_503_with_retry_after(alice, bob, start_game, monkeypatch):
    game = start_game(alice, bob)
    from games.live import views

    def no_connection(*args, **kwargs):
        raise POOL_TIMEOUT

    monkeypatch.setattr(views, "version_or_404", no_connection)
    response = client_of(alice).get(live_url(game.id, wait=20, since=game.ply))
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert "try again in a few seconds" in response.content.decode()


def test_no_connection_before_the_view_is_503_too(alice, bob, start_game, monkeypatch):
    game = start_game(alice, bob)
    from accounts import middleware

    def no_connection(user):
        raise POOL_TIMEOUT

    monkeypatch.setattr(middleware, "_zone_of", no_connection)
    response = client_of(alice).get(games_url(game.id, wait_for_turn=20))
    assert response.status_code == 503
    assert response["Retry-After"] == "5"
    assert response.json()["code"] == "unavailable"


def test_any_other_failure_is_still_a_500(alice, bob, start_game, monkeypatch):
    game = start_game(alice, bob)
    from games.live import views

    def broken(*args, **kwargs):
        raise RuntimeError("a bug")

    monkeypatch.setattr(views, "version_or_404", broken)
    response = client_of(alice).get(live_url(game.id, wait=20, since=game.ply))
    assert response.status_code == 500
