"""A database failover or outage (issue #31) on the real servers: gunicorn's synchronous workers
and the live process (uvicorn workers, a connection pool), on PostgreSQL.

- Every connection terminated at once (a failover): the next request of each worker succeeds,
  the connection health check (CONN_HEALTH_CHECKS) replacing the dead one, never a 500.
- The database down (refusing connections) or not answering: 503 with `Retry-After`, a static
  page in the reader's language for a browser and the API's error shape for a script, whether
  the failure is in the view or in a middleware before it (the session); one warning line in
  the log for each, never a traceback.
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path

import pytest
from django.db import connection
from django.urls import reverse

from tests.support.databases import current_database, database_url
from tests.support.gunicorn import gunicorn
from tests.support.outage import closed_port, hung_server

pytestmark = pytest.mark.slow

SECRET = "failover-test-only-secret-key-not-for-production-0123456789abcdef"
# The servers' connections name themselves (libpq reads PGAPPNAME), so that they are told apart
# from any other process connected to the test database.
APP_NAME = f"failover-test-{os.getpid()}"


def server_env(database: str, **more: str) -> dict[str, str]:
    passed = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
    return {
        **passed,
        "DATABASE_URL": database,
        "DEBUG": "0",
        "SECRET_KEY": SECRET,
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_COOKIES": "0",
        "SECURE_HSTS_SECONDS": "0",
        "EMAIL_URL": "dummymail://",
        "LOG_LEVEL": "WARNING",
        "PGAPPNAME": APP_NAME,
        **more,
    }


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], str]:
    request = urllib.request.Request(url, headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read().decode(errors="replace")
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode(errors="replace")


@contextmanager
def site(
    log: Path, env: dict[str, str], app: str = "azul_site.wsgi", **gunicorn_env: str
) -> Iterator[str]:
    """gunicorn (gunicorn.conf.py) serving `app` on a free port, once it answers (the favicon's
    redirect, which reads no database); its base URL."""
    with gunicorn(
        app, log, ready_path="/favicon.ico", ready_statuses=(301, 302), **env, **gunicorn_env
    ) as server:
        yield f"http://127.0.0.1:{server.port}"


def server_backends(since: float | None = None) -> int:
    """The server's connections to the test database (started after the database's clock read
    `since`, when given)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = %s"
            " AND (%s::float8 IS NULL OR backend_start > to_timestamp(%s::float8))",
            [current_database(), APP_NAME, since, since],
        )
        return cursor.fetchone()[0]


def fail_over() -> float:
    """Terminates every connection of the server to the test database at once, as a failover
    does (waiting until each has ended); the database's clock then. The test process's own
    connections are spared: they may be pooled (an earlier test in this process may have
    imported the ASGI module, which pools them), and the test must go on with them."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity"
            " WHERE datname = %s AND application_name = %s",
            [current_database(), APP_NAME],
        )
        cursor.execute("SELECT extract(epoch FROM clock_timestamp())::float8")
        return cursor.fetchone()[0]


def requests_until(url: str, backends: int, since: float | None = None) -> list[int]:
    """The statuses of requests to `url` until `backends` server connections (opened after
    `since`) exist: every worker has served one of them. The requests go `backends` at once:
    one after another, the worker that has just answered may take every next one (it is back
    at the listening socket first), and another worker would never be asked."""
    statuses: list[int] = []
    with ThreadPoolExecutor(max_workers=backends) as pool:
        while server_backends(since) < backends:
            assert len(statuses) < 200, statuses
            statuses += [status for status, _, _ in pool.map(fetch, [url] * backends)]
    return statuses


@pytest.mark.django_db(transaction=True)
def test_every_worker_serves_its_next_request_after_a_failover(alice, static_root, tmp_path):
    env = server_env(database_url(current_database()), STATIC_ROOT=str(static_root))
    log = tmp_path / "gunicorn.log"
    page = reverse("accounts:player", args=[alice.username])
    with site(log, env, WEB_CONCURRENCY="2") as url:
        assert set(requests_until(url + page, backends=2)) == {200}, log.read_text()
        for _ in range(2):
            failed_over_at = fail_over()
            assert server_backends() == 0
            # Both workers held a dead connection: each replaces it before its next query.
            statuses = requests_until(url + page, backends=2, since=failed_over_at)
            statuses += [fetch(url + "/api/leaderboard/")[0] for _ in range(4)]
            assert set(statuses) == {200}, log.read_text()
        # Read while the site still serves: how gunicorn's workers exit when it is stopped
        # (a sync worker can print a TypeError from its select as the master shuts down) is
        # not the failover's concern.
        served = log.read_text()
    assert "Traceback" not in served


@pytest.mark.django_db(transaction=True)
def test_the_live_process_pool_recovers_after_a_failover(alice, static_root, tmp_path):
    env = server_env(
        database_url(current_database()), STATIC_ROOT=str(static_root), DB_POOL_SIZE="2"
    )
    log = tmp_path / "live.log"
    page = reverse("accounts:player", args=[alice.username])
    live = {"GUNICORN_WORKER_CLASS": "azul_site.live_worker.LiveWorker", "WEB_CONCURRENCY": "1"}
    with site(log, env, "azul_site.asgi:application", **live) as url:
        assert fetch(url + page)[0] == 200, log.read_text()
        failed_over_at = fail_over()
        # The pool lends no connection it has not checked: the dead ones are replaced.
        statuses = [fetch(url + page)[0] for _ in range(6)]
        assert set(statuses) == {200}, log.read_text()
        assert server_backends(since=failed_over_at) >= 1
    assert "Traceback" not in log.read_text()


def assert_unavailable(url: str, log: Path) -> None:
    """Pages, the API and a page whose session a middleware reads first: each a 503 with
    Retry-After in its shape and language, and a warning line in the log, no traceback."""
    page = reverse("accounts:player", args=["alice"])

    status, headers, body = fetch(url + page)
    assert status == 503, log.read_text()
    assert headers["Retry-After"] == "5"
    assert headers["Content-Type"].startswith("text/html")
    assert "<h1>Back in a moment</h1>" in body
    assert "try again in a few seconds" in body

    status, headers, body = fetch(url + page, **{"Accept-Language": "ko"})
    assert status == 503
    assert headers["Retry-After"] == "5"
    assert '<html lang="ko">' in body
    assert "잠시만 기다려 주세요" in body
    assert "몇 초 뒤에 다시 시도하세요" in body

    # The session is read (time_zone_middleware) before the view is reached.
    status, headers, body = fetch(url + "/rules/", Cookie="sessionid=abc123abc123abc123abc123")
    assert status == 503, log.read_text()
    assert "<h1>Back in a moment</h1>" in body

    status, headers, body = fetch(url + "/api/leaderboard/", Accept="application/json")
    assert status == 503
    assert headers["Retry-After"] == "5"
    assert json.loads(body)["code"] == "unavailable"
    assert json.loads(body)["detail"] == "The site is busy: try again in a few seconds."

    text = log.read_text()
    assert "Traceback" not in text
    assert text.count("no database connection") == 4, text
    assert f"503 for GET {page}: no database connection" in text


def test_a_database_that_refuses_connections_is_a_503(static_root, tmp_path):
    database = f"postgres://postgres@127.0.0.1:{closed_port()}/azul"
    log = tmp_path / "gunicorn.log"
    env = server_env(database, STATIC_ROOT=str(static_root))
    with site(log, env, WEB_CONCURRENCY="1") as url:
        assert_unavailable(url, log)


def test_a_database_that_does_not_answer_is_a_503_within_the_connect_timeout(static_root, tmp_path):
    log = tmp_path / "gunicorn.log"
    with hung_server() as hung:
        port = hung.rsplit(":", 1)[1].split("/")[0]
        database = f"postgres://postgres@127.0.0.1:{port}/azul"
        env = server_env(database, STATIC_ROOT=str(static_root), DB_CONNECT_TIMEOUT="1")
        with site(log, env, WEB_CONCURRENCY="1") as url:
            started = time.monotonic()
            status, headers, _ = fetch(url + "/api/leaderboard/")
            assert status == 503, log.read_text()
            assert headers["Retry-After"] == "5"
            assert time.monotonic() - started < 5
    assert "Traceback" not in log.read_text()
