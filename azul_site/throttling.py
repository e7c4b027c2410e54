"""The API's per-user request limit, counted in fixed windows.

DRF's `UserRateThrottle` keeps the time of every recent request in a cached list that it reads
and writes back on each request (two round trips to Redis, and a list as long as the rate). Here
each user has one counter per window of the rate's period: one increment, in one round trip on
Redis. A fixed window lets a client spend its whole allowance at the end of one window and again
at the start of the next: acceptable for a limit that is there to stop runaway scripts.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import UserRateThrottle


def _count_hit(cache: Any, key: str, timeout: int) -> int:
    count_hit = getattr(cache, "count_hit", None)
    if count_hit is not None:
        return count_hit(key, timeout)
    # Any other Django cache: two operations, still atomic on each backend's own terms.
    cache.add(key, 0, timeout)
    return cache.incr(key)


class WindowUserRateThrottle(UserRateThrottle):
    """`user` rate (DEFAULT_THROTTLE_RATES), per signed-in user, else per client address."""

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None:
            return True
        key = self.get_cache_key(request, view)
        if key is None:
            return True
        now = self.timer()
        window = int(now // self.duration)
        self.wait_seconds = (window + 1) * self.duration - now
        return _count_hit(self.cache, f"{key}:{window}", self.duration) <= self.num_requests

    def wait(self) -> float:
        return self.wait_seconds
