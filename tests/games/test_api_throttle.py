"""The API's per-user request limit: a clear 429 past it, per user, lifted in the next window."""

import time

import pytest
import time_machine
from django.core.cache import cache

from azul_site.throttling import WindowUserRateThrottle
from tests.games.conftest import games_url

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def three_per_minute(monkeypatch):
    monkeypatch.setattr(WindowUserRateThrottle, "THROTTLE_RATES", {"user": "3/minute"})
    cache.clear()


def test_requests_past_the_rate_get_429_with_when_to_retry(alice, bob, api_client_for):
    with time_machine.travel("2026-11-22 10:00:10", tick=False):
        client = api_client_for(alice)
        assert [client.get(games_url()).status_code for _ in range(3)] == [200] * 3

        refused = client.get(games_url())

        assert refused.status_code == 429
        assert "throttled" in refused.json()["detail"].lower()
        assert refused["Retry-After"] == "50"  # the rest of this minute
        # Another player has an allowance of their own.
        assert api_client_for(bob).get(games_url()).status_code == 200


def test_the_limit_lifts_in_the_next_window(alice, api_client_for):
    client = api_client_for(alice)
    with time_machine.travel("2026-11-22 10:00:10", tick=False):
        for _ in range(3):
            client.get(games_url())
        assert client.get(games_url()).status_code == 429
    with time_machine.travel("2026-11-22 10:01:01", tick=False):
        assert client.get(games_url()).status_code == 200


def test_token_requests_on_redis_count_each_hit_once(alice, token_lookups):
    """With Redis, a token's lookup counts the request's hit in the same round trip, and the
    throttle does not count it again."""
    from rest_framework.authtoken.models import Token
    from rest_framework.test import APIClient

    token = Token.objects.create(user=alice)
    client = APIClient(HTTP_AUTHORIZATION=f"Token {token.key}")
    from django.core.cache import cache as redis_cache

    with time_machine.travel("2026-11-22 10:00:10", tick=False):
        assert [client.get(games_url()).status_code for _ in range(3)] == [200] * 3
        counter = redis_cache.get(f"throttle_user_{alice.pk}:{int(time.time()) // 60}")
        assert counter == 3
        assert len(token_lookups) == 2  # after the first lookup, this process knows the owner
        assert client.get(games_url()).status_code == 429
