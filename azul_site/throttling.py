"""The API's per-user request limit, counted in fixed windows.

DRF's `UserRateThrottle` keeps the time of every recent request in a cached list that it reads
and writes back on each request (two round trips to Redis, and a list as long as the rate). Here
each user has one counter per window of the rate's period: one increment, in one round trip on
Redis, and none of its own for a request with an API token, whose lookup counts the hit in its
own round trip (`accounts.auth`). A fixed window lets a client spend its whole allowance at the
end of one window and again at the start of the next: acceptable for a limit that is there to
stop runaway scripts.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request
from rest_framework.throttling import UserRateThrottle

from azul_site.cache import count_hit

COUNTED_HITS = "api_throttle_hits"
"""Attribute of a request holding {counter: count} for hits already counted on its way in."""


class WindowUserRateThrottle(UserRateThrottle):
    """`user` rate (DEFAULT_THROTTLE_RATES), per signed-in user, else per client address."""

    def counter(self, ident: Any) -> tuple[str, int] | None:
        """The counter for `ident` in the current window and how long it lives (None when there
        is no limit); sets `wait_seconds` to the rest of the window."""
        if self.rate is None:
            return None
        now = self.timer()
        window = int(now // self.duration)
        self.wait_seconds = (window + 1) * self.duration - now
        key = self.cache_format % {"scope": self.scope, "ident": ident}
        return f"{key}:{window}", self.duration

    def allow_request(self, request: Request, view: Any) -> bool:
        if self.rate is None:
            return True
        user = request.user
        ident = user.pk if user and user.is_authenticated else self.get_ident(request)
        counter, timeout = self.counter(ident)
        count = getattr(request, COUNTED_HITS, {}).get(counter)
        if count is None:
            count = count_hit(counter, timeout)
        return count <= self.num_requests

    def wait(self) -> float:
        return self.wait_seconds


def user_counter(user_pk: Any) -> tuple[str, int] | None:
    """The API limit's counter for this user in the current window, and how long it lives."""
    return WindowUserRateThrottle().counter(user_pk)
