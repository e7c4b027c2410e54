"""A name that ends with a full stop ("Alice L.") ending a sentence gets one stop, not two, on
pages, in messages and in emails."""

import pytest
from django.core import mail
from django.urls import reverse

from core.pages.text import end_sentence, tidy_full_stops
from games.models import Game, Seat
from notifications import services as notification_services
from notifications.models import Notification
from tests.support.factories import PASSWORD

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("text", "tidy"),
    [
        ("Welcome back, Alice L..", "Welcome back, Alice L."),
        ("Winner: <strong>Alice L.</strong>.", "Winner: <strong>Alice L.</strong>"),
        ("Winner: Bob.", "Winner: Bob."),
        ("Wait...", "Wait..."),
        ("See ../rules", "See ../rules"),
    ],
)
def test_tidy_full_stops(text, tidy):
    assert tidy_full_stops(text) == tidy


def test_end_sentence():
    assert end_sentence("Alice L.") == "Alice L."
    assert end_sentence("Bob") == "Bob."
    assert end_sentence("Really?") == "Really?"


@pytest.fixture
def alice_l(alice):
    alice.profile.display_name = "Alice L."
    alice.profile.save()
    return alice


def test_the_home_page_greets_an_abbreviated_name_once(alice_l, bob, start_game, client_for):
    start_game(alice_l, bob)  # a player back, not a new one
    html = client_for(alice_l).get(reverse("home")).content.decode()

    assert "Welcome back, Alice L.<" in html
    assert "L.." not in html


def test_a_message_ending_with_a_name_has_one_full_stop(make_user, client):
    make_user("al.")

    response = client.post(
        reverse("account_login"), {"login": "al.", "password": PASSWORD}, follow=True
    )

    html = response.content.decode()
    assert "Successfully signed in as al." in html
    assert "al.." not in html


def test_emails_end_a_sentence_with_a_name_once(
    alice_l, bob, start_game, django_capture_on_commit_callbacks
):
    game = start_game(alice_l, bob)
    for seat in Seat.objects.filter(game=game):
        seat.final_score, seat.place = (50, 1) if seat.user_id == alice_l.pk else (40, 2)
        seat.save()
    Game.objects.filter(pk=game.pk).update(status="finished")
    Notification.objects.all().delete()
    mail.outbox.clear()

    with django_capture_on_commit_callbacks(execute=True):
        notification_services.notify(
            recipient_id=bob.pk, kind="game_over", game_id=game.id, ply=game.ply, context={}
        )
    [message] = [m for m in mail.outbox if m.to == ["bob@example.com"]]

    html = message.alternatives[0].content
    # Emails name a player with their username beside the display name (#28, fair play).
    assert "against Alice L. (@alice) is over." in message.body
    assert "Winner: Alice L. (@alice)." in message.body
    assert "L.." not in message.body
    assert "Alice L. (@alice)</strong>" in html
