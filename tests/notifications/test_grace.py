"""A "your turn" email waits NOTIFY_GRACE_SECONDS and is dropped if the player opens the game or
moves meanwhile: two people playing live get no email per move. Opening the game writes nothing
(`games.effects.game_viewed`: a mark in the cache), and the email is skipped when it comes to be
sent."""

import datetime
from datetime import timedelta

import pytest
import time_machine

from games import effects
from notifications import seen, services, tasks
from notifications.models import Notification
from tests.support.mail import sent
from tests.support.play import waiting_for

pytestmark = pytest.mark.django_db

START = datetime.datetime(2027, 5, 4, 18, 30, tzinfo=datetime.UTC)


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def your_turn(user, game, ply, callbacks):
    """notify() as the move path calls it, its transaction committed (the task it sends runs
    at once, as Celery runs tasks in-process here; a broker would hold it for the countdown)."""
    with callbacks(execute=True):
        services.notify(recipient_id=user.pk, kind="your_turn", game_id=game.id, ply=ply)
    return Notification.objects.get(recipient=user, game=game, ply=ply, kind="your_turn")


def test_your_turn_waits_for_the_grace_period(
    alice, bob, start_game, clock, django_capture_on_commit_callbacks
):
    game = waiting_for(start_game(alice, bob), alice)

    row = your_turn(alice, game, game.ply, django_capture_on_commit_callbacks)

    assert row.send_after == START + timedelta(seconds=120)
    assert sent() == []  # the task came early: not due yet, nothing claimed
    row.refresh_from_db()
    assert (row.status, row.attempts) == ("pending", 0)

    clock.shift(timedelta(seconds=119))
    tasks.send_notification.apply(args=[row.pk])
    assert sent() == []
    clock.shift(timedelta(seconds=1))
    tasks.send_notification.apply(args=[row.pk])  # the countdown's delivery
    assert len(sent("your_turn")) == 1


def test_a_player_who_opens_the_game_gets_no_your_turn_email(
    alice, bob, start_game, clock, django_capture_on_commit_callbacks
):
    game = start_game(alice, bob)
    row = your_turn(alice, game, 5, django_capture_on_commit_callbacks)

    clock.shift(timedelta(seconds=60))
    effects.game_viewed(user_id=alice.pk, game_id=game.id)
    clock.shift(timedelta(seconds=61))
    tasks.send_notification.apply(args=[row.pk])
    clock.shift(timedelta(minutes=10))
    services.sweep()

    row.refresh_from_db()
    assert row.status == "skipped"
    assert sent() == []


def test_two_players_playing_live_get_no_email_per_move(
    alice, bob, start_game, clock, django_capture_on_commit_callbacks
):
    game = start_game(alice, bob)
    players = [alice, bob]

    for ply in range(1, 11):
        # Each move: the mover has seen the game, and the other is notified.
        mover, other = players[ply % 2], players[(ply + 1) % 2]
        effects.game_viewed(user_id=mover.pk, game_id=game.id)
        your_turn(other, game, ply, django_capture_on_commit_callbacks)
        clock.shift(timedelta(seconds=30))
    effects.game_viewed(user_id=players[1].pk, game_id=game.id)  # the last one answers too
    clock.shift(timedelta(minutes=10))
    services.sweep()

    assert sent() == []
    assert set(Notification.objects.values_list("status", flat=True)) == {"skipped"}


def notify_around_alices_game(alice, bob, game, other_game) -> None:
    """Emails for alice and bob about two games: those that seeing `game` makes unneeded are
    alice's "your turn" and reminder at ply 7 of it."""
    for kind in ("your_turn", "reminder", "game_over"):
        services.notify(recipient_id=alice.pk, kind=kind, game_id=game.id, ply=7)
    services.notify(recipient_id=bob.pk, kind="your_turn", game_id=game.id, ply=8)
    services.notify(recipient_id=alice.pk, kind="your_turn", game_id=other_game.id, ply=7)
    services.notify(recipient_id=alice.pk, kind="your_turn", game_id=game.id, ply=3)
    Notification.objects.filter(ply=3).update(status="sent")


def test_seeing_a_game_writes_nothing_and_drops_only_that_players_turn_and_reminder_mails(
    alice, bob, start_game, clock, django_assert_num_queries
):
    game, other_game = start_game(alice, bob), start_game(alice, bob)
    notify_around_alices_game(alice, bob, game, other_game)
    clock.shift(timedelta(seconds=1))

    with django_assert_num_queries(0):
        effects.game_viewed(user_id=alice.pk, game_id=game.id)
    clock.shift(timedelta(minutes=10))
    services.sweep()

    dropped = {
        (r.recipient_id, r.game_id, r.kind, r.ply)
        for r in Notification.objects.filter(last_error=seen.SEEN_REASON)
    }
    assert dropped == {(alice.pk, game.id, "your_turn", 7), (alice.pk, game.id, "reminder", 7)}
    assert set(
        Notification.objects.filter(last_error=seen.SEEN_REASON).values_list("status", flat=True)
    ) == {"skipped"}


def test_a_mail_written_after_the_player_saw_the_game_goes(
    alice, bob, start_game, clock, django_capture_on_commit_callbacks
):
    game = waiting_for(start_game(alice, bob), alice)
    effects.game_viewed(user_id=alice.pk, game_id=game.id)
    clock.shift(timedelta(seconds=1))

    with django_capture_on_commit_callbacks(execute=True):
        services.notify(recipient_id=alice.pk, kind="reminder", game_id=game.id, ply=game.ply)

    assert len(sent("reminder")) == 1


def test_a_lost_mark_lets_the_email_go(
    alice, bob, start_game, clock, django_capture_on_commit_callbacks
):
    """The mark is in the cache only: lost (Redis restarted, or down), the email goes."""
    from django.core.cache import cache

    game = waiting_for(start_game(alice, bob), alice)
    with django_capture_on_commit_callbacks(execute=True):
        services.notify(recipient_id=alice.pk, kind="reminder", game_id=game.id, ply=game.ply)
    assert len(sent("reminder")) == 1  # at once: nothing to see yet

    row = your_turn(alice, game, game.ply, django_capture_on_commit_callbacks)
    clock.shift(timedelta(seconds=1))
    effects.game_viewed(user_id=alice.pk, game_id=game.id)
    cache.clear()
    clock.shift(timedelta(minutes=10))
    services.sweep()

    row.refresh_from_db()
    assert row.status == "sent"


def test_resigning_skips_only_that_players_turn_and_reminder_mails_of_that_game(
    alice, bob, start_game, clock, django_assert_num_queries
):
    game, other_game = start_game(alice, bob), start_game(alice, bob)
    notify_around_alices_game(alice, bob, game, other_game)

    with django_assert_num_queries(1):
        skipped = services.turn_emails_skip(user_id=alice.pk, game_id=game.id)

    assert skipped == 2
    statuses = {
        (r.recipient_id, r.game_id, r.kind, r.ply): r.status for r in Notification.objects.all()
    }
    assert statuses == {
        (alice.pk, game.id, "your_turn", 7): "skipped",
        (alice.pk, game.id, "reminder", 7): "skipped",
        (alice.pk, game.id, "game_over", 7): "pending",
        (bob.pk, game.id, "your_turn", 8): "pending",
        (alice.pk, other_game.id, "your_turn", 7): "pending",
        (alice.pk, game.id, "your_turn", 3): "sent",
    }


def test_a_your_turn_held_for_the_digest_is_dropped_when_the_game_is_seen(
    alice, bob, start_game, clock
):
    alice.profile.email_your_turn = "digest"
    alice.profile.save()
    game = waiting_for(start_game(alice, bob), alice)
    services.notify(recipient_id=alice.pk, kind="your_turn", game_id=game.id, ply=game.ply)
    clock.shift(timedelta(minutes=10))
    services.sweep()
    row = Notification.objects.get(recipient=alice, kind="your_turn")
    assert row.status == "held"

    effects.game_viewed(user_id=alice.pk, game_id=game.id)
    clock.move_to(START.replace(hour=8, minute=0) + timedelta(days=1))  # the digest's hour
    services.sweep()

    row.refresh_from_db()
    assert (row.status, row.last_error, row.digest_id) == ("skipped", seen.SEEN_REASON, None)


def test_other_kinds_go_at_once(alice, bob, start_game, clock, django_capture_on_commit_callbacks):
    game = waiting_for(start_game(alice, bob), alice)

    with django_capture_on_commit_callbacks(execute=True):
        services.notify(recipient_id=alice.pk, kind="reminder", game_id=game.id, ply=game.ply)

    assert len(sent("reminder")) == 1


def test_a_your_turn_in_its_grace_period_is_sent_by_the_first_sweep_after_it(
    alice, bob, start_game, clock, django_capture_on_commit_callbacks
):
    """No task waits in the broker for the grace period to pass (a restart would lose it): the
    minute's sweep sends the email once it is due."""
    game = waiting_for(start_game(alice, bob), alice)

    with django_capture_on_commit_callbacks(execute=True) as callbacks:
        services.notify(recipient_id=alice.pk, kind="your_turn", game_id=game.id, ply=game.ply)

    assert callbacks == []
    clock.shift(timedelta(seconds=119))
    assert services.sweep().sent == 0
    clock.shift(timedelta(seconds=2))
    assert services.sweep().sent == 1
    assert services.sweep().sent == 0
    assert len(sent("your_turn")) == 1
