"""What every email holds: text and HTML, the game's absolute URL, the opponents' names, and a
one-click unsubscribe link in RFC 8058 headers, down to a real SMTP conversation."""

import re
from email import message_from_bytes, policy

import pytest
from django.test import Client

from games.models import Game, Seat
from notifications import services, tokens
from notifications.models import Notification
from tests.support import factories
from tests.support.mail import only_these, send_now
from tests.support.play import waiting_for
from tests.support.urls import SITE_URL, emailed_game_url

pytestmark = pytest.mark.django_db

LIST_UNSUBSCRIBE = re.compile(r"^<(https://azul\.example/notifications/unsubscribe/[^/>]+/)>$")


@pytest.fixture
def named(alice, bob, carol):
    bob.profile.display_name = "Bob the Builder"
    bob.profile.save()
    return alice, bob, carol


@pytest.mark.parametrize(
    "kind", ["your_turn", "invitation", "game_started", "game_over", "reminder", "timeout"]
)
def test_every_email_has_both_parts_the_game_link_the_opponents_and_unsubscribe_headers(
    named, start_game, kind, django_capture_on_commit_callbacks
):
    alice, bob, carol = named
    # Carol to move: a "your turn" or a reminder goes only while it is true; an invitation, only
    # while it waits for her answer.
    if kind == "invitation":
        game = only_these(lambda: factories.invite_game(alice, bob, carol))
    else:
        game = waiting_for(start_game(alice, bob, carol), carol)

    message = send_now(carol, kind, game, django_capture_on_commit_callbacks)

    assert message.to == ["carol@example.com"]
    assert message.subject.startswith("[Azul] ")
    assert [mime for _, mime in message.alternatives] == ["text/html"]
    text, html = message.body, message.alternatives[0].content
    for part in (text, html):
        assert emailed_game_url(game) in part
        assert "Bob the Builder" in part  # the display name
        assert "alice" in part  # no display name: the username
        # Her opponents are named, and she is not one of them (but the scores show her).
        for herself in ("Hello carol", "carol@", "carol (you)"):
            part = part.replace(herself, "")
        assert "carol" not in part
    assert "Hello carol" in text
    assert "<html" in html and "<html" not in text
    if kind != "invitation":
        assert "against alice and Bob the Builder (@bob)" in text

    unsubscribe = LIST_UNSUBSCRIBE.match(message.extra_headers["List-Unsubscribe"]).group(1)
    assert message.extra_headers["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    assert unsubscribe in text and unsubscribe in html
    token = unsubscribe.rstrip("/").rsplit("/", 1)[1]
    assert tokens.unsubscribe_token_read(token) == (carol.pk, kind)


def test_the_game_over_email_has_the_final_scores_and_places(
    named, start_game, django_capture_on_commit_callbacks
):
    alice, bob, carol = named
    game = start_game(alice, bob, carol)
    results = {alice.pk: (61, 2), bob.pk: (74, 1), carol.pk: (33, 3)}
    for seat in Seat.objects.filter(game=game):
        seat.final_score, seat.place = results[seat.user_id]
        seat.save()
    Game.objects.filter(pk=game.pk).update(status="finished")

    message = send_now(alice, "game_over", game, django_capture_on_commit_callbacks)

    assert message.subject == (
        "[Azul] Game over against Bob the Builder (@bob) and carol: you finished 2nd"
    )
    text = message.body
    assert "Winner: Bob the Builder (@bob)" in text
    lines = [line.strip() for line in text.splitlines()]
    assert "1st  Bob the Builder (@bob): 74 points" in lines
    assert "2nd  alice (you): 61 points" in lines
    assert "3rd  carol: 33 points" in lines
    assert lines.index("1st  Bob the Builder (@bob): 74 points") < lines.index(
        "3rd  carol: 33 points"
    )
    html = message.alternatives[0].content
    assert "74" in html and "61" in html and "33" in html


def test_the_timeout_email_says_which_move_the_server_made(
    named, start_game, django_capture_on_commit_callbacks
):
    alice, bob, carol = named
    game = start_game(alice, bob)

    message = send_now(alice, "timeout", game, django_capture_on_commit_callbacks, move="F3 blue 2")

    assert "F3 blue 2" in message.body
    assert "F3 blue 2" in message.alternatives[0].content


def test_names_are_escaped_in_html_and_not_in_text(
    alice, bob, start_game, django_capture_on_commit_callbacks
):
    bob.profile.display_name = "Bob <b>& co"
    bob.profile.save()
    game = start_game(alice, bob)

    message = send_now(alice, "game_started", game, django_capture_on_commit_callbacks)

    assert "Bob <b>& co" in message.body
    assert "Bob <b>& co" in message.subject
    assert "Bob &lt;b&gt;&amp; co" in message.alternatives[0].content


def test_an_email_through_a_real_smtp_server_unsubscribes_in_one_click(
    named, start_game, smtp_server, django_capture_on_commit_callbacks
):
    alice, bob, carol = named
    game = only_these(lambda: factories.invite_game(bob, alice))

    with django_capture_on_commit_callbacks(execute=True):
        services.notify(recipient_id=alice.pk, kind="invitation", game_id=game.id, ply=0)

    assert Notification.objects.get(kind="invitation").status == "sent"
    [received] = smtp_server.messages
    assert received["rcpt_tos"] == ["alice@example.com"]
    message = message_from_bytes(received["content"], policy=policy.default)
    assert message["To"] == "alice@example.com"
    assert message["Subject"] == "[Azul] Bob the Builder (@bob) invites you to a game"
    assert message["Auto-Submitted"] == "auto-generated"
    assert message["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
    # Folded over two lines (RFC 5322) as it is long: the value is the same once unfolded.
    unsubscribe = LIST_UNSUBSCRIBE.match(str(message["List-Unsubscribe"]).strip()).group(1)
    assert message.get_content_type() == "multipart/alternative"
    text = message.get_body(preferencelist=("plain",)).get_content()
    html = message.get_body(preferencelist=("html",)).get_content()
    for part in (text, html):
        assert emailed_game_url(game) in part
        assert "Bob the Builder" in part
        assert unsubscribe in part
    assert f'href="{emailed_game_url(game)}"' in html

    # The mail client's one-click POST: no session, no CSRF token.
    response = Client(enforce_csrf_checks=True).post(
        unsubscribe.removeprefix(SITE_URL),
        "List-Unsubscribe=One-Click",
        content_type="application/x-www-form-urlencoded",
    )
    assert response.status_code == 200
    alice.profile.refresh_from_db()
    assert alice.profile.email_invitation == "never"


def test_computers_of_one_level_are_told_apart_in_emails(alice, django_capture_on_commit_callbacks):
    """As on the board: "Computer (random) 1" and "Computer (random) 2", not the same name twice."""
    game = factories.against_computer(alice, computers=2, level="random")
    game = Game.objects.get(pk=game.pk)

    message = send_now(alice, "game_started", game, django_capture_on_commit_callbacks)

    assert "Computer (random) 1" in message.body
    assert "Computer (random) 2" in message.body
