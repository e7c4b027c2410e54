"""Django's Redis cache backend, keeping its client objects, with two operations of its own
(counting a hit while reading other keys, in one round trip; writing without waiting for the
reply); and dropping cached rows a transaction changed.

Django's backend builds a new ``redis.Redis`` for every cache operation, and each one rebuilds the
client's table of response callbacks: a measurable part of a request that touches the cache a few
times (the session, the game, the board's markup, the API throttle). Here each connection pool
gets one client, made on first use. A client holds no connection of its own (it borrows from the
pool for each command), so sharing it between threads is safe.
"""

import logging
import os
import threading
from collections.abc import Sequence
from typing import Any

from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.db import transaction
from hiredis import pack_command
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)


class _ClientKeepingRedisCacheClient(RedisCacheClient):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        index = self._get_connection_pool_index(write)
        client = self._clients.get(index)
        if client is None:
            client = self._client(connection_pool=self._get_connection_pool(write))
            self._clients[index] = client
        return client


class RedisCache(DjangoRedisCache):
    """Django's Redis cache, with operations of its own that the API's requests make on every
    call, sent on a connection each thread keeps for them (`_round_trip`)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _ClientKeepingRedisCacheClient
        self._own = threading.local()

    def count_hit(self, key: str, timeout: int) -> int:
        """Add one to the counter at `key` (created at 1, expiring `timeout` seconds after its
        first hit) and return its new value: one round trip (INCR, then EXPIRE NX, pipelined)."""
        return self._count_hit(key, timeout)[1]

    def get_many_and_count_hit(
        self, keys: Sequence[str], counter: str, timeout: int
    ) -> tuple[dict[str, Any], int]:
        """`get_many(keys)` and `count_hit(counter, timeout)`, in one round trip."""
        return self._count_hit(counter, timeout, also_get=keys)

    def _count_hit(
        self, counter: str, timeout: int, also_get: Sequence[str] = ()
    ) -> tuple[dict[str, Any], int]:
        counter = self.make_key(counter)
        commands: list[tuple[Any, ...]] = [("GET", self.make_key(key)) for key in also_get]
        commands += [("INCR", counter), ("EXPIRE", counter, timeout, "NX")]
        *values, count, _ = self._round_trip(commands)
        loads = self._cache._serializer.loads
        found = {key: loads(v) for key, v in zip(also_get, values, strict=True) if v is not None}
        return found, count

    def set_without_reply(self, key: str, value: Any, timeout: int) -> None:
        """`set(key, value, timeout)`, sent without waiting for Redis to answer (`CLIENT REPLY
        SKIP`): for a value that is only ever a shortcut, where waiting for the answer would cost
        the request more than the write. A failure is logged and dropped."""
        key = self.make_key(key)
        commands = [
            ("CLIENT", "REPLY", "SKIP"),  # no answer to this, nor to the next command
            ("SET", key, self._cache._serializer.dumps(value), "EX", timeout),
        ]
        try:
            self._round_trip(commands, replies=False)
        except (RedisError, OSError):
            logger.warning("cache write of %s not sent", key, exc_info=True)

    def _round_trip(self, commands: list[tuple[Any, ...]], replies: bool = True) -> list[Any]:
        """Send `commands` in one write and read their replies (if Redis is to send any).

        On a connection of this thread's own, not one borrowed from the pool: a round trip
        through redis-py's pipeline and pool costs twice what the round trip itself does, and
        the API makes one on every request. A connection that fails is dropped and the commands
        are sent once more on a new one, as redis-py retries.

        The keys are this project's own (digests, ids), so they are not checked for characters
        that memcached would refuse, as Django's operations check every key."""
        packed = b"".join(map(pack_command, commands))  # as redis-py packs, without its wrapping
        for attempt in (1, 2):
            connection = self._own_connection()
            try:
                connection.send_packed_command([packed])
                return [connection.read_response() for _ in commands] if replies else []
            except BaseException as exc:
                # Whatever went wrong (an error reply, an interruption) may leave replies
                # unread on this connection: never use it again.
                self._own.connection = None
                connection.disconnect()
                lost = isinstance(exc, RedisConnectionError | RedisTimeoutError | OSError)
                if not lost or attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def _own_connection(self) -> Any:
        connection = getattr(self._own, "connection", None)
        if connection is None or self._own.pid != os.getpid():
            pool = self._cache._get_connection_pool(write=True)
            connection = pool.connection_class(**pool.connection_kwargs)
            self._own.connection, self._own.pid = connection, os.getpid()
        return connection


def count_hit(key: str, timeout: int) -> int:
    """`RedisCache.count_hit` on the default cache, whatever its backend."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        return backend.count_hit(key, timeout)
    # Any other Django cache: two operations, still atomic on each backend's own terms.
    backend.add(key, 0, timeout)
    return backend.incr(key)


def get_many_and_count_hit(
    keys: Sequence[str], counter: str, timeout: int
) -> tuple[dict[str, Any], int]:
    """`RedisCache.get_many_and_count_hit` on the default cache, whatever its backend."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        return backend.get_many_and_count_hit(keys, counter, timeout)
    return backend.get_many(keys), count_hit(counter, timeout)


def set_without_reply(key: str, value: Any, timeout: int) -> None:
    """`RedisCache.set_without_reply` on the default cache; a plain `set` on another backend."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        backend.set_without_reply(key, value, timeout)
    else:
        backend.set(key, value, timeout)


def delete_now_and_after_commit(keys: list[str]) -> None:
    """Drop cached copies of rows the current transaction changed: now, so that its own later
    reads miss, and again after commit, in case a reader put back the old row in between."""
    cache.delete_many(keys)
    transaction.on_commit(lambda: cache.delete_many(keys))
