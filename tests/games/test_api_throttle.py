"""The API's per-user request limit: a clear 429 past it, per user, lifted in the next window."""

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
