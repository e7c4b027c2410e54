"""The daily digest: at 08:00 in the player's time zone, once per local day, only when a game
is waiting for them or something was held for it, listing exactly the games waiting."""

import datetime
from datetime import timedelta

import pytest
import time_machine

from games import services as game_services
from notifications import outbox, services
from notifications.email import digests
from notifications.models import Notification
from tests.support.concurrency import run_at_once
from tests.support.mail import sent
from tests.support.play import waiting_for
from tests.support.urls import emailed_game_url

UTC = datetime.UTC
# Paris is at UTC+1 in January: 08:00 there is 07:00 UTC.
DAY = datetime.datetime(2027, 1, 14, 5, 0, tzinfo=UTC)


def at(hour: int, minute: int = 0, *, day: int = 0) -> datetime.datetime:
    return DAY.replace(hour=hour, minute=minute) + timedelta(days=day)


def digests_to(user) -> list:
    return [m for m in sent("digest") if m.to == [user.email]]


def text_and_html(message) -> tuple[str, str]:
    return message.body, message.alternatives[0].content


@pytest.fixture
def in_paris(alice):
    alice.profile.time_zone = "Europe/Paris"
    alice.profile.save()
    return alice


@pytest.mark.django_db
def test_the_digest_goes_at_eight_local_time_once_a_day_with_exactly_the_waiting_games(
    in_paris, alice, bob, carol, start_game
):
    with time_machine.travel(DAY, tick=False) as clock:
        mine = waiting_for(start_game(alice, bob), alice)
        theirs = waiting_for(start_game(alice, carol), carol)
        invited = game_services.game_create(
            creator=bob,
            num_players=2,
            variant="colored",
            days_per_move=3,
            seats=[game_services.SeatSpec(kind="invite", username="alice")],
        )

        clock.move_to(at(6, 59))
        services.sweep()
        assert digests_to(alice) == []

        clock.move_to(at(7, 0))
        result = services.sweep()
        assert (result.digests_built, result.digests_sent) == (1, 1)
        [digest] = sent("digest")  # bob and carol, in UTC, are at 07:00: not yet
        assert digest.to == [alice.email]
        assert digest.subject == "[Azul] 1 game waiting for you"
        for part in text_and_html(digest):
            assert emailed_game_url(mine) in part
            assert emailed_game_url(theirs) not in part
            assert emailed_game_url(invited) not in part
            assert "Against bob" in part

        for later in (at(7, 1), at(7, 30), at(12, 0), at(23, 59)):
            clock.move_to(later)
            services.sweep()
        clock.move_to(at(6, 59, day=1))
        services.sweep()
        assert len(digests_to(alice)) == 1

        clock.move_to(at(7, 0, day=1))
        services.sweep()
        assert len(digests_to(alice)) == 2

    assert list(
        Notification.objects.filter(recipient=alice, kind="digest")
        .order_by("digest_date")
        .values_list("digest_date", "status")
    ) == [(datetime.date(2027, 1, 14), "sent"), (datetime.date(2027, 1, 15), "sent")]


@pytest.mark.django_db
def test_each_player_gets_the_digest_at_eight_in_their_own_time_zone(
    in_paris, alice, bob, carol, start_game
):
    with time_machine.travel(DAY, tick=False) as clock:
        theirs = waiting_for(start_game(alice, carol), carol)

        clock.move_to(at(7, 0))
        services.sweep()
        assert digests_to(carol) == []  # 07:00 in UTC
        assert digests_to(alice) == []  # 08:00 in Paris, but nothing waits for alice

        clock.move_to(at(8, 0))
        services.sweep()

    [digest] = digests_to(carol)
    assert emailed_game_url(theirs) in digest.body
    assert digests_to(bob) == []  # nothing waiting, nothing held: no email


@pytest.mark.django_db
def test_the_digest_carries_what_was_held_for_it(in_paris, alice, bob, start_game):
    alice.profile.email_game_over = "digest"
    alice.profile.save()
    with time_machine.travel(DAY, tick=False) as clock:
        game = waiting_for(start_game(alice, bob), bob)  # nothing waits for alice
        services.notify(recipient_id=alice.pk, kind="game_over", game_id=game.id, ply=game.ply)
        held = Notification.objects.get(recipient=alice, kind="game_over")
        outbox.notification_send(notification_id=held.pk)  # its task: held for the digest
        held.refresh_from_db()
        assert held.status == "held"
        assert sent() == []

        clock.move_to(at(7, 0))
        services.sweep()

        [digest] = digests_to(alice)
        assert digest.subject == "[Azul] Your daily digest"
        for part in text_and_html(digest):
            assert "Game over against bob" in part
            assert emailed_game_url(game) in part
        held.refresh_from_db()
        assert held.status == "sent"
        assert held.digest.kind == "digest"

        # Nothing left to say the next day: no digest.
        clock.move_to(at(7, 0, day=1))
        services.sweep()
        assert len(digests_to(alice)) == 1


@pytest.mark.django_db
def test_no_digest_for_a_player_who_turned_it_off(in_paris, alice, bob, start_game):
    alice.profile.email_digest = False
    alice.profile.save()
    with time_machine.travel(DAY, tick=False) as clock:
        waiting_for(start_game(alice, bob), alice)
        clock.move_to(at(7, 0))
        services.sweep()

    assert digests_to(alice) == []


@pytest.mark.django_db(transaction=True)
def test_five_sweeps_at_eight_build_and_send_one_digest(in_paris, alice, bob, start_game):
    with time_machine.travel(DAY, tick=False) as clock:
        waiting_for(start_game(alice, bob), alice)
        clock.move_to(at(7, 0))

        results = run_at_once(5, services.sweep)

    assert sum(r.digests_built for r in results) == 1
    assert sum(r.digests_sent for r in results) == 1
    assert len(digests_to(alice)) == 1
    assert Notification.objects.filter(kind="digest").count() == 1


def test_the_digest_hour_is_local():
    moment = datetime.datetime(2027, 7, 1, 6, 30, tzinfo=UTC)  # summer: Paris is UTC+2

    days = digests.digest_days(moment)

    zones = {zone for names in days.values() for zone in names}
    assert "Europe/Paris" in zones
    assert "Europe/London" not in zones  # 07:30 there
    assert "Asia/Tokyo" not in zones  # 15:30 there
    assert "America/Los_Angeles" not in zones  # 23:30 the day before
    assert set(days) == {datetime.date(2027, 7, 1)}


@pytest.mark.django_db
def test_a_kind_turned_off_after_it_was_held_is_left_out_of_the_digest(
    in_paris, alice, bob, start_game
):
    alice.profile.email_game_over = alice.profile.email_timeout = "digest"
    alice.profile.save()
    with time_machine.travel(DAY, tick=False) as clock:
        game = waiting_for(start_game(alice, bob), bob)
        services.notify(recipient_id=alice.pk, kind="game_over", game_id=game.id, ply=game.ply)
        services.notify(recipient_id=alice.pk, kind="timeout", game_id=game.id, ply=game.ply)
        alice.profile.email_timeout = "never"
        alice.profile.save()

        clock.move_to(at(7, 0))
        services.sweep()

    [digest] = digests_to(alice)
    assert "Game over against bob" in digest.body
    assert "Time ran out" not in digest.body
    assert dict(Notification.objects.filter(recipient=alice).values_list("kind", "status")) == {
        "game_over": "sent",
        "timeout": "skipped",
        "digest": "sent",
    }
