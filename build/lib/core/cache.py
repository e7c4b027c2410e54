"""Redis as a helper: while it is down or hung, the site skips it instead of waiting on it.

The cache (django-redis, with IGNORE_EXCEPTIONS) holds nothing that is not also somewhere else:
a failed cache call is a miss, a dropped write, or a throttle that lets the request through.
Except allauth's rate limits, which guard the account emails: their counts fall back to this
process's memory (`RedisCache`), so those limits still hold, per process, with Redis down.
What that leaves is the time a request spends finding out that Redis is not answering: with a
hung server, every cache call would wait for its socket timeout, and a page makes several.

So a failed connect or read opens a short window (`SKIP_SECONDS`) in which this process's
connections fail at once without touching the network. The first call after the window tries
Redis again. The outage is logged once when it starts and once when Redis answers again, not on
every request.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

from django.core.cache import cache
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.core.cache.backends.locmem import LocMemCache
from django_redis.cache import RedisCache as DjangoRedisCache
from django_redis.cache import omit_exception
from django_redis.exceptions import ConnectionInterrupted
from redis.connection import Connection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

SKIP_SECONDS = 5.0

T = TypeVar("T")


class _Outage:
    """Whether this process saw a service fail lately; shared by all its connections."""

    def __init__(self, name: str = "Redis", skipped: str = "the cache is skipped") -> None:
        self.name, self.skipped = name, skipped
        self.lock = threading.Lock()
        self.skip_until = 0.0
        self.failing = False

    def failed(self, exc: BaseException) -> None:
        with self.lock:
            self.skip_until = time.monotonic() + SKIP_SECONDS
            first, self.failing = not self.failing, True
        if first:
            logger.warning(
                "%s is not answering (%s): %s, retried every %.0f s",
                self.name,
                exc,
                self.skipped,
                SKIP_SECONDS,
            )

    def answered(self) -> None:
        if self.failing:
            with self.lock:
                recovered, self.failing = self.failing, False
            if recovered:
                logger.warning("%s answers again", self.name)

    def skipping(self) -> bool:
        return self.failing and time.monotonic() < self.skip_until


outage = _Outage()
# The Celery broker's, for `core.tasks.send`: tasks not sent are found by the sweeps.
broker_outage = _Outage("The task broker", "tasks are left to the sweeps")


class FailFastConnection(Connection):
    """A Redis connection that fails at once while `outage` says Redis is not answering."""

    def connect(self, *args: Any, **kwargs: Any) -> None:
        if outage.skipping():
            raise RedisConnectionError("Redis failed moments ago; not tried again yet")
        try:
            super().connect(*args, **kwargs)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            outage.failed(exc)
            raise

    def read_response(self, *args: Any, **kwargs: Any) -> Any:
        try:
            response = super().read_response(*args, **kwargs)
        except (RedisConnectionError, RedisTimeoutError, OSError) as exc:
            outage.failed(exc)
            raise
        outage.answered()
        return response


# allauth's rate limits keep their counts (lists of timestamps) and their locks under this prefix
# (`allauth.core.internal.ratelimit.get_cache_key`): sign-in, sign-up, password reset, email
# confirmation, adding and changing an address (ACCOUNT_RATE_LIMITS and allauth's defaults).
RATE_LIMIT_PREFIX = "allauth:rl:"
# This process's own copy of them, for while Redis does not answer (`RedisCache`).
LOCAL_COUNTS = "core.cache.rate_limit_counts"


def _counts(key: Any) -> bool:
    return isinstance(key, str) and key.startswith(RATE_LIMIT_PREFIX)


class RedisCache(DjangoRedisCache):
    """django-redis, where allauth's rate limits still count while Redis does not answer.

    The limits on mail (password reset, sign-up, confirmation resend, email changes) must not
    open when Redis fails: with every failed call a miss, 15 reset emails went to one address in
    a second. allauth counts in Django's default cache and offers no hook of its own for where
    (its adapter has none, its settings only set the rates), so its counts are kept here, in the
    backend it already uses: under `RATE_LIMIT_PREFIX`, every count written to Redis is also
    written to a per-process LocMemCache, and while Redis fails (an error, a timeout, or the skip
    window of `outage`) the counts are read, written and locked there instead. With Redis down
    the limits then hold per process (each gunicorn worker counts on its own, from what it last
    wrote), not across processes; once Redis answers again its counts are the ones read. allauth
    keeps working unchanged: its limits, its 429 page, its rates.

    Every other key is django-redis with IGNORE_EXCEPTIONS: a failed call is a miss, a dropped
    write, and an `add` that reports success (the API's throttles let requests through)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        # LocMemCaches of one name share one store: one per process, whichever thread asks.
        self.local = LocMemCache(LOCAL_COUNTS, {"OPTIONS": {"MAX_ENTRIES": 10_000}})

    def get(self, key: Any, default: Any = None, version: Any = None, client: Any = None) -> Any:
        if not _counts(key):
            return super().get(key, default, version, client)
        try:
            return self.client.get(key, default=default, version=version, client=client)
        except ConnectionInterrupted:
            return self.local.get(key, default, version=version)

    # The signatures are django-redis's, positional arguments included: Django's async methods
    # (`aset`, `aadd`, the live process's session reads) pass `version` by position.
    def set(
        self,
        key: Any,
        value: Any,
        timeout: Any = DEFAULT_TIMEOUT,
        version: Any = None,
        client: Any = None,
        **kwargs: Any,
    ) -> Any:
        if not _counts(key):
            return super().set(key, value, timeout, version, client, **kwargs)
        self.local.set(key, value, timeout, version=version)
        try:
            return self.client.set(key, value, timeout, version=version, client=client, **kwargs)
        except ConnectionInterrupted:
            return True

    @omit_exception(return_value=True)
    def _add(self, *args: Any, **kwargs: Any) -> bool:
        return self.client.add(*args, **kwargs)

    def add(
        self,
        key: Any,
        value: Any,
        timeout: Any = DEFAULT_TIMEOUT,
        version: Any = None,
        client: Any = None,
    ) -> bool:
        # allauth takes `add` as a lock around each count, and refuses the request when it
        # cannot get it within a second. A count's lock falls back like the count; any other
        # failed `add` reports success.
        if not _counts(key):
            return self._add(key, value, timeout, version=version, client=client)
        try:
            return self.client.add(key, value, timeout, version=version, client=client)
        except ConnectionInterrupted:
            return self.local.add(key, value, timeout, version=version)

    def delete(self, key: Any, version: Any = None, *args: Any, **kwargs: Any) -> bool:
        if not _counts(key):
            return super().delete(key, version, *args, **kwargs)
        deleted = self.local.delete(key, version=version)
        try:
            return bool(self.client.delete(key, version, *args, **kwargs)) or deleted
        except ConnectionInterrupted:
            return deleted

    def clear(self) -> Any:
        self.local.clear()
        return super().clear()


def redis_cache(url: str, timeout: float) -> dict[str, Any]:
    """The CACHES entry for django-redis at `url`: errors ignored (a miss, a dropped write), each
    call waiting at most `timeout` seconds, and Redis skipped for a while after it fails."""
    return {
        "BACKEND": "core.cache.RedisCache",
        "LOCATION": url,
        "OPTIONS": {
            "IGNORE_EXCEPTIONS": True,
            "SOCKET_CONNECT_TIMEOUT": timeout,
            "SOCKET_TIMEOUT": timeout,
            "CONNECTION_POOL_KWARGS": {"connection_class": FailFastConnection},
        },
    }


def cached(key: str, compute: Callable[[], T], timeout: float) -> T:
    """What `compute()` returns, kept in the cache under `key` for `timeout` seconds: read from
    there while it is, computed (and stored) when it is not.

    Over `cache.get_or_set`, with what that leaves out. A failed cache call reads as None
    (`IGNORE_EXCEPTIONS`), not as a miss: so a None from the cache is taken as a miss and
    computed afresh (nothing kept here is None), and a value just computed is returned as it is
    rather than read back from a cache that may have failed since."""
    computed: list[T] = []

    def compute_once() -> T:
        computed.append(compute())
        return computed[0]

    value = cache.get_or_set(key, compute_once, timeout)
    if computed:
        return computed[0]
    if value is None:
        return compute()
    return value
