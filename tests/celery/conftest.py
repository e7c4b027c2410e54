"""Fixtures of the end-to-end tests of the background work (`tests.support.workers` holds the
machinery): a `redis-server` of the test's own, this process sending its tasks to it, Celery
workers, and an SMTP server that keeps what it is sent."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import pytest

from azul_site.celery import app
from tests.support.outage import RedisServer, running_redis_server
from tests.support.smtp import mail_to, smtp_server
from tests.support.workers import MailSink, Worker, reset_broker_pools

# -- Redis ---------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _logs_agree_at_the_end(request) -> Iterator[None]:
    """After each worker test, the games the workers played have logs, states and seats that
    agree (`check_game_logs`): checked once the workers are stopped (fixtures the test asked
    for are torn down before this one) and before the database is flushed."""
    if request.node.get_closest_marker("django_db") is None:
        yield
        return
    request.getfixturevalue("transactional_db")
    yield
    from tests.support.records import logs_disagreeing

    assert logs_disagreeing() == []


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    """A `redis-server` of this test's own on a free port, started; stopped after the test."""
    with running_redis_server() as server:
        yield server


@pytest.fixture
def send_tasks_to() -> Iterator[Callable[[str], None]]:
    """`send_tasks_to(url)`: from now on this process sends its tasks to the broker at `url`
    instead of running them in-process. Before it is called, tasks run in-process as everywhere
    else in the suite (handy to set a game up). Undone after the test.

    The queue is Celery's default one, which the workers' own tasks (a computer move's "your
    turn" email) are sent to as well: the broker is the test's own, so no other run shares it."""
    keys = ("task_always_eager", "broker_url")
    saved = {key: app.conf.get(key) for key in keys}

    def use(url: str) -> None:
        app.conf.update(task_always_eager=False, broker_url=url)
        reset_broker_pools()

    try:
        yield use
    finally:
        app.conf.update(saved)
        reset_broker_pools()


@pytest.fixture
def start_worker(send_tasks_to, tmp_path) -> Iterator[Callable[..., Worker]]:
    """`start_worker(broker_url, NAME=value, ...)`: a Celery worker for the broker at
    `broker_url`, with these settings in its environment (`NOTIFY_GRACE_SECONDS="0"`, an
    `EMAIL_URL`); returns once it is ready, with this process sending its tasks to that broker.
    `pool="prefork"` runs its tasks in a child process, as in production; `ready=False`
    returns at once (what is sent meanwhile waits in the broker for it). Workers still running
    after the test are stopped."""
    workers: list[Worker] = []

    def start(broker_url: str, pool: str = "solo", ready: bool = True, **env: str) -> Worker:
        send_tasks_to(broker_url)
        worker = Worker.spawn(
            broker_url=broker_url,
            log_path=tmp_path / f"worker-{len(workers) + 1}.log",
            env=env,
            pool=pool,
        )
        workers.append(worker)
        if ready:
            worker.wait_until_ready()
        return worker

    try:
        yield start
    finally:
        for worker in workers:
            worker.stop()


@pytest.fixture
def mail_sink(settings) -> Iterator[MailSink]:
    """A real SMTP server on a free loopback port. Workers get it with `**mail_sink.env` (an
    `EMAIL_URL` without TLS); this process's own mail goes there too."""
    sink = MailSink()
    with smtp_server(sink, settings) as port:
        # django-environ reads smtp:// as plain SMTP: no TLS, no SSL, no login.
        sink.env = {"EMAIL_URL": f"smtp://127.0.0.1:{port}"}
        yield sink


# -- one worker for a module's tests ------------------------------------------------------------


@dataclass
class Stack:
    """A `redis-server`, a Celery worker on it and an SMTP server it mails to, shared by the
    tests of a module that neither stop nor kill the worker: starting a worker (importing the
    site) is most of such a test's time."""

    redis: RedisServer
    worker: Worker
    mail: MailSink
    smtp_port: int


@pytest.fixture(scope="module")
def worker_env() -> dict[str, str]:
    """The shared worker's settings (`NOTIFY_GRACE_SECONDS`, ...): a module overrides this
    fixture. The worker's `EMAIL_URL` is the shared SMTP server's."""
    return {}


@pytest.fixture(scope="module")
def shared_redis() -> Iterator[RedisServer]:
    """The module's `redis-server`, started once."""
    with running_redis_server() as server:
        yield server


@pytest.fixture(scope="module")
def _shared_stack(shared_redis, worker_env, django_db_setup, tmp_path_factory) -> Iterator[Stack]:
    sink = MailSink()
    with smtp_server(sink) as port:
        sink.env = {"EMAIL_URL": f"smtp://127.0.0.1:{port}"}
        worker = Worker.spawn(
            broker_url=shared_redis.url,
            log_path=tmp_path_factory.mktemp("worker") / "worker-shared.log",
            env={**sink.env, **worker_env},
            pool="solo",
        )
        try:
            worker.wait_until_ready()
            yield Stack(shared_redis, worker, sink, port)
        finally:
            worker.stop()


@pytest.fixture
def shared_stack(_shared_stack, settings) -> Iterator[Stack]:
    """The module's stack as a test of its own would find it: this process's mail going to its
    SMTP server, no mail received yet, and the worker's log read from now (`Worker.log`). The
    test sets its game up in-process, then calls `send_tasks_to(shared_stack.redis.url)`, as
    `start_worker` does. After the test, the worker has finished all it was given (and writes
    nothing more to the database that the suite checks and empties then)."""
    stack = _shared_stack
    stack.worker.wait_until_idle(stack.redis.url)
    mail_to(settings, stack.smtp_port)
    stack.mail.received.clear()
    stack.worker.log_from_now()
    yield stack
    stack.worker.wait_until_idle(stack.redis.url)
