"""Redis as a helper: while it is down or hung, the site skips it instead of waiting on it.

The cache (django-redis, with IGNORE_EXCEPTIONS) holds nothing that is not also somewhere else:
a failed cache call is a miss, a dropped write, or a throttle that lets the request through.
Except allauth's rate limits, which guard the account emails: their counts are kept in the
database too (`RedisCache`), so those limits still hold, across processes and nodes, with Redis
down.
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
from datetime import timedelta
from typing import Any, TypeVar

from django.core.cache import cache
from django.core.cache.backends.base import DEFAULT_TIMEOUT
from django.db import IntegrityError, transaction
from django.utils import timezone
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
# How long a count kept with no timeout lives in the database (allauth always gives one).
FOREVER = timedelta(days=365)


def _counts(key: Any) -> bool:
    return isinstance(key, str) and key.startswith(RATE_LIMIT_PREFIX)


class SharedCounts:
    """allauth's counts and locks as rows of the database (`core.models.RateLimitEntry`), which
    every process and node shares: a cache's get, set, add and delete, with `add` atomic across
    them, so that allauth's lock around a count (an `add`) admits one request at a time."""

    def __init__(self, default_timeout: float | None) -> None:
        self.default_timeout = default_timeout

    def expiry(self, timeout: Any) -> Any:
        if timeout is DEFAULT_TIMEOUT:
            timeout = self.default_timeout
        return timezone.now() + (FOREVER if timeout is None else timedelta(seconds=timeout))

    def get(self, key: str, default: Any = None) -> Any:
        from core.models import RateLimitEntry

        live = RateLimitEntry.objects.filter(key=key, expires_at__gt=timezone.now())
        values = list(live.values_list("value", flat=True))
        return values[0] if values else default

    def set(self, key: str, value: Any, timeout: Any) -> None:
        from core.models import RateLimitEntry

        RateLimitEntry.objects.bulk_create(
            [RateLimitEntry(key=key, value=value, expires_at=self.expiry(timeout))],
            update_conflicts=True,
            unique_fields=["key"],
            update_fields=["value", "expires_at"],
        )

    def add(self, key: str, value: Any, timeout: Any) -> bool:
        from core.models import RateLimitEntry

        expires_at = self.expiry(timeout)
        # An expired row is taken over by an update that PostgreSQL re-checks under the row's
        # lock, so of two processes at once one takes it; a new row by an insert that the key
        # makes unique, with the same outcome.
        expired = RateLimitEntry.objects.filter(key=key, expires_at__lte=timezone.now())
        if expired.update(value=value, expires_at=expires_at):
            return True
        try:
            with transaction.atomic():
                RateLimitEntry.objects.create(key=key, value=value, expires_at=expires_at)
        except IntegrityError:
            return False
        return True

    def delete(self, key: str) -> bool:
        from core.models import RateLimitEntry

        deleted, _ = RateLimitEntry.objects.filter(key=key).delete()
        return deleted > 0

    def clear(self) -> None:
        from core.models import RateLimitEntry

        RateLimitEntry.objects.all().delete()


def expired_counts_delete() -> int:
    """Delete the counts and locks that have expired (the sweep); how many."""
    from core.models import RateLimitEntry

    deleted, _ = RateLimitEntry.objects.filter(expires_at__lte=timezone.now()).delete()
    return deleted


class RedisCache(DjangoRedisCache):
    """django-redis, where allauth's rate limits still count while Redis does not answer.

    The limits on mail (password reset, sign-up, confirmation resend, email changes) must not
    open when Redis fails: with every failed call a miss, 15 reset emails went to one address in
    a second; and a count kept in each process's memory instead let 14 of 15 through five
    gunicorn workers. allauth counts in Django's default cache and offers no hook of its own for
    where (its adapter has none, its settings only set the rates), so its counts are kept here,
    in the backend it already uses: under `RATE_LIMIT_PREFIX`, every count written to Redis is
    also written to the database (`SharedCounts`), and while Redis fails (an error, a timeout,
    or the skip window of `outage`) the counts are read, written and locked there instead. The
    limits then hold across every process and node, and a count Redis held when it stopped
    carries on; once Redis answers again its counts are the ones read. allauth keeps working
    unchanged: its limits (their sliding windows), its 429 page, its rates. While some processes
    still reach Redis and others have given up on it, the two kinds of lock do not exclude each
    other: for those few seconds a limit may admit a request or two more.

    Every other key is django-redis with IGNORE_EXCEPTIONS: a failed call is a miss, a dropped
    write, and an `add` that reports success (the API's throttles let requests through)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self.shared = SharedCounts(self.default_timeout)

    def shared_key(self, key: Any, version: Any) -> str:
        return str(self.make_key(key, version=version))

    def get(self, key: Any, default: Any = None, version: Any = None, client: Any = None) -> Any:
        if not _counts(key):
            return super().get(key, default, version, client)
        try:
            return self.client.get(key, default=default, version=version, client=client)
        except ConnectionInterrupted:
            return self.shared.get(self.shared_key(key, version), default)

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
        self.shared.set(self.shared_key(key, version), value, timeout)
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
            return self.shared.add(self.shared_key(key, version), value, timeout)

    def delete(self, key: Any, version: Any = None, *args: Any, **kwargs: Any) -> bool:
        if not _counts(key):
            return super().delete(key, version, *args, **kwargs)
        deleted = self.shared.delete(self.shared_key(key, version))
        try:
            return bool(self.client.delete(key, version, *args, **kwargs)) or deleted
        except ConnectionInterrupted:
            return deleted

    def clear(self) -> Any:
        self.shared.clear()
        return super().clear()


def redis_cache(url: str, timeout: float) -> dict[str, Any]:
    """The CACHES entry for django-redis at `url`: errors ignored (a miss, a dropped write), each
    call waiting at most `timeout` seconds, and Redis skipped for a while after it fails."""
    return {
        "BACKEND": "core.outages.cache.RedisCache",
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
