"""The API's per-user request limit (DRF's throttles): a clear 429 past it, per user, lifted
once the window has passed; and a cache that fails lets requests through."""

import pytest
import time_machine
from rest_framework.throttling import UserRateThrottle

from tests.support.urls import games_url

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def three_per_minute(monkeypatch):
    monkeypatch.setattr(UserRateThrottle, "THROTTLE_RATES", {"user": "3/minute"})


def test_requests_past_the_rate_get_429_with_when_to_retry(alice, bob, api_client_for):
    with time_machine.travel("2026-11-22 10:00:10", tick=False):
        client = api_client_for(alice)
        assert [client.get(games_url()).status_code for _ in range(3)] == [200] * 3

        refused = client.get(games_url())

        assert refused.status_code == 429
        assert "throttled" in refused.json()["detail"].lower()
        assert refused["Retry-After"] == "60"
        # Another player has an allowance of their own.
        assert api_client_for(bob).get(games_url()).status_code == 200


def test_the_limit_lifts_once_the_window_has_passed(alice, api_client_for):
    client = api_client_for(alice)
    with time_machine.travel("2026-11-22 10:00:10", tick=False):
        for _ in range(3):
            client.get(games_url())
        assert client.get(games_url()).status_code == 429
    with time_machine.travel("2026-11-22 10:01:11", tick=False):
        assert client.get(games_url()).status_code == 200


def test_a_cache_that_fails_lets_requests_through(alice, api_client_for, settings):
    """Redis is a helper: with nothing listening where the cache should be, the throttle cannot
    count, and lets every request through rather than failing it."""
    from core.outages.cache import redis_cache
    from tests.support.outage import closed_port

    settings.CACHES = {"default": redis_cache(f"redis://127.0.0.1:{closed_port()}/0", 0.25)}
    client = api_client_for(alice)
    assert [client.get(games_url()).status_code for _ in range(5)] == [200] * 5
