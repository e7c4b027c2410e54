"""The rate limits' counts and locks kept in the database for while Redis does not answer
(`core.outages.cache.SharedCounts`):
one lock holder at a time across processes, expired rows read as
absent and deleted by the sweep."""

from __future__ import annotations

import pytest
import time_machine

from core.models import RateLimitEntry
from core.outages.cache import SharedCounts
from core.tasks import sweep
from tests.support.concurrency import run_at_once

pytestmark = pytest.mark.django_db

LOCK = ":1:allauth:rl:allauth.account:reset_password_email:5/60.0/key:abc:lock"
COUNT = ":1:allauth:rl:allauth.account:reset_password_email:5/60.0/key:abc"


def test_a_lock_has_one_holder_until_released_or_expired():
    counts = SharedCounts(default_timeout=300)
    with time_machine.travel("2026-12-07 10:00:00+00:00", tick=False) as clock:
        assert counts.add(LOCK, True, 10)
        assert not counts.add(LOCK, True, 10)
        assert counts.delete(LOCK)
        assert counts.add(LOCK, True, 10)
        clock.shift(11)  # its holder died without releasing it
        assert counts.add(LOCK, True, 10)
        assert not counts.add(LOCK, True, 10)


@pytest.mark.django_db(transaction=True)
def test_of_processes_asking_for_a_lock_at_once_one_gets_it():
    taken = run_at_once(4, lambda: SharedCounts(default_timeout=300).add(LOCK, True, 10))
    assert sorted(taken) == [False, False, False, True]


def test_a_count_reads_back_until_it_expires_and_the_sweep_deletes_it():
    counts = SharedCounts(default_timeout=300)
    history = [1796637600.123456, 1796637599.5]
    with time_machine.travel("2026-12-07 10:00:00+00:00", tick=False) as clock:
        counts.set(COUNT, history, 60)
        counts.set(LOCK + "-other", True, 600)
        assert counts.get(COUNT, []) == history  # exact: allauth takes hits back by equality

        clock.shift(61)
        assert counts.get(COUNT, []) == []
        sweep()

    left = RateLimitEntry.objects.filter(key__in=[COUNT, LOCK + "-other"])
    assert list(left.values_list("key", flat=True)) == [LOCK + "-other"]
