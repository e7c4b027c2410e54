"""The site under gunicorn (gunicorn.conf.py) as a subprocess on the test database, for the tests
of how it serves and stops: DEBUG off, no Redis (each worker's own cache, tasks in the request)."""

from __future__ import annotations

import http.client
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path

from tests.support.outage import closed_port
from tests.support.workers import worker_database_url

ROOT = Path(__file__).resolve().parents[2]
START_SECONDS = 30


def collect_static(root: Path) -> None:
    """The static files as deployed (hashed names, their manifest) in `root`, which pages need
    with DEBUG off: a server given STATIC_ROOT=`root` serves them."""
    environment = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
    environment.update(
        DATABASE_URL="sqlite://",
        DEBUG="0",
        SECRET_KEY="gunicorn-tests-only-secret-key-not-for-production-0123456789",
        STATIC_ROOT=str(root),
    )
    collected = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput"],
        cwd=ROOT,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert collected.returncode == 0, collected.stdout + collected.stderr


@dataclass
class Gunicorn:
    process: subprocess.Popen
    port: int
    log_path: Path

    def log(self) -> str:
        return self.log_path.read_text()

    def connect(self, timeout: float = 30) -> http.client.HTTPConnection:
        return http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        connection = self.connect()
        try:
            connection.request("GET", path, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.read()
        finally:
            connection.close()


@contextmanager
def gunicorn(
    app: str,
    log_path: Path,
    *,
    ready_path: str = "/healthz",
    ready_statuses: tuple[int, ...] = (200,),
    stop_seconds: float = 30,
    **env: str,
) -> Iterator[Gunicorn]:
    """gunicorn serving `app` with the site's gunicorn.conf.py and `env` on top, once
    `ready_path` answers one of `ready_statuses` (a server whose database is away is ready for
    its test when a page that reads none answers); stopped after, if the test left it running
    (SIGTERM, then SIGKILL after `stop_seconds`: shorter for a test that is not about the
    stop, whose workers may take seconds to exit, as with a Redis that does not answer)."""
    port = closed_port()
    environment = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}
    environment.update(
        DATABASE_URL=worker_database_url(),
        DEBUG="0",
        SECRET_KEY="gunicorn-tests-only-secret-key-not-for-production-0123456789",
        ALLOWED_HOSTS="127.0.0.1",
        SECURE_SSL_REDIRECT="0",
        SECURE_COOKIES="0",
        SECURE_HSTS_SECONDS="0",
        EMAIL_URL="dummymail://",
        GUNICORN_BIND=f"127.0.0.1:{port}",
        WEB_CONCURRENCY="2",
    )
    environment.update(env)
    with log_path.open("wb") as out:
        process = subprocess.Popen(
            [str(Path(sys.executable).with_name("gunicorn")), app, "-c", "gunicorn.conf.py"],
            cwd=ROOT,
            env=environment,
            stdout=out,
            stderr=subprocess.STDOUT,
            # Its own process group: the workers are stopped with it, even after a test killed
            # the master (orphaned workers would hold connections to the test database).
            start_new_session=True,
        )
    server = Gunicorn(process, port, log_path)
    try:
        deadline = time.monotonic() + START_SECONDS
        while True:
            assert process.poll() is None, server.log()
            try:
                if server.get(ready_path)[0] in ready_statuses:
                    break
            except OSError:
                pass
            assert time.monotonic() < deadline, server.log()
            time.sleep(0.1)
        yield server
    finally:
        _stop_group(process, stop_seconds)


def _stop_group(process: subprocess.Popen, seconds: float = 30) -> None:
    """Stops gunicorn as a deploy does (SIGTERM: workers finish and close their connections),
    then whatever of its group is left after `seconds`, at once."""
    if process.poll() is None:
        process.terminate()  # the master, which stops its workers
        with suppress(subprocess.TimeoutExpired):
            process.wait(timeout=seconds)
    with suppress(ProcessLookupError):  # else the whole group is gone
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout=10)


def refuses_connections(port: int) -> bool:
    """Whether a new connection to `port` is refused (nothing listens there). A reset counts:
    a connection that reached the listener's queue just before it closed is reset, not served."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
    try:
        connection.connect()
    except (ConnectionRefusedError, ConnectionResetError):
        return True
    finally:
        connection.close()
    return False
