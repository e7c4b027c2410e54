"""A deploy stops the workers with SIGTERM (Celery's warm shutdown): the task a worker is running
finishes, once, and the worker exits 0. A computer move in the middle of its turn, and an email
in the middle of its SMTP conversation, each arrive exactly once."""

from __future__ import annotations

import asyncio
import re
import signal
import threading

import pytest
from django.db import connection, transaction
from django.utils import timezone

from core.tasks import send
from games.models import Game, LogEntry
from notifications import outbox
from notifications.models import Notification
from tests.support import factories
from tests.support.mail import only_these
from tests.support.play import first_legal_move
from tests.support.smtp import smtp_server
from tests.support.urls import games_url
from tests.support.workers import MailSink, against_computer_to_move, broker_holds, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

STOP_SECONDS = 15


def blocked_on_a_lock() -> bool:
    """Another session of this database waits for a row lock (the worker, on the game's)."""
    with connection.cursor() as cursor:
        # Read afresh: within a transaction, the view keeps what it showed first.
        cursor.execute("SELECT pg_stat_clear_snapshot()")
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


def test_sigterm_mid_computer_move_plays_it_once_and_exits_0(
    redis_server, start_worker, api_client_for, alice
):
    game = against_computer_to_move(alice, level="strong")
    worker = start_worker(redis_server.url, pool="prefork")
    _, move, ply = first_legal_move(game.id)
    response = api_client_for(alice).post(
        games_url(game.id, "moves"), {"move": move, "expected_ply": ply}, format="json"
    )
    assert response.status_code == 201, response.json()
    computers_ply = response.json()["ply"]

    with transaction.atomic():
        # Hold the game's row: the worker thinks, then waits here to write its move, and is
        # told to stop meanwhile, whatever the machine's speed.
        Game.objects.select_for_update().get(pk=game.id)
        wait_for(
            blocked_on_a_lock, 15, lambda: f"the worker did not reach the game:\n{worker.log()}"
        )
        worker.process.send_signal(signal.SIGTERM)  # as `docker stop` does: its main process
        worker.wait_for_log("Warm shutdown", 5)
        assert worker.process.poll() is None, "the worker left its task"

    assert worker.process.wait(timeout=STOP_SECONDS) == 0, worker.log()
    assert re.search(r"computer_move\[[^\]]+\] succeeded", worker.log()), worker.log()
    moves = LogEntry.objects.filter(game_id=game.id, number=computers_ply, kind="move")
    assert [entry.player for entry in moves] == [1]
    assert Game.objects.get(pk=game.id).ply > computers_ply
    assert broker_holds(redis_server.url) == {}


class HeldMailSink(MailSink):
    """A mail server that, once a message's data has come, holds its answer until `release`."""

    def __init__(self) -> None:
        super().__init__()
        self.data_came = threading.Event()
        self.release = threading.Event()

    async def handle_DATA(self, server, session, envelope) -> str:
        self.data_came.set()
        await asyncio.get_running_loop().run_in_executor(None, self.release.wait, 20)
        return await super().handle_DATA(server, session, envelope)


def test_sigterm_mid_email_sends_it_once_and_exits_0(
    redis_server, start_worker, settings, alice, bob
):
    game = only_these(lambda: factories.invite_game(bob, alice))
    sink = HeldMailSink()
    with smtp_server(sink, settings) as port:
        notification = Notification.objects.create(
            recipient=alice, kind="invitation", game=game, ply=0, send_after=timezone.now()
        )
        worker = start_worker(
            redis_server.url, pool="prefork", EMAIL_URL=f"smtp://127.0.0.1:{port}"
        )
        assert send(outbox.SEND_TASK, [notification.pk])
        assert sink.data_came.wait(15), worker.log()

        worker.process.send_signal(signal.SIGTERM)
        worker.wait_for_log("Warm shutdown", 5)
        assert worker.process.poll() is None, "the worker left its email"
        sink.release.set()
        assert worker.process.wait(timeout=STOP_SECONDS) == 0, worker.log()

        assert len(sink.mails(kind="invitation", to=alice.email)) == 1, sink.summary()
        notification.refresh_from_db()
        assert notification.status == Notification.Status.SENT
        assert notification.claimed_until is None
        assert broker_holds(redis_server.url) == {}
