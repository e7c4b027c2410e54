"""Every email names the site by the SITE_NAME setting, never by the host and port the request
came to ("Hello from 127.0.0.1:8000!"): allauth's (sign-up, password, "already have an account")
and the game notifications alike."""

import re

import pytest
from django.core import mail as django_mail
from django.urls import reverse

from games.models import Game, Seat
from notifications import services as notification_services
from notifications.models import Notification
from tests.support.factories import PASSWORD

pytestmark = pytest.mark.django_db

SITE_NAME = "Tiles Club"
HOST = "testserver"


@pytest.fixture(autouse=True)
def _site_name(settings):
    settings.SITE_NAME = SITE_NAME
    settings.SITE_URL = "https://tiles.example"
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def without_links(text: str) -> str:
    """The text as read: links carry the host, as they must, and are left out."""
    return re.sub(r"https?://\S+", "", text)


def assert_names_the_site(mail) -> None:
    assert mail.subject.startswith(f"[{SITE_NAME}] "), mail.subject
    body = without_links(mail.body)
    assert HOST not in body and HOST not in mail.subject
    assert "127.0.0.1" not in body and ":8000" not in body


def sign_up(client, username="dora", email="dora@example.com"):
    return client.post(
        reverse("account_signup"),
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )


def test_the_sign_up_email_names_the_site(client, mailoutbox):
    sign_up(client)

    [mail] = mailoutbox
    assert_names_the_site(mail)
    assert mail.body.startswith(f"Hello from {SITE_NAME}!")
    assert f"register an account on {SITE_NAME}." in mail.body
    assert f"Thank you for using {SITE_NAME}!\nhttps://tiles.example" in mail.body


def test_the_account_already_exists_email_names_the_site(client, alice, mailoutbox):
    sign_up(client, username="mallory", email="alice@example.com")

    [mail] = mailoutbox
    assert_names_the_site(mail)
    assert f"Hello from {SITE_NAME}!" in mail.body


def test_the_password_reset_email_names_the_site(client, alice, mailoutbox):
    client.post(reverse("account_reset_password"), {"email": "alice@example.com"})

    [mail] = mailoutbox
    assert_names_the_site(mail)
    assert f"Hello from {SITE_NAME}!" in mail.body


def test_a_game_email_names_the_site(alice, bob, start_game, django_capture_on_commit_callbacks):
    game = start_game(alice, bob)
    for seat in Seat.objects.filter(game=game):
        seat.final_score, seat.place = (50, 1) if seat.user_id == alice.pk else (40, 2)
        seat.save()
    Game.objects.filter(pk=game.pk).update(status="finished")
    Notification.objects.all().delete()
    django_mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        notification_services.notify(
            recipient_id=bob.pk, kind="game_over", game_id=game.id, ply=game.ply, context={}
        )
    [message] = [m for m in django_mail.outbox if m.to == ["bob@example.com"]]

    assert_names_the_site(message)
    assert SITE_NAME in message.body
    assert SITE_NAME in message.alternatives[0].content
