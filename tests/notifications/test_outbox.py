"""The outbox: one row per recipient, game, ply and kind; each sent once, however many tasks and
sweeps run at once; failures retried with backoff; nothing lost when the broker is down."""

import datetime
from datetime import timedelta

import pytest
import time_machine
from django.contrib.admin.sites import site
from django.db import connection, transaction
from django.test import RequestFactory
from django.utils import timezone

from azul_site.celery import app as celery_app
from notifications import outbox, selectors, services, tasks
from notifications.admin import NotificationAdmin
from notifications.models import Notification
from tests.support import factories
from tests.support.concurrency import run_at_once
from tests.support.mail import FailingBackend, only_these, sent
from tests.support.play import waiting_for

START = datetime.datetime(2027, 3, 10, 12, 0, tzinfo=datetime.UTC)


@pytest.mark.django_db
def test_notifying_twice_writes_one_row_and_sends_one_task(
    alice, bob, django_capture_on_commit_callbacks
):
    # An invitation email goes only while the invitation waits for an answer.
    game = only_these(lambda: factories.invite_game(bob, alice))

    with django_capture_on_commit_callbacks() as first:
        services.notify(recipient_id=alice.pk, kind="invitation", game_id=game.id, ply=0)
    with django_capture_on_commit_callbacks() as second:
        services.notify(recipient_id=alice.pk, kind="invitation", game_id=game.id, ply=0)
        services.notify_players(
            recipient_ids=[alice.pk, alice.pk], kind="invitation", game_id=game.id, ply=0
        )

    assert Notification.objects.filter(recipient=alice, kind="invitation").count() == 1
    # A task for the event each time, and together they send one email.
    assert len(first) == 1
    for callback in first + second:
        callback()
    assert len(sent("invitation")) == 1
    # Another ply, or another kind, is another notification.
    services.notify(recipient_id=alice.pk, kind="invitation", game_id=game.id, ply=1)
    services.notify(recipient_id=alice.pk, kind="game_started", game_id=game.id, ply=0)
    assert Notification.objects.filter(recipient=alice).count() == 3


@pytest.mark.django_db
def test_an_immediate_notification_is_sent_once_the_write_commits(
    alice, bob, start_game, django_capture_on_commit_callbacks
):
    game = start_game(alice, bob)

    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        services.notify(recipient_id=alice.pk, kind="game_started", game_id=game.id, ply=1)
        assert sent() == []  # not before the commit

    row = Notification.objects.get(recipient=alice, kind="game_started")
    assert (row.status, row.attempts) == ("sent", 1)
    assert row.sent_at is not None
    assert [m.to for m in sent("game_started")] == [["alice@example.com"]]


@pytest.mark.django_db
def test_a_broker_that_is_down_breaks_nothing_and_the_sweep_sends_later(
    alice, bob, start_game, django_capture_on_commit_callbacks, monkeypatch, caplog
):
    game = start_game(alice, bob)

    def broker_down(*args, **kwargs):
        raise ConnectionRefusedError("[Errno 111] Connection refused")

    monkeypatch.setattr(celery_app, "signature", broker_down)
    with time_machine.travel(START, tick=False) as clock:
        with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
            services.notify(recipient_id=alice.pk, kind="game_over", game_id=game.id, ply=9)

        assert "the sweep will send it" in caplog.text
        assert Notification.objects.get(kind="game_over").status == "pending"
        assert sent() == []

        clock.shift(timedelta(seconds=59))
        assert services.sweep().sent == 0  # its own task may still be on the way
        clock.shift(timedelta(seconds=2))
        assert services.sweep().sent == 1

    assert Notification.objects.get(kind="game_over").status == "sent"
    assert len(sent("game_over")) == 1


@pytest.mark.django_db(transaction=True)
def test_the_send_task_delivered_ten_times_at_once_sends_one_email(alice, bob, monkeypatch):
    game = only_these(lambda: factories.invite_game(bob, alice))
    monkeypatch.setattr(services, "_enqueue", lambda *args, **kwargs: None)  # no task yet
    services.notify(recipient_id=alice.pk, kind="invitation", game_id=game.id, ply=0)
    row = Notification.objects.get(kind="invitation")

    run_at_once(10, lambda: tasks.send_notification.apply(args=[row.pk], throw=True))

    assert len(sent("invitation")) == 1
    row.refresh_from_db()
    assert (row.status, row.attempts) == ("sent", 1)
    # And once sent, it stays sent.
    tasks.send_notification.apply(args=[row.pk], throw=True)
    assert len(sent("invitation")) == 1


@pytest.mark.django_db(transaction=True)
def test_five_sweeps_at_once_send_each_due_row_once(alice, bob, carol, start_game, monkeypatch):
    games = [start_game(alice, bob), start_game(bob, carol), start_game(carol, alice)]
    monkeypatch.setattr(services, "_enqueue_event", lambda *args, **kwargs: None)  # tasks lost
    with time_machine.travel(START, tick=False) as clock:
        for game in games:
            services.notify_players(
                recipient_ids=[alice.pk, bob.pk, carol.pk],
                kind="game_over",
                game_id=game.id,
                ply=game.ply,
            )
        clock.shift(timedelta(minutes=2))

        results = run_at_once(5, services.sweep)

    assert Notification.objects.count() == 9
    assert sum(r.sent for r in results) == 9
    assert len(sent("game_over")) == 9
    assert set(Notification.objects.values_list("status", "attempts")) == {("sent", 1)}
    assert sorted(m.to[0] for m in sent()) == sorted(
        ["alice@example.com", "bob@example.com", "carol@example.com"] * 3
    )


@pytest.mark.django_db
def test_a_failed_send_is_retried_with_backoff_then_marked_failed(
    alice, bob, start_game, settings, django_capture_on_commit_callbacks
):
    settings.EMAIL_BACKEND = "tests.support.mail.FailingBackend"
    settings.NOTIFY_MAX_ATTEMPTS = 3
    FailingBackend.attempts = 0
    game = start_game(alice, bob)

    with time_machine.travel(START, tick=False) as clock:
        with django_capture_on_commit_callbacks(execute=True):
            services.notify(recipient_id=alice.pk, kind="timeout", game_id=game.id, ply=4)
        row = Notification.objects.get(kind="timeout")
        assert (row.status, row.attempts) == ("pending", 1)
        assert row.send_after == START + timedelta(minutes=1)
        assert "SMTPServerDisconnected" in row.last_error

        clock.shift(timedelta(seconds=59))
        services.sweep()  # its backoff has not run out yet
        assert FailingBackend.attempts == 1
        clock.shift(timedelta(seconds=2))
        services.sweep()
        row.refresh_from_db()
        assert (row.status, row.attempts) == ("pending", 2)
        assert row.send_after == timezone.now() + timedelta(minutes=2)

        clock.shift(timedelta(minutes=1, seconds=59))
        services.sweep()
        assert FailingBackend.attempts == 2
        clock.shift(timedelta(seconds=2))
        services.sweep()
        row.refresh_from_db()
        assert (row.status, row.attempts) == ("failed", 3)
        assert FailingBackend.attempts == 3

        clock.shift(timedelta(hours=3))
        services.sweep()
        assert FailingBackend.attempts == 3  # failed for good: left alone

    assert sent() == []


@pytest.mark.django_db
def test_the_admin_retries_failed_notifications(
    alice, bob, start_game, admin_user, django_capture_on_commit_callbacks
):
    game = waiting_for(start_game(alice, bob), alice)
    services.notify(recipient_id=alice.pk, kind="game_over", game_id=game.id, ply=3)
    services.notify(recipient_id=bob.pk, kind="game_over", game_id=game.id, ply=3)
    Notification.objects.update(status="failed", attempts=3, last_error="SMTP said no")
    Notification.objects.filter(recipient=bob).update(status="skipped")
    request = RequestFactory().post("/admin/")
    request.user = admin_user
    request._messages = type("Messages", (), {"add": lambda *a, **k: None})()

    with django_capture_on_commit_callbacks(execute=True):
        NotificationAdmin(Notification, site).retry_failed(request, Notification.objects.all())

    assert dict(Notification.objects.values_list("recipient_id", "status")) == {
        alice.pk: "sent",
        bob.pk: "skipped",
    }
    assert [m.to for m in sent("game_over")] == [["alice@example.com"]]


def test_the_backoff_doubles_up_to_a_limit():
    delays = [outbox.retry_delay(n) for n in range(1, 10)]

    assert delays[:4] == [timedelta(minutes=m) for m in (1, 2, 4, 8)]
    assert max(delays) == outbox.RETRY_LONGEST
    assert delays == sorted(delays)


@pytest.mark.django_db
def test_no_mail_to_an_unverified_address(
    make_user, alice, start_game, django_capture_on_commit_callbacks
):
    dora = make_user("dora", verified=False)
    game = start_game(alice, dora)

    with django_capture_on_commit_callbacks(execute=True):
        services.notify(recipient_id=dora.pk, kind="game_started", game_id=game.id, ply=1)

    row = Notification.objects.get(recipient=dora)
    assert row.status == "skipped"
    assert "verified" in row.last_error
    assert sent() == []


@pytest.mark.django_db
def test_a_kind_turned_off_after_the_notification_is_not_sent(
    alice, bob, start_game, django_capture_on_commit_callbacks
):
    game = start_game(alice, bob)
    with time_machine.travel(START, tick=False) as clock:
        services.notify(recipient_id=alice.pk, kind="your_turn", game_id=game.id, ply=game.ply)
        alice.profile.email_your_turn = "never"
        alice.profile.save()
        clock.shift(timedelta(minutes=5))
        services.sweep()

    assert Notification.objects.get(recipient=alice).status == "skipped"
    assert sent() == []


@pytest.mark.django_db
def test_the_sweep_reads_pending_rows_through_their_partial_index():
    now = timezone.now()
    query = selectors.due(written_before=now, now=now).values_list("pk", flat=True)[:500]

    with transaction.atomic(), connection.cursor() as cursor:
        # An empty table is cheapest to scan: ask what the planner does when scans are dear.
        cursor.execute("SET LOCAL enable_seqscan = off")
        plan = query.explain()

    assert "notification_due_idx" in plan
