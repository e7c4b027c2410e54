"""Without a broker (`make run`, the development settings: tasks run in-process), a move's
webhook call and push notice go at once after its commit, with no sweep; one that waits out its
grace period goes at the next quick check of `manage.py sweep --every` (seconds), not at the
minute's sweep; a failed call is still tried again by the sweep."""

from __future__ import annotations

import datetime
from datetime import timedelta

import pytest
import time_machine
from django.apps import apps

from games import services as game_services
from notifications import services
from notifications.management.commands.vapid_keys import key_pair
from notifications.models import ChannelDelivery, Notification
from notifications.push import services as devices
from notifications.webhooks import services as webhook_services
from tests.support.http_sink import HttpSink
from tests.support.play import next_move, waiting_for
from tests.support.push_service import PushService

pytestmark = pytest.mark.django_db

START = datetime.datetime(2027, 5, 4, 18, 30, tzinfo=datetime.UTC)


@pytest.fixture
def no_broker(settings):
    """What the development settings give with no REDIS_URL or CELERY_BROKER_URL."""
    settings.CELERY_TASK_ALWAYS_EAGER = True
    from celery import current_app

    eager = current_app.conf.task_always_eager
    current_app.conf.task_always_eager = True
    yield
    current_app.conf.task_always_eager = eager


@pytest.fixture
def receivers(settings):
    """alice's webhook at a sink and her phone at a push service, both on this machine."""
    public, private = key_pair()
    settings.WEBPUSH_VAPID_PUBLIC_KEY = public
    settings.WEBPUSH_VAPID_PRIVATE_KEY = private
    settings.WEBPUSH_VAPID_SUBJECT = "mailto:contact@example.org"
    with HttpSink() as sink, PushService(public) as push:
        yield sink, push


def connect(user, sink, push):
    webhook_services.webhook_create(
        user_id=user.pk, name="Hook", url=sink.url + "/hook", style="json"
    )
    browser = push.subscribe("phone")
    devices.subscription_save(
        user_id=user.pk,
        endpoint=browser["endpoint"],
        p256dh=browser["keys"]["p256dh"],
        auth=browser["keys"]["auth"],
        name="Phone",
    )


def bob_moves(game, callbacks):
    by_position = {seat.position: seat.user for seat in game.seats.all()}
    with callbacks(execute=True):
        game_services.move_submit(**next_move(game, by_position))


def test_with_no_broker_a_move_reaches_the_webhook_and_the_phone_at_once(
    alice, bob, start_game, no_broker, receivers, settings, django_capture_on_commit_callbacks
):
    settings.NOTIFY_GRACE_SECONDS = 0  # due at once, as `make bench-reach` measures it
    sink, push = receivers
    connect(alice, sink, push)
    game = waiting_for(start_game(alice, bob), bob)

    bob_moves(game, django_capture_on_commit_callbacks)

    # Sent by the commit's in-process tasks: nothing swept.
    (call,) = sink.wait_for(1)
    assert call.json()["kind"] == "your_turn"
    (notice,) = push.wait_for(1)
    assert notice.problem == "" and notice.payload["kind"] == "your_turn"
    assert set(ChannelDelivery.objects.values_list("status", flat=True)) == {"sent"}


def test_with_no_broker_a_notice_that_waits_its_grace_period_goes_at_the_next_quick_check(
    alice, bob, start_game, no_broker, receivers, settings, django_capture_on_commit_callbacks
):
    settings.NOTIFY_GRACE_SECONDS = 120
    sink, push = receivers
    connect(alice, sink, push)
    with time_machine.travel(START, tick=False) as clock:
        game = waiting_for(start_game(alice, bob), bob)
        bob_moves(game, django_capture_on_commit_callbacks)
        notifications = apps.get_app_config("notifications")
        with django_capture_on_commit_callbacks(execute=True):
            notifications.quick_check()
        assert sink.requests == [] and push.pushes == []  # in its grace period

        clock.shift(timedelta(seconds=121))
        with django_capture_on_commit_callbacks(execute=True):
            assert notifications.quick_check() >= 1

    assert [call.json()["kind"] for call in sink.wait_for(1)] == ["your_turn"]
    assert [notice.payload["kind"] for notice in push.wait_for(1)] == ["your_turn"]
    row = Notification.objects.get(recipient=alice, kind="your_turn", ply=game.ply + 1)
    assert row.status == "sent"


def test_with_no_broker_a_failed_call_is_left_to_the_sweep(
    alice, bob, start_game, no_broker, receivers, settings, django_capture_on_commit_callbacks
):
    settings.NOTIFY_GRACE_SECONDS = 0
    sink, push = receivers
    connect(alice, sink, push)
    sink.answer(503)
    with time_machine.travel(START, tick=False) as clock:
        game = waiting_for(start_game(alice, bob), bob)
        bob_moves(game, django_capture_on_commit_callbacks)
        sink.wait_for(1)
        failed = ChannelDelivery.objects.get(webhook__isnull=False)
        assert (failed.status, failed.attempts) == ("pending", 1)

        clock.shift(timedelta(minutes=5))
        with django_capture_on_commit_callbacks(execute=True):
            services.sweep()

    assert len(sink.wait_for(2)) == 2
    failed.refresh_from_db()
    assert (failed.status, failed.attempts) == ("sent", 2)
