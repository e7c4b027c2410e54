"""Real processes for the end-to-end tests of the background work (tests/celery): Celery workers
started as subprocesses against this test run's database, the broker's connection pools, an SMTP
handler that keeps what it is sent, and the games and log readers those tests use.

Nothing here is mocked: the tests send tasks to a broker (not in-process), the workers run them,
and their mail goes over SMTP.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import quote

import kombu.pools
import pytest
import redis
from django.db import connection

import azul
from azul_site.celery import app
from games.models import Game, LogEntry
from tests.support import factories

ROOT = Path(__file__).resolve().parents[2]
WORKER_SITE_URL = "http://azul.test"
WORKER_START_SECONDS = 30


def wait_for(condition: Callable[[], Any], timeout: float, failure: Callable[[], str]) -> Any:
    """Poll `condition` until it returns something true, and return that; fail with
    `failure()` once `timeout` seconds have passed."""
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(failure())
        time.sleep(0.05)


def reset_broker_pools() -> None:
    """Close and forget every broker connection pool, so that the next send connects to the
    broker now set. Kombu keeps its pools in a registry of its own, by broker: closing only the
    app's would leave a closed pool there for the next test that sends to that broker (even
    in-process tasks go through one)."""
    kombu.pools.reset()
    app._after_fork()


def worker_database_url() -> str:
    db = connection.settings_dict
    auth = quote(db["USER"] or "", safe="")
    if db.get("PASSWORD"):
        auth += ":" + quote(db["PASSWORD"], safe="")
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{auth}@{host}:{port}/{db['NAME']}"


TASK_LINE = re.compile(
    r"Task ([\w.]+)\[([0-9a-f-]+)\] (received|succeeded|raised|retry|failed|ignored|rejected)"
)


def broker_holds(broker_url: str) -> dict[str, int]:
    """What the Redis broker at `broker_url` still holds for a worker: messages queued, and taken
    but not acknowledged (which it would hand out again). Empty when every task was taken and
    acknowledged."""
    client = redis.Redis.from_url(broker_url, decode_responses=True)
    try:
        held = {
            str(key): client.llen(key) for key in client.keys("*") if client.type(key) == "list"
        }
        held["unacked"] = client.hlen("unacked")
    finally:
        client.close()
    return {key: count for key, count in held.items() if count}


class Worker:
    """A `celery worker` subprocess (solo pool, one task at a time, unless `pool` says
    otherwise) in a process group of its own, so that it can be killed whole; its output goes
    to `log_path`."""

    def __init__(self, process: subprocess.Popen, log_path: Path) -> None:
        self.process = process
        self.log_path = log_path
        self.log_start = 0  # where `log` begins: the current test's part of a shared worker's

    @classmethod
    def spawn(
        cls, *, broker_url: str, log_path: Path, env: dict[str, str], pool: str = "solo"
    ) -> Worker:
        """Start the worker; see `wait_until_ready`."""
        environment = {
            key: value
            for key, value in os.environ.items()
            if key not in ("REDIS_URL", "EMAIL_URL", "EMAIL_HOST", "NOTIFY_GRACE_SECONDS")
        }
        environment.update(
            DATABASE_URL=worker_database_url(),
            CELERY_BROKER_URL=broker_url,
            CELERY_TASK_ALWAYS_EAGER="0",
            DEBUG="1",
            SITE_URL=WORKER_SITE_URL,
            PYTHONUNBUFFERED="1",
        )
        environment.update(env)
        with log_path.open("w") as out:
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "celery",
                    "-A",
                    "azul_site",
                    "worker",
                    f"--pool={pool}",
                    "--concurrency=1",
                    "--hostname",
                    f"{log_path.stem}-{uuid.uuid4().hex[:6]}@%h",
                    "--without-gossip",
                    "--without-mingle",
                    "--without-heartbeat",
                    "--loglevel=INFO",
                ],
                cwd=ROOT,
                env=environment,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        return cls(process, log_path)

    def wait_until_ready(self) -> None:
        self.wait_for_log("ready.", WORKER_START_SECONDS)

    def log(self) -> str:
        """What the worker wrote since it started, or since `log_from_now` (a worker shared by
        several tests: each reads its own part)."""
        return self.log_path.read_text()[self.log_start :]

    def log_from_now(self) -> None:
        self.log_start = len(self.log_path.read_text())

    def running_tasks(self) -> list[str]:
        """The tasks the worker has received and not finished (`Task name[id] received`, then
        succeeded, raised, retry, ...), in its whole log: those it holds for later (a
        countdown) among them."""
        running: dict[str, str] = {}
        for name, task_id, outcome in TASK_LINE.findall(self.log_path.read_text()):
            if outcome == "received":
                running[task_id] = name
            else:
                running.pop(task_id, None)
        return list(running.values())

    def wait_until_idle(self, broker_url: str, timeout: float = 30) -> None:
        """Wait until the worker has finished every task it received and the broker holds none
        for it: nothing that it runs can happen after this (no beat sends more), which a test
        that counts emails or moves once the work is done relies on, rather than a sleep."""

        def idle() -> bool:
            if self.process.poll() is not None:
                pytest.fail(f"the worker exited ({self.process.returncode}):\n{self.log()}")
            return not self.running_tasks() and not broker_holds(broker_url)

        wait_for(
            idle,
            timeout,
            lambda: (
                f"the worker is still busy ({self.running_tasks()}, broker: "
                f"{broker_holds(broker_url)}):\n{self.log()}"
            ),
        )

    def wait_for_log(self, text: str, timeout: float) -> None:
        def seen() -> bool:
            if self.process.poll() is not None:
                pytest.fail(f"the worker exited ({self.process.returncode}):\n{self.log()}")
            return text in self.log()

        wait_for(seen, timeout, lambda: f"no {text!r} in the worker's log:\n{self.log()}")

    def kill(self) -> None:
        """SIGKILL to the worker's whole process group: no warm shutdown, no acknowledgement."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=10)

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            self.kill()


@dataclass(frozen=True)
class Received:
    at: float  # time.monotonic() when the SMTP server accepted it
    recipients: list[str]
    message: EmailMessage

    @property
    def kind(self) -> str | None:
        return self.message["X-Azul-Notification"]

    def text(self) -> str:
        return self.message.get_body(preferencelist=("plain",)).get_content()

    def links(self) -> list[str]:
        return re.findall(r"https?://[^\s<>\"']+", self.text())


class MailSink:
    """An SMTP server's handler that keeps every message, parsed, with when it came."""

    def __init__(self) -> None:
        self.received: list[Received] = []
        self.env: dict[str, str] = {}

    async def handle_DATA(self, server, session, envelope) -> str:
        raw = envelope.original_content or envelope.content
        self.received.append(
            Received(
                at=time.monotonic(),
                recipients=list(envelope.rcpt_tos),
                message=message_from_bytes(raw, policy=policy.default),
            )
        )
        return "250 Message accepted for delivery"

    def mails(self, kind: str | None = None, to: str | None = None) -> list[Received]:
        return [
            m
            for m in list(self.received)
            if (kind is None or m.kind == kind) and (to is None or to in m.recipients)
        ]

    def summary(self) -> str:
        return "; ".join(f"{m.kind} to {m.recipients}" for m in self.received) or "none"


def against_computer_to_move(user, level: str = "random") -> Game:
    """A started two-player game of `user` against the computer at `level`, with `user` to
    move. Call it before tasks go to a broker: a computer that starts plays in-process."""
    game = factories.against_computer(user, level=level)
    game = Game.objects.get(pk=game.pk)
    assert azul.State.from_dict(game.state).to_move == [0], "the computer did not move"
    return game


def computer_moved_at(game_id: Any, ply: int, position: int = 1) -> bool:
    return LogEntry.objects.filter(
        game_id=game_id, number=ply, kind=LogEntry.Kind.MOVE, player=position
    ).exists()
