"""The libraries whose internals the site reaches into, held below their next major version in
pyproject.toml, and each internal exercised: an upgrade (`make lock UPGRADE=1`, or a bound raised)
that changes one fails here, not in production. And the locks (requirements/) hold what
pyproject.toml asks for."""

from __future__ import annotations

import inspect
import shutil
import subprocess
import sys
import tomllib
import uuid
from importlib.metadata import version
from pathlib import Path

import pytest
from django.core.cache.backends.locmem import LocMemCache
from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[1]
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]


def declared(name: str) -> Requirement:
    """The site's requirement on the distribution `name`, as pyproject.toml declares it."""
    for line in PROJECT["dependencies"]:
        requirement = Requirement(line)
        if canonicalize_name(requirement.name) == canonicalize_name(name):
            return requirement
    raise AssertionError(f"{name} is not a dependency in pyproject.toml")


@pytest.mark.parametrize("name", ["django-allauth", "django-redis", "redis", "kombu", "sentry-sdk"])
def test_a_library_whose_internals_the_site_uses_is_held_below_its_next_major(name):
    bound = declared(name).specifier
    installed = Version(version(name))
    assert installed in bound, f"{name} {installed} is outside {bound}: run `make venv`"
    assert Version(f"{installed.major + 1}") not in bound, f"{name} has no upper bound"


def test_allauth_counts_its_rate_limits_under_the_prefix_the_cache_falls_back_for(rf, monkeypatch):
    """accounts.lockout counts with allauth's internal `ratelimit` (consume, rollback, clear,
    get_rates); core.outages.cache keeps the keys under `allauth:rl:` in the database while Redis is
    down."""
    from allauth.account.internal.flows.email_verification import (
        consume_email_verification_rate_limit,
    )
    from allauth.core.internal import ratelimit

    from accounts.lockout import _APP, ACCOUNT_LIMIT, ADDRESS_LIMIT
    from core.outages.cache import RATE_LIMIT_PREFIX

    class RecordingCache(LocMemCache):
        """Every key read, written or deleted passes through `make_key`."""

        def make_key(self, key, version=None):
            keys.append(key)
            return super().make_key(key, version)

    keys: list[str] = []
    monkeypatch.setattr(ratelimit, "cache", RecordingCache("allauth-rate-limits", {}))
    request = rf.post("/accounts/login/")

    assert [rate.per for rate in ratelimit.get_rates(app=_APP, action=ADDRESS_LIMIT)] == ["ip"]
    assert all(rate.duration > 0 for rate in ratelimit.get_rates(app=_APP, action=ACCOUNT_LIMIT))
    address_usage = ratelimit.consume(request, app=_APP, action=ADDRESS_LIMIT)
    account_usage = ratelimit.consume(request, app=_APP, action=ACCOUNT_LIMIT, key="alice")
    assert address_usage and account_usage
    address_usage.rollback()
    ratelimit.clear(request, app=_APP, action=ACCOUNT_LIMIT, key="alice")
    assert consume_email_verification_rate_limit(request, "alice@example.com", dry_run=True)

    assert keys
    assert all(key.startswith(RATE_LIMIT_PREFIX) for key in keys), keys


def test_django_redis_omit_exception_turns_a_lost_connection_into_the_given_answer():
    """core.outages.cache.RedisCache._add: a failed `add` reports success, with
    IGNORE_EXCEPTIONS."""
    from django_redis.cache import omit_exception
    from django_redis.exceptions import ConnectionInterrupted

    from core.outages.cache import RedisCache, redis_cache

    class Failing:
        logger = None

        def __init__(self, ignore: bool) -> None:
            self._ignore_exceptions = ignore
            self._log_ignored_exceptions = False

        @omit_exception(return_value=True)
        def add(self) -> bool:
            raise ConnectionInterrupted(connection=None) from ConnectionError("refused")

    assert Failing(ignore=True).add() is True
    with pytest.raises(ConnectionError):
        Failing(ignore=False).add()

    # The site's cache takes IGNORE_EXCEPTIONS where omit_exception reads it (no connection yet).
    entry = redis_cache("redis://127.0.0.1:6379/0", 0.25)
    cache = RedisCache(entry["LOCATION"], {"OPTIONS": entry["OPTIONS"]})
    assert cache._ignore_exceptions is True
    client_methods = {"get", "set", "add", "delete"}
    for name in client_methods:
        parameters = inspect.signature(getattr(cache.client, name)).parameters
        assert {"version", "client"} <= set(parameters), name


def test_redis_connections_go_through_connect_and_read_response(redis_url):
    """core.outages.cache.FailFastConnection overrides these two to notice an outage."""
    import redis
    from redis.connection import Connection

    from core.outages.cache import FailFastConnection

    calls: list[str] = []

    class Recording(Connection):
        def connect(self, *args, **kwargs):
            calls.append("connect")
            return super().connect(*args, **kwargs)

        def read_response(self, *args, **kwargs):
            calls.append("read_response")
            return super().read_response(*args, **kwargs)

    assert issubclass(FailFastConnection, Connection)
    pool = redis.ConnectionPool.from_url(redis_url, connection_class=Recording)
    try:
        assert redis.Redis(connection_pool=pool).ping() is True
    finally:
        pool.disconnect()
    assert calls[0] == "connect" and "read_response" in calls


def test_kombu_keeps_a_queues_priorities_in_the_lists_the_metrics_count(redis_url):
    """azul_site.metrics reads a queue's depth as its list plus one list per priority step."""
    import redis
    from kombu import Connection, Queue

    from azul_site.metrics import PRIORITY_SEPARATOR, PRIORITY_STEPS

    name = f"dependency-check-{uuid.uuid4().hex}"
    lists = [name, *(f"{name}{PRIORITY_SEPARATOR}{step}" for step in PRIORITY_STEPS)]
    client = redis.Redis.from_url(redis_url)
    try:
        with Connection(redis_url) as connection:
            queue = Queue(name, routing_key=name)
            producer = connection.Producer()
            for priority in (0, *PRIORITY_STEPS):
                producer.publish(
                    {"p": priority}, routing_key=name, declare=[queue], priority=priority
                )
        assert [client.llen(key) for key in lists] == [1] * len(lists)
    finally:
        client.delete(*lists, "_kombu.binding.celery", f"_kombu.binding.{name}")
        client.close()


def test_sentry_takes_the_options_the_site_scrubs_with():
    """core.ops.error_reports.sentry_init (its whole path: tests/ops/test_sentry.py)."""
    import sentry_sdk.consts
    from sentry_sdk.scrubber import DEFAULT_DENYLIST, EventScrubber

    from core.ops.error_reports import GAME_SECRETS

    options = inspect.signature(sentry_sdk.consts.ClientConstructor.__init__).parameters
    used = {"send_default_pii", "include_local_variables", "event_scrubber", "before_send"}
    assert used | {"before_send_transaction", "traces_sample_rate"} <= set(options)

    event = {"extra": {"state": {"deal_seed": "5eed", "bag": [1, 2]}, "password": "hunter2"}}
    EventScrubber(denylist=[*DEFAULT_DENYLIST, *GAME_SECRETS], recursive=True).scrub_event(event)
    scrubbed = event["extra"]["state"]["deal_seed"], event["extra"]["state"]["bag"]
    assert [value.value for value in (*scrubbed, event["extra"]["password"])] == ["[Filtered]"] * 3


def locked(path: str) -> dict[str, Version]:
    """The versions a lock file pins (`path` from the project's folder, or absolute)."""
    pins = {}
    for line in (ROOT / path).read_text().splitlines():
        if line and not line[0].isspace() and not line.startswith("#"):
            requirement = Requirement(line.rstrip(" \\"))
            (pinned,) = requirement.specifier
            pins[canonicalize_name(requirement.name)] = Version(pinned.version)
    return pins


@pytest.mark.parametrize(
    ("lock", "extras"), [("requirements/lock.txt", []), ("requirements/dev-lock.txt", ["dev"])]
)
def test_the_lock_holds_what_pyproject_asks_for(lock, extras):
    """After a change to pyproject.toml's dependencies, `make lock` was run."""
    pins = locked(lock)
    lines = [
        *PROJECT["dependencies"],
        *(line for extra in extras for line in PROJECT["optional-dependencies"][extra]),
    ]
    for line in lines:
        requirement = Requirement(line)
        if requirement.marker and not requirement.marker.evaluate(dict(default_environment())):
            continue
        pinned = pins.get(canonicalize_name(requirement.name))
        assert pinned is not None, f"{lock} lacks {requirement.name}: run `make lock`"
        assert pinned in requirement.specifier, f"{lock}: {requirement.name} {pinned}, not {line}"


def test_the_sites_lock_takes_the_same_versions_as_the_developers():
    dev = locked("requirements/dev-lock.txt")
    assert {name: dev.get(name) for name in locked("requirements/lock.txt")} == locked(
        "requirements/lock.txt"
    )


@pytest.mark.slow
def test_make_lock_solves_pyproject_to_the_locked_versions(tmp_path):
    """`make lock` runs (in a copy: it asks the package index), and keeps the locked versions."""
    for name in ("Makefile", "pyproject.toml", "README.md", "requirements"):
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, tmp_path / name)
    done = subprocess.run(
        ["make", "lock", f"VENV={sys.prefix}"], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    for lock in ("requirements/lock.txt", "requirements/dev-lock.txt"):
        # Versions, not hashes: an index may add a wheel to a release after it was locked.
        assert locked(str(tmp_path / lock)) == locked(lock), lock
