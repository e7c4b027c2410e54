"""Emails around a game (issue #29): a game cancelled before it started is told to those who
joined it and to the invitees whose invitation reached them (an invitation still in its grace
period is simply dropped, and so is its cancellation); the game-over email says the result, the
rating change and links to a rematch and to the analysis; a rematch's invitation says it is
one. In English and Korean."""

from __future__ import annotations

import datetime
from datetime import timedelta

import pytest
import time_machine

from accounts.models import Profile
from games import services as games_services
from games.models import Game, Seat
from notifications import services
from notifications.models import Notification
from tests.support import factories
from tests.support.mail import forget_notifications, send_now, sent
from tests.support.urls import SITE_URL, emailed_game_url

pytestmark = pytest.mark.django_db

START = datetime.datetime(2027, 6, 1, 9, 0, tzinfo=datetime.UTC)


# -- a game cancelled before it started -----------------------------------------------------------


@pytest.fixture
def three_waiting(alice, bob, carol, committed):
    """alice's game: bob accepted, carol invited (her invitation email went)."""
    game = committed(lambda: factories.invite_game(alice, bob, carol))
    committed(games_services.invitation_respond, game_id=game.id, user=bob, accept=True)
    assert sent("invitation", to=carol)
    return game


def test_cancelling_tells_the_invitee_and_the_player_who_joined(
    three_waiting, alice, bob, carol, committed
):
    committed(games_services.game_cancel, game_id=three_waiting.id, user=alice)

    told = {m.to[0] for m in sent("game_cancelled")}
    assert told == {"bob@example.com", "carol@example.com"}
    [message] = sent("game_cancelled", to=carol)
    assert message.subject == "[Azul] alice cancelled a game before it started"
    assert "alice cancelled their game of Azul (colored wall, 3 days per move)" in message.body
    assert f"{SITE_URL}/lobby/" in message.body
    assert "alice cancelled" in message.alternatives[0].content.replace("<strong>", "").replace(
        "</strong>", ""
    )


def test_the_cancellation_email_in_korean_puts_no_particle_after_a_name(
    three_waiting, alice, carol, committed
):
    Profile.objects.filter(user=carol).update(language="ko")

    committed(games_services.game_cancel, game_id=three_waiting.id, user=alice)

    [message] = sent("game_cancelled", to=carol)
    assert message.subject == "[Azul] alice 님이 시작 전의 게임을 취소했습니다"
    assert "alice 님이 시작 전의 Azul 게임(" in message.body


def test_an_invitation_in_its_grace_period_is_dropped_with_no_cancellation_email(
    alice, bob, committed, settings
):
    settings.NOTIFY_INVITATION_GRACE_SECONDS = 120
    with time_machine.travel(START, tick=False) as clock:
        game = committed(lambda: factories.invite_game(alice, bob))
        clock.shift(timedelta(seconds=10))
        committed(games_services.game_cancel, game_id=game.id, user=alice)
        clock.shift(timedelta(minutes=5))
        services.sweep()

    assert sent() == []
    assert not Notification.objects.filter(kind="game_cancelled").exists()
    assert Notification.objects.get(recipient=bob, kind="invitation").status == "skipped"


def test_an_invitation_held_for_the_digest_is_dropped_with_no_cancellation(alice, bob, committed):
    Profile.objects.filter(user=bob).update(email_invitation="digest")
    game = committed(lambda: factories.invite_game(alice, bob))
    assert Notification.objects.get(recipient=bob, kind="invitation").status == "held"

    committed(games_services.game_cancel, game_id=game.id, user=alice)

    assert Notification.objects.get(recipient=bob, kind="invitation").status == "skipped"
    assert not Notification.objects.filter(kind="game_cancelled").exists()


def test_a_player_who_turned_invitation_emails_off_gets_no_cancellation_email(
    three_waiting, alice, carol, committed
):
    Profile.objects.filter(user=carol).update(email_invitation="never")

    committed(games_services.game_cancel, game_id=three_waiting.id, user=alice)

    assert sent("game_cancelled", to=carol) == []
    row = Notification.objects.get(recipient=carol, kind="game_cancelled")
    assert row.status == "skipped"


# -- game over ------------------------------------------------------------------------------------


@pytest.fixture
def rated_finish(alice, bob, start_game):
    game = start_game(alice, bob)
    results = {alice.pk: (61, 1, 1500, 1512), bob.pk: (40, 2, 1490, 1478)}
    for seat in Seat.objects.filter(game=game):
        seat.final_score, seat.place, seat.rating_before, seat.rating_after = results[seat.user_id]
        seat.save()
    Game.objects.filter(pk=game.pk).update(status="finished")
    forget_notifications()
    return game


def test_the_game_over_email_says_the_result_the_rating_and_links_to_rematch_and_analysis(
    rated_finish, alice, django_capture_on_commit_callbacks
):
    message = send_now(alice, "game_over", rated_finish, django_capture_on_commit_callbacks)

    text = message.body
    lines = [line.strip() for line in text.splitlines()]
    assert "1st  alice (you): 61 points" in lines
    assert "2nd  bob: 40 points" in lines
    assert "Your rating: 1500 → 1512 (+12)." in text
    assert f"Ask for a rematch: {emailed_game_url(rated_finish)}#game-actions" in text
    assert f"See the analysis of your moves: {emailed_game_url(rated_finish)}#analysis" in text
    html = message.alternatives[0].content
    assert "1500 → 1512" in html and "#game-actions" in html and "#analysis" in html


def test_the_game_over_email_in_korean(rated_finish, bob, django_capture_on_commit_callbacks):
    Profile.objects.filter(user=bob).update(language="ko")

    message = send_now(bob, "game_over", rated_finish, django_capture_on_commit_callbacks)

    assert "내 레이팅: 1490 → 1478 (-12)" in message.body
    assert "재대결 신청하기: " in message.body


def test_an_unrated_game_over_email_says_nothing_of_ratings(
    alice, bob, start_game, django_capture_on_commit_callbacks
):
    game = start_game(alice, bob)
    Seat.objects.filter(game=game, user=alice).update(final_score=20, place=1)
    Seat.objects.filter(game=game, user=bob).update(final_score=10, place=2)
    Game.objects.filter(pk=game.pk).update(status="finished")
    forget_notifications()

    message = send_now(alice, "game_over", game, django_capture_on_commit_callbacks)

    assert "rating" not in message.body.lower()


# -- a rematch's invitation -----------------------------------------------------------------------


def test_a_rematch_invitation_says_it_is_a_rematch_of_which_game(
    rated_finish, alice, bob, committed
):
    rematch, created = committed(games_services.game_rematch, game_id=rated_finish.id, user=bob)
    assert created

    [message] = sent("invitation", to=alice)
    assert message.subject == "[Azul] bob asks for a rematch"
    assert (
        f"bob asks for a rematch of your game together: {emailed_game_url(rated_finish)}"
        in message.body
    )
    assert emailed_game_url(rematch) in message.body


def test_a_plain_invitation_says_nothing_of_a_rematch(alice, bob, committed):
    committed(lambda: factories.invite_game(alice, bob))

    [message] = sent("invitation", to=bob)
    assert message.subject == "[Azul] alice invites you to a game"
    assert "rematch" not in message.body
