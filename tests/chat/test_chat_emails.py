"""Chat emails: off unless the player turns them on; then one email, after the "your turn" grace
period, for the messages written in it, none if the player opened the game meanwhile, and the
player's delivery choice (immediately, in the digest, never) and unsubscribe link apply."""

from __future__ import annotations

import datetime
from datetime import timedelta

import pytest
import time_machine

from chat import services as chat_services
from games import effects
from notifications import outbox, services
from notifications.models import Notification
from tests.support.mail import forget_notifications, sent

pytestmark = pytest.mark.django_db

UTC = datetime.UTC
# Paris is at UTC+1 in January: its 08:00 digest goes at 07:00 UTC.
START = datetime.datetime(2027, 1, 14, 5, 0, tzinfo=UTC)


@pytest.fixture(autouse=True)
def _settings(settings):
    settings.NOTIFY_GRACE_SECONDS = 120
    settings.NOTIFY_DIGEST_HOUR = 8
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


@pytest.fixture
def game(start_game, alice, bob, clock):
    game = start_game(alice, bob)
    forget_notifications()
    return game


def chat_emails_on(user, delivery: str = "immediate") -> None:
    user.profile.email_chat = delivery
    user.profile.save()


def write(user, game, text: str, callbacks) -> None:
    with callbacks(execute=True):
        chat_services.message_post(game_id=game.id, user=user, text=text)


def after_the_grace_period(clock) -> None:
    clock.shift(timedelta(seconds=121))
    clock.shift(outbox.SWEEP_LAG)
    services.sweep()


def test_off_by_default_no_email(game, alice, bob, clock, django_capture_on_commit_callbacks):
    assert alice.profile.email_chat == "never"
    write(bob, game, "good luck", django_capture_on_commit_callbacks)
    after_the_grace_period(clock)
    assert sent() == []
    assert not Notification.objects.filter(kind="chat_message").exists()


def test_three_quick_messages_make_one_email(
    game, alice, bob, clock, django_capture_on_commit_callbacks
):
    chat_emails_on(alice)
    for text in ("good luck", "<b>have fun</b>", "sorry, slow week"):
        write(bob, game, text, django_capture_on_commit_callbacks)
        clock.shift(timedelta(seconds=20))
    assert sent() == []  # in the grace period
    after_the_grace_period(clock)

    [email] = sent("chat_message")
    assert email.to == [alice.email]
    assert email.subject == "[Azul] New chat messages in your game against bob"
    html = email.alternatives[0].content
    for text in ("good luck", "<b>have fun</b>", "sorry, slow week"):
        assert text in email.body
    assert "&lt;b&gt;have fun&lt;/b&gt;" in html and "<b>have fun" not in html
    assert "List-Unsubscribe" in email.extra_headers
    # Bob, the author, hears nothing of his own messages.
    assert sent(to=bob) == []

    # A message after that email went starts a new one.
    write(bob, game, "well played", django_capture_on_commit_callbacks)
    after_the_grace_period(clock)
    assert len(sent("chat_message")) == 2
    assert "well played" in sent("chat_message")[1].body
    assert "good luck" not in sent("chat_message")[1].body


def test_no_email_once_the_player_opened_the_game(
    game, alice, bob, clock, django_capture_on_commit_callbacks
):
    chat_emails_on(alice)
    write(bob, game, "good luck", django_capture_on_commit_callbacks)
    clock.shift(timedelta(seconds=30))
    effects.game_viewed(user_id=alice.pk, game_id=game.id)
    after_the_grace_period(clock)
    assert sent() == []
    assert Notification.objects.get(kind="chat_message").status == "skipped"


def test_a_player_who_muted_or_blocked_gets_none(
    game, alice, bob, clock, django_capture_on_commit_callbacks
):
    chat_emails_on(alice)
    chat_services.mute_player(user=alice, muted_id=bob.pk)
    write(bob, game, "good luck", django_capture_on_commit_callbacks)
    after_the_grace_period(clock)
    assert sent() == []


def test_in_the_digest(game, alice, bob, clock, django_capture_on_commit_callbacks):
    alice.profile.time_zone = "Europe/Paris"
    chat_emails_on(alice, "digest")
    write(bob, game, "good luck", django_capture_on_commit_callbacks)
    write(bob, game, "have fun", django_capture_on_commit_callbacks)
    after_the_grace_period(clock)
    [held] = Notification.objects.filter(kind="chat_message")
    assert held.status == "held"
    assert sent() == []

    clock.move_to(START.replace(hour=7))
    services.sweep()
    [digest] = sent("digest", to=alice)
    assert "New chat messages in your game against bob" in digest.body
    held.refresh_from_db()
    assert held.status == "sent"


def test_the_one_click_link_turns_chat_emails_off(
    game, alice, bob, clock, client, django_capture_on_commit_callbacks
):
    chat_emails_on(alice)
    write(bob, game, "good luck", django_capture_on_commit_callbacks)
    after_the_grace_period(clock)
    [email] = sent("chat_message")
    link = email.extra_headers["List-Unsubscribe"].strip("<>")
    write(bob, game, "are you there?", django_capture_on_commit_callbacks)

    response = client.post(
        link, "List-Unsubscribe=One-Click", content_type="application/x-www-form-urlencoded"
    )

    assert response.status_code == 200
    alice.profile.refresh_from_db()
    assert alice.profile.email_chat == "never"
    after_the_grace_period(clock)
    assert len(sent()) == 1  # the second message's email was dropped


def test_in_korean(game, alice, bob, clock, django_capture_on_commit_callbacks):
    alice.profile.language = "ko"
    chat_emails_on(alice)
    write(bob, game, "good luck", django_capture_on_commit_callbacks)
    after_the_grace_period(clock)
    [email] = sent("chat_message")
    assert "새 채팅 메시지" in email.subject
    assert "게임 채팅에 새 메시지가 있습니다" in email.body
