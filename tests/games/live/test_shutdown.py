"""A deploy stops the live process (SIGTERM): the waits it holds answer at once with the game as
it is (the client asks again, of the live process that is up), rather than holding the stop for
their 30 seconds and then being cut off; the process says it is shutting down (`/readyz`) and
exits within a few seconds."""

from __future__ import annotations

import re
import signal
import threading
import time

import pytest

from accounts.services import token_create
from azul_site import live_worker
from core.ops import readiness
from games import live, selectors
from tests.support.gunicorn import gunicorn, refuses_connections
from tests.support.play import mover_and_other
from tests.support.urls import games_url
from tests.support.workers import wait_for

WAIT_SECONDS = 30
ANSWER_SECONDS = 3
EXIT_SECONDS = 5


def waits_held(server) -> int:
    status, body = server.get("/metrics")
    assert status == 200, body
    found = re.search(rb"^azul_live_waits (\S+)$", body, re.MULTILINE)
    return int(float(found.group(1))) if found else 0


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_sigterm_answers_the_waits_at_once_and_the_live_process_exits(two_player_game, tmp_path):
    game, users = two_player_game()
    _, waiting = mover_and_other(game.id, users)
    headers = {"Authorization": f"Token {token_create(user=waiting)[1]}"}
    answers: list[tuple[int, bytes, float]] = []

    with gunicorn(
        "azul_site.asgi:application",
        tmp_path / "live.log",
        GUNICORN_WORKER_CLASS="azul_site.live_worker.LiveWorker",
        WEB_CONCURRENCY="1",
        PROMETHEUS_MULTIPROC_DIR=str(tmp_path / "metrics"),
    ) as server:

        def wait() -> None:
            status, body = server.get(games_url(game.id, wait_for_turn=WAIT_SECONDS), headers)
            answers.append((status, body, time.monotonic()))

        waiter = threading.Thread(target=wait)
        waiter.start()
        wait_for(lambda: waits_held(server) == 1, 10, server.log)

        stopped = time.monotonic()
        server.process.send_signal(signal.SIGTERM)
        waiter.join(WAIT_SECONDS)
        assert server.process.wait(timeout=EXIT_SECONDS) == 0, server.log()
        exited = time.monotonic()
        assert refuses_connections(server.port)

    [(status, body, answered)] = answers
    assert status == 200, body
    assert f'"ply":{game.ply}'.encode() in body  # the game as it is: nothing changed
    assert answered - stopped < ANSWER_SECONDS
    assert exited - stopped < EXIT_SECONDS


@pytest.mark.django_db
def test_once_stopping_waits_answer_at_once_and_readyz_says_so(two_player_game):
    game, users = two_player_game()
    version = selectors.game_version(game_id=game.id, viewer=users[0])
    held: list[bool | None] = []
    waiter = threading.Thread(target=lambda: held.append(live.watch.wait(version, 30)))
    waiter.start()
    wait_for(lambda: live.watch.waiting == 1, 5, lambda: "the wait did not start")
    try:
        live_worker.stop_waiting()
        waiter.join(2)
        assert held == [True]  # woken: the view then answers with the game as it is
        started = time.monotonic()
        assert live.watch.wait(version, 30) is False
        assert time.monotonic() - started < 0.5
        assert readiness.not_ready_reasons(1.0) == ["shutting down"]
    finally:
        live.watch.reopen()
        readiness.shutting_down.clear()
