"""Redis as a helper: while it is down or hung, the site skips it instead of waiting on it.

The cache (django-redis, with IGNORE_EXCEPTIONS) holds nothing that is not also somewhere else:
a failed cache call is a miss, a dropped write, or a throttle that lets the request through.
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
from django_redis.cache import RedisCache as DjangoRedisCache
from django_redis.cache import omit_exception
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


class RedisCache(DjangoRedisCache):
    """django-redis, where an `add` that failed reports success. allauth takes `add` as a lock
    around its rate limits, and waits a second for it before refusing the request: with Redis
    down, every sign-in would be refused. Ignored like every other failed call, the lock is
    taken, the limit finds no history, and the request goes through."""

    @omit_exception(return_value=True)
    def add(self, *args: Any, **kwargs: Any) -> bool:
        return self.client.add(*args, **kwargs)


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
