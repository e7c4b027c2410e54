"""The Redis cache backend (azul_site.cache) against the real Redis server."""

import uuid

import pytest

from azul_site.cache import RedisCache


@pytest.fixture
def cache(redis_url) -> RedisCache:
    return RedisCache(redis_url, {"KEY_PREFIX": f"test-{uuid.uuid4().hex}"})


def test_it_stores_and_reads_through_one_kept_client(cache):
    cache.set("greeting", {"hello": "world"}, 30)
    assert cache.get("greeting") == {"hello": "world"}
    assert cache.add("greeting", "other", 30) is False  # add never overwrites
    assert cache.get("greeting") == {"hello": "world"}
    cache.delete("greeting")
    assert cache.get("greeting") is None

    client = cache._cache.get_client(write=True)
    assert cache._cache.get_client(write=True) is client


def test_count_hit_counts_in_one_key_that_expires_from_its_first_hit(cache):
    assert [cache.count_hit("hits", 30) for _ in range(3)] == [1, 2, 3]

    client = cache._cache.get_client(write=True)
    key = cache.make_and_validate_key("hits")
    ttl = client.ttl(key)
    assert 0 < ttl <= 30
    cache.count_hit("hits", 300)  # later hits do not push the expiry back
    assert client.ttl(key) <= ttl
    assert cache.count_hit("other", 30) == 1


def test_get_and_count_hit_reads_and_counts_in_one_call(cache):
    cache.set("token-owner", {"pk": 7}, 30)

    assert cache.get_and_count_hit("token-owner", "hits", 30) == ({"pk": 7}, 1)
    assert cache.get_and_count_hit("nothing", "hits", 30) == (None, 2)
    ttl = cache._cache.get_client(write=True).ttl(cache.make_and_validate_key("hits"))
    assert 0 < ttl <= 30
