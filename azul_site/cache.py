"""Django's Redis cache backend, keeping its client objects; and dropping cached rows a
transaction changed.

Django's backend builds a new ``redis.Redis`` for every cache operation, and each one rebuilds the
client's table of response callbacks: a measurable part of a request that touches the cache a few
times (the session, the game, the board's markup, the API throttle). Here each connection pool
gets one client, made on first use. A client holds no connection of its own (it borrows from the
pool for each command), so sharing it between threads is safe.
"""

from typing import Any

from django.core.cache import cache, caches
from django.core.cache.backends.redis import RedisCache as DjangoRedisCache
from django.core.cache.backends.redis import RedisCacheClient
from django.db import transaction


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
    def __init__(self, server: str, params: dict[str, Any]) -> None:
        super().__init__(server, params)
        self._class = _ClientKeepingRedisCacheClient

    def count_hit(self, key: str, timeout: int) -> int:
        """Add one to the counter at `key` (created at 1, expiring `timeout` seconds after its
        first hit) and return its new value: one round trip (INCR, then EXPIRE NX, pipelined)."""
        return self._count_hit(key, timeout)[1]

    def get_and_count_hit(self, key: str, counter: str, timeout: int) -> tuple[Any, int]:
        """`get(key)` and `count_hit(counter, timeout)`, in one round trip."""
        return self._count_hit(counter, timeout, also_get=key)

    def _count_hit(
        self, counter: str, timeout: int, also_get: str | None = None
    ) -> tuple[Any, int]:
        counter = self.make_and_validate_key(counter)
        pipeline = self._cache.get_client(counter, write=True).pipeline(transaction=False)
        if also_get is not None:
            pipeline.get(self.make_and_validate_key(also_get))
        pipeline.incr(counter)
        pipeline.expire(counter, timeout, nx=True)
        *got, count, _ = pipeline.execute()
        value = got[0] if got else None
        return (None if value is None else self._cache._serializer.loads(value)), count


def count_hit(key: str, timeout: int) -> int:
    """`RedisCache.count_hit` on the default cache, whatever its backend."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        return backend.count_hit(key, timeout)
    # Any other Django cache: two operations, still atomic on each backend's own terms.
    backend.add(key, 0, timeout)
    return backend.incr(key)


def get_and_count_hit(key: str, counter: str, timeout: int) -> tuple[Any, int]:
    """`RedisCache.get_and_count_hit` on the default cache, whatever its backend."""
    backend = caches["default"]
    if isinstance(backend, RedisCache):
        return backend.get_and_count_hit(key, counter, timeout)
    return backend.get(key), count_hit(counter, timeout)


def delete_now_and_after_commit(keys: list[str]) -> None:
    """Drop cached copies of rows the current transaction changed: now, so that its own later
    reads miss, and again after commit, in case a reader put back the old row in between."""
    cache.delete_many(keys)
    transaction.on_commit(lambda: cache.delete_many(keys))
