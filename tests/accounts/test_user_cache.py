"""Signed-in users and token owners are read through a cache; every change to a user, profile or
token is seen by the very next request."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

ME = "/api/me/"


def token_client(user) -> tuple[APIClient, str]:
    key = Token.objects.create(user=user).key
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client, key


def queries(func) -> int:
    with CaptureQueriesContext(connection) as ctx:
        func()
    return len(ctx.captured_queries)


def test_a_token_request_makes_no_query_once_its_user_is_cached(alice):
    client, _ = token_client(alice)
    assert queries(lambda: client.get(ME)) > 0
    assert queries(lambda: client.get(ME)) == 0


def test_a_page_makes_no_user_query_once_the_user_is_cached(alice, client_for):
    client = client_for(alice)
    client.get(reverse("accounts:settings"))  # warms the session and the user

    with CaptureQueriesContext(connection) as ctx:
        assert client.get(ME).status_code == 200

    assert not [q for q in ctx.captured_queries if "accounts_user" in q["sql"]]


def test_a_deactivated_player_is_refused_at_the_next_request(alice, client_for):
    session = client_for(alice)
    tokened, _ = token_client(alice)
    assert session.get(ME).status_code == tokened.get(ME).status_code == 200

    alice.is_active = False
    alice.save()

    assert tokened.get(ME).status_code == 401
    assert session.get(ME).status_code in (401, 403)
    assert session.get(reverse("games:my_games")).status_code == 302  # to the login page


def test_a_password_change_ends_other_sessions_at_once(alice, client_for):
    other = client_for(alice)
    assert other.get(ME).status_code == 200

    alice.set_password("another-long-passphrase-93")
    alice.save()

    assert other.get(ME).status_code in (401, 403)


def test_a_profile_change_shows_at_the_next_request(alice):
    client, _ = token_client(alice)
    assert client.get(ME).json()["display_name"] == ""

    alice.profile.display_name = "Alice the Tiler"
    alice.profile.save()

    assert client.get(ME).json()["display_name"] == "Alice the Tiler"


def test_a_revoked_token_is_refused_at_the_next_request(alice):
    client, key = token_client(alice)
    assert client.get(ME).status_code == 200

    Token.objects.filter(key=key).delete()

    assert client.get(ME).status_code == 401


def test_the_cache_never_holds_a_token_key(alice):
    client, key = token_client(alice)
    client.get(ME)

    stored = list(cache._cache)  # LocMemCache's keys, as the tests configure it
    assert any(":accounts:token:" in k for k in stored)
    assert not any(key in k for k in stored)
