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


def test_get_many_and_count_hit_reads_and_counts_in_one_call(cache):
    cache.set("token-owner", {"pk": 7}, 30)
    cache.set("game", b"snapshot", 30)

    assert cache.get_many_and_count_hit(["token-owner", "game"], "hits", 30) == (
        {"token-owner": {"pk": 7}, "game": b"snapshot"},
        1,
    )
    assert cache.get_many_and_count_hit(["nothing"], "hits", 30) == ({}, 2)
    assert cache.get_many_and_count_hit([], "hits", 30) == ({}, 3)
    ttl = cache._cache.get_client(write=True).ttl(cache.make_and_validate_key("hits"))
    assert 0 < ttl <= 30


def test_set_without_reply_writes_and_leaves_no_answer_behind(cache):
    cache.set_without_reply("snapshot", {"ply": 3}, 30)
    cache.set_without_reply("snapshot", {"ply": 4}, 30)  # the later write wins

    # The next round trips on the same connection read their own answers, not a stray one.
    assert cache.count_hit("hits", 30) == 1
    assert cache.get_many_and_count_hit(["snapshot"], "hits", 30) == ({"snapshot": {"ply": 4}}, 2)
    ttl = cache._cache.get_client(write=True).ttl(cache.make_and_validate_key("snapshot"))
    assert 0 < ttl <= 30


def test_a_connection_the_server_dropped_is_replaced(cache):
    assert cache.count_hit("hits", 30) == 1
    admin = cache._cache.get_client(write=True)
    own = cache._own.connection
    own.send_command("CLIENT", "ID")
    admin.client_kill_filter(_id=own.read_response())

    assert cache.count_hit("hits", 30) == 2  # sent again on a new connection
    cache.set_without_reply("after", "written", 30)
    assert cache.get("after") == "written"


def test_an_error_answer_does_not_leave_the_connection_out_of_step(cache):
    from redis.exceptions import ResponseError

    cache.set("not-a-number", "text", 30)
    with pytest.raises(ResponseError):
        cache.count_hit("not-a-number", 30)

    assert cache.get_many_and_count_hit(["not-a-number"], "hits", 30) == (
        {"not-a-number": "text"},
        1,
    )
