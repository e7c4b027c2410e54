"""One outbox, several channels (notifications.outbox): a notification that comes to be sent
writes one delivery per device and webhook whose channel takes its kind, each claimed and sent
once, tried again after a passing failure, dropped when the device is gone; the email's rules
(grace period, seen, still true) hold for every channel.

The channels' own senders (a real push endpoint, a real webhook sink) are tested in
test_push.py and test_webhooks.py; here a recording sender stands in for both, so that what is
tested is the outbox's bookkeeping alone.
"""

from __future__ import annotations

import datetime
import sys
from datetime import timedelta

import pytest
import time_machine

from games import effects
from notifications import outbox, selectors, services, tasks, tokens
from notifications.models import ChannelDelivery, Notification, PushSubscription, Webhook
from notifications.outbox import Outcome
from notifications.push import transport as push_transport
from notifications.webhooks import transport as webhook_transport
from tests.support.play import waiting_for
from tests.support.urls import SITE_URL

pytestmark = pytest.mark.django_db

START = datetime.datetime(2027, 5, 4, 18, 30, tzinfo=datetime.UTC)
Status = ChannelDelivery.Status


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


class Recorder:
    """Stands in for a channel's sender: records each call and answers what it is told."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, int, str]] = []
        self.answers: list[Outcome] = []

    def __call__(self, delivery: ChannelDelivery) -> Outcome:
        target = delivery.push_subscription_id or delivery.webhook_id
        self.calls.append((delivery.channel, target, delivery.notification.kind))
        return self.answers.pop(0) if self.answers else outbox.SENT


_recorder: Recorder | None = None


def record(delivery: ChannelDelivery) -> Outcome:
    """The sender both channels are pointed at (their transports' `deliver`)."""
    assert _recorder is not None
    return _recorder(delivery)


@pytest.fixture
def recorder(monkeypatch):
    here = sys.modules[__name__]
    monkeypatch.setattr(here, "_recorder", Recorder())
    monkeypatch.setattr(push_transport, "deliver", record)
    monkeypatch.setattr(webhook_transport, "deliver", record)
    return here._recorder


def device(user, n=1):
    return PushSubscription.objects.create(
        user=user,
        name=f"Phone {n}",
        endpoint=f"https://push.example/{user.pk}/{n}",
        p256dh="k",
        auth="a",
    )


def webhook(user, **fields):
    return Webhook.objects.create(user=user, url="https://hooks.example/x", secret="s", **fields)


def due_your_turn(player, game, callbacks, clock):
    """A "your turn" for `player`, past its grace period and sent by the sweep."""
    with callbacks(execute=True):
        services.notify(recipient_id=player.pk, kind="your_turn", game_id=game.id, ply=game.ply)
    clock.shift(timedelta(minutes=3))
    with callbacks(execute=True):
        services.sweep()
    return Notification.objects.get(recipient=player, game=game, kind="your_turn")


def test_a_due_notification_goes_once_to_each_device_and_webhook(
    alice, bob, start_game, clock, recorder, django_capture_on_commit_callbacks
):
    phone, laptop, hook = device(alice, 1), device(alice, 2), webhook(alice)
    device(bob)  # another player's device hears nothing of alice's turn
    game = waiting_for(start_game(alice, bob), alice)

    notification = due_your_turn(alice, game, django_capture_on_commit_callbacks, clock)

    assert sorted(recorder.calls) == sorted(
        [
            ("push", phone.pk, "your_turn"),
            ("push", laptop.pk, "your_turn"),
            ("webhook", hook.pk, "your_turn"),
        ]
    )
    rows = ChannelDelivery.objects.filter(notification=notification)
    assert {row.status for row in rows} == {Status.SENT}
    # Sending again (a repeated task, a second sweep) writes and sends nothing more.
    clock.shift(timedelta(minutes=3))
    with django_capture_on_commit_callbacks(execute=True):
        services.sweep()
        outbox.deliveries_create(notification)
    for row in rows:
        assert outbox.delivery_send(delivery_id=row.pk) is False
    assert len(recorder.calls) == 3
    assert ChannelDelivery.objects.filter(notification=notification).count() == 3


def test_nothing_goes_before_the_grace_period_or_once_the_game_was_seen(
    alice, bob, start_game, clock, recorder, django_capture_on_commit_callbacks
):
    device(alice)
    game = waiting_for(start_game(alice, bob), alice)
    with django_capture_on_commit_callbacks(execute=True):
        services.notify(recipient_id=alice.pk, kind="your_turn", game_id=game.id, ply=game.ply)
        services.sweep()
    assert recorder.calls == []  # in its grace period: no push either

    clock.shift(timedelta(seconds=30))
    effects.game_viewed(user_id=alice.pk, game_id=game.id)
    clock.shift(timedelta(minutes=3))
    with django_capture_on_commit_callbacks(execute=True):
        services.sweep()

    assert recorder.calls == []
    assert not ChannelDelivery.objects.exists()


def test_each_channel_takes_only_the_kinds_the_player_chose(
    alice, bob, start_game, clock, recorder, django_capture_on_commit_callbacks
):
    phone, hook = device(alice), webhook(alice)
    services.channel_choices_set(user_id=alice.pk, channel="push", choices=["game_over"])
    game = waiting_for(start_game(alice, bob), alice)

    due_your_turn(alice, game, django_capture_on_commit_callbacks, clock)

    assert recorder.calls == [("webhook", hook.pk, "your_turn")]
    assert not ChannelDelivery.objects.filter(push_subscription=phone).exists()


def test_the_email_turned_off_or_held_for_the_digest_does_not_hold_back_a_push(
    alice, bob, start_game, clock, recorder, django_capture_on_commit_callbacks
):
    alice.profile.email_your_turn = "digest"
    alice.profile.save()
    phone = device(alice)
    game = waiting_for(start_game(alice, bob), alice)

    notification = due_your_turn(alice, game, django_capture_on_commit_callbacks, clock)

    assert notification.status == Notification.Status.HELD
    assert recorder.calls == [("push", phone.pk, "your_turn")]


def test_a_passing_failure_is_tried_again_after_the_backoff_and_a_gone_device_is_dropped(
    alice, bob, start_game, clock, recorder, django_capture_on_commit_callbacks
):
    phone, old_phone = device(alice, 1), device(alice, 2)
    recorder.answers = [Outcome(sent=False, error="503", retry=True)]
    game = waiting_for(start_game(alice, bob), alice)
    # One device answers 503 first, the other 410 (unsubscribed in the browser).
    recorder.answers.append(Outcome(sent=False, error="410 Gone", gone=True))

    notification = due_your_turn(alice, game, django_capture_on_commit_callbacks, clock)

    rows = {
        row.push_subscription_id: row
        for row in ChannelDelivery.objects.filter(notification=notification)
    }
    retried = next(row for row in rows.values() if row.status == Status.PENDING)
    assert retried.send_after == START + timedelta(minutes=3) + timedelta(minutes=1)
    assert PushSubscription.objects.filter(user=alice).count() == 1  # the gone one dropped
    dropped = ChannelDelivery.objects.get(notification=notification, status=Status.SKIPPED)
    assert dropped.push_subscription_id is None and "410" in dropped.last_error

    clock.shift(timedelta(minutes=2))
    services.sweep()
    retried.refresh_from_db()
    assert (retried.status, retried.attempts) == (Status.SENT, 2)
    assert {phone.pk, old_phone.pk} >= {call[1] for call in recorder.calls}


def test_a_delivery_that_keeps_failing_is_marked_failed_after_the_last_attempt(
    alice, bob, start_game, clock, recorder, django_capture_on_commit_callbacks, settings
):
    device(alice)
    recorder.answers = [Outcome(sent=False, error="502", retry=True)] * settings.NOTIFY_MAX_ATTEMPTS
    game = waiting_for(start_game(alice, bob), alice)
    notification = due_your_turn(alice, game, django_capture_on_commit_callbacks, clock)
    row = ChannelDelivery.objects.get(notification=notification)
    for _ in range(settings.NOTIFY_MAX_ATTEMPTS):
        clock.shift(timedelta(hours=3))
        tasks.send_delivery.apply(args=[row.pk])
    row.refresh_from_db()
    assert (row.status, row.attempts, row.last_error) == (Status.FAILED, 3, "502")


def test_a_failure_for_good_is_not_tried_again(
    alice, bob, start_game, clock, recorder, django_capture_on_commit_callbacks
):
    device(alice)
    recorder.answers = [Outcome(sent=False, error="403 Forbidden")]
    game = waiting_for(start_game(alice, bob), alice)
    notification = due_your_turn(alice, game, django_capture_on_commit_callbacks, clock)
    row = ChannelDelivery.objects.get(notification=notification)
    assert (row.status, row.attempts) == (Status.FAILED, 1)


def test_the_turn_off_link_of_a_push_turns_off_that_kind_on_that_channel_only(
    alice, bob, start_game, clock, client
):
    url = tokens.unsubscribe_url(user_id=alice.pk, kind="your_turn", channel="push")
    path = url.removeprefix(SITE_URL)

    page = client.get(path)
    assert page.status_code == 200
    client.post(path)

    assert "your_turn" not in selectors.channel_choices(user_id=alice.pk, channel="push")
    assert "your_turn" in selectors.channel_choices(user_id=alice.pk, channel="webhook")
    alice.profile.refresh_from_db()
    assert alice.profile.email_your_turn == "immediate"


def test_an_email_token_made_before_channels_existed_still_reads_as_email(alice):
    token = tokens.unsubscribe_token(user_id=alice.pk, kind="reminder")
    assert tokens.unsubscribe_target_read(token) == (alice.pk, "reminder", "email")
    with pytest.raises(tokens.BadToken):
        tokens.unsubscribe_target_read(token + "x")


def test_the_rows_of_every_channel_read_alike(alice, bob, start_game):
    """What a count of deliveries per channel reads (the soak's): one shape for the email (the
    notification's own row) and for each push notice and webhook call."""
    game = waiting_for(start_game(alice, bob), alice)
    notification = Notification.objects.create(
        recipient=alice, kind="game_over", game=game, ply=game.ply + 50, status="sent"
    )
    ChannelDelivery.objects.create(
        notification=notification,
        channel="push",
        push_subscription=device(alice),
        send_after=notification.created_at,
        status="sent",
    )
    ChannelDelivery.objects.create(
        notification=notification,
        channel="webhook",
        webhook=webhook(alice),
        send_after=notification.created_at,
    )

    shown = {
        channel: [
            (row["username"], row["kind"], row["game_id"], row["status"])
            for row in outbox.rows_of(channel).filter(kind="game_over")
        ]
        for channel in ("email", "push", "webhook")
    }

    assert shown == {
        "email": [("alice", "game_over", game.pk, "sent")],
        "push": [("alice", "game_over", game.pk, "sent")],
        "webhook": [("alice", "game_over", game.pk, "pending")],
    }
