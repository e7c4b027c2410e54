"""No harassment mailer (issue #28): an invitation email waits NOTIFY_INVITATION_GRACE_SECONDS and
is dropped if, when it is due, the game was cancelled or the invitation withdrawn; and a player
gets at most one invitation email a day from the same player, whatever the games (the others
still show on the site). Decided in the database when the email is due: it holds with the cache
down. Mallory is the hostile account; bob is the one she mails."""

import datetime
from datetime import timedelta

import pytest
import time_machine

from games import selectors
from games import services as games_services
from notifications import services
from notifications.models import Notification
from tests.support.factories import invite_game
from tests.support.mail import sent

pytestmark = pytest.mark.django_db

START = datetime.datetime(2027, 6, 1, 9, 0, tzinfo=datetime.UTC)
GRACE = timedelta(seconds=120)


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def grace(settings):
    settings.NOTIFY_INVITATION_GRACE_SECONDS = int(GRACE.total_seconds())


def invitations_to(user):
    return Notification.objects.filter(recipient=user, kind="invitation").order_by("pk")


def sweep_after(clock, wait):
    clock.shift(wait)
    return services.sweep()


def test_an_invitation_email_waits_for_its_grace_period_then_goes(
    mallory, bob, clock, grace, committed
):
    game = committed(lambda: invite_game(mallory, bob))
    [row] = invitations_to(bob)

    assert row.send_after == START + GRACE
    assert sent("invitation") == []
    assert sweep_after(clock, GRACE - timedelta(seconds=1)).sent == 0
    assert sweep_after(clock, timedelta(seconds=1)).sent == 1
    assert [m.to for m in sent("invitation")] == [["bob@example.com"]]
    assert game.status == "open"


def test_an_invitation_cancelled_in_its_grace_period_sends_nothing(
    mallory, bob, clock, grace, committed
):
    game = committed(lambda: invite_game(mallory, bob))
    clock.shift(timedelta(seconds=10))
    committed(games_services.game_cancel, game_id=game.id, user=mallory)

    sweep_after(clock, GRACE)

    [row] = invitations_to(bob)
    assert row.status == "skipped"
    assert row.last_error == "The game was cancelled or no longer waits for players."
    assert sent() == []


def test_a_seat_given_to_someone_else_in_the_grace_period_sends_the_first_nothing(
    mallory, bob, carol, clock, grace, committed
):
    game = committed(lambda: invite_game(mallory, bob))
    committed(
        games_services.seat_invite, game_id=game.id, user=mallory, position=1, username="carol"
    )

    sweep_after(clock, GRACE)

    [row] = invitations_to(bob)
    assert (row.status, row.last_error) == (
        "skipped",
        "The invitation was answered or withdrawn.",
    )
    assert [m.to for m in sent("invitation")] == [["carol@example.com"]]


def test_an_invitation_answered_in_the_grace_period_sends_nothing(
    mallory, bob, clock, grace, committed
):
    game = committed(lambda: invite_game(mallory, bob))
    committed(games_services.invitation_respond, game_id=game.id, user=bob, accept=False)

    sweep_after(clock, GRACE)

    assert invitations_to(bob).get().status == "skipped"
    assert sent("invitation") == []


def invite_and_cancel(creator, invited, committed):
    game = committed(lambda: invite_game(creator, invited))
    committed(games_services.game_cancel, game_id=game.id, user=creator)
    return game


def test_one_invitation_email_a_day_from_the_same_player(
    mallory, bob, carol, clock, committed, settings
):
    # No grace period here: each invitation is due at once, and the first one goes.
    settings.NOTIFY_INVITATION_GRACE_SECONDS = 0
    for _ in range(5):
        invite_and_cancel(mallory, bob, committed)
        clock.shift(timedelta(minutes=30))
    kept = committed(lambda: invite_game(mallory, bob))
    services.sweep()

    assert len(sent("invitation", to=bob)) == 1
    rows = list(invitations_to(bob))
    assert [r.status for r in rows] == ["sent"] + ["skipped"] * 5
    assert {r.last_error for r in rows[1:]} == {
        "An invitation email from the same player went less than a day ago."
    }
    # The invitation itself is there on the site for bob to answer.
    assert list(selectors.pending_invitations(user=bob)) == [kept]
    # Another player's invitation still goes.
    committed(lambda: invite_game(carol, bob))
    assert len(sent("invitation", to=bob)) == 2

    # A day after the one that went, mallory's next invitation goes.
    clock.move_to(START + timedelta(hours=24, seconds=1))
    committed(lambda: invite_game(mallory, bob))
    assert len(sent("invitation", to=bob)) == 3


def test_a_rematch_invitation_counts_for_the_player_who_asked(
    mallory, bob, clock, committed, settings, finished_game
):
    settings.NOTIFY_INVITATION_GRACE_SECONDS = 0
    committed(lambda: invite_game(mallory, bob))
    old = finished_game([(mallory, 50, 1), (bob, 40, 2)])

    rematch, created = committed(games_services.game_rematch, game_id=old.id, user=mallory)

    assert created and rematch.created_by == mallory
    assert len(sent("invitation", to=bob)) == 1
    assert invitations_to(bob).get(game=rematch).status == "skipped"


def test_one_a_day_holds_with_the_cache_down(mallory, bob, clock, committed, settings):
    settings.NOTIFY_INVITATION_GRACE_SECONDS = 0
    # A cache that keeps nothing: what holds the limit is in the database.
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    for _ in range(3):
        invite_and_cancel(mallory, bob, committed)
    services.sweep()

    assert len(sent("invitation", to=bob)) == 1
