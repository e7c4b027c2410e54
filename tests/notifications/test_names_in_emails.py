"""Fair play (#28): every email names a player with their username beside their display name
("Alice L. (@alice)"), in its subject and its body, so that a hostile account's display name
("Azul Support", or someone else's name saved before the rules) cannot pass for someone else."""

import pytest

from games import services as game_services
from games.models import Game
from notifications import outbox, services
from notifications.email import content as emails
from notifications.email import digests
from notifications.models import Notification
from tests.support.factories import invite_game
from tests.support.mail import sent

pytestmark = pytest.mark.django_db


@pytest.fixture
def eve(make_user):
    """A hostile second account, with a display name chosen to mislead (as the admin or a name
    saved before the rules could have left it)."""
    eve = make_user("eve")
    eve.profile.display_name = "Azul Support"
    eve.profile.save()
    return eve


def send_row(row: Notification):
    Notification.objects.filter(pk=row.pk).update(send_after=row.created_at)
    outbox.notification_send(notification_id=row.pk)
    [message] = [m for m in sent(row.kind) if m.to == [row.recipient.email]]
    return message


def both_parts(message) -> list[str]:
    return [message.subject, message.body, message.alternatives[0].content]


def test_an_invitation_names_the_sender_with_their_username(
    eve, bob, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        game = invite_game(eve, bob)
    row = Notification.objects.get(recipient=bob, kind="invitation", game=game)

    message = send_row(row)

    assert message.subject == "[Azul] Azul Support (@eve) invites you to a game"
    for part in both_parts(message):
        assert "Azul Support (@eve)" in part


def test_a_resignation_names_who_resigned_with_their_username(
    eve, bob, carol, start_game, django_capture_on_commit_callbacks
):
    game = start_game(bob, eve, carol)
    with django_capture_on_commit_callbacks(execute=True):
        game_services.game_resign(game_id=game.id, user=eve)
    row = Notification.objects.get(recipient=bob, kind="resigned", game=game)
    assert row.context["username"] == "eve"

    message = send_row(row)

    assert message.subject == "[Azul] Azul Support (@eve) resigned from your game"
    for part in both_parts(message):
        assert "Azul Support (@eve)" in part


def test_a_declined_invitation_names_who_declined_with_their_username(
    eve, bob, django_capture_on_commit_callbacks
):
    game = invite_game(bob, eve)
    with django_capture_on_commit_callbacks(execute=True):
        game_services.invitation_respond(game_id=game.id, user=eve, accept=False)
    row = Notification.objects.get(recipient=bob, kind="invitation_declined", game=game)

    message = send_row(row)

    assert message.subject == "[Azul] Azul Support (@eve) declined your invitation"
    for part in both_parts(message):
        assert "Azul Support (@eve)" in part


def test_a_row_written_before_the_username_was_kept_finds_it_by_the_seat(eve, bob):
    game = invite_game(bob, eve)
    game_services.invitation_respond(game_id=game.id, user=eve, accept=False)
    game = Game.objects.with_seats().get(pk=game.pk)
    seat = next(s for s in game.seat_list if s.declined_by_id == eve.pk)

    extra = emails._named_extra({"name": "Azul Support", "seat": seat.position + 1}, game)

    assert extra["name"] == "Azul Support (@eve)"


def test_the_opponents_and_standings_carry_usernames(eve, bob, start_game):
    game = start_game(bob, eve)
    services.notify(recipient_id=bob.pk, kind="game_over", game_id=game.id, ply=game.ply)
    row = Notification.objects.get(recipient=bob, kind="game_over", game=game)

    message = emails.build(row, to="bob@example.com").message

    assert "Azul Support (@eve)" in message.subject
    assert "Azul Support (@eve)" in message.body


def test_a_player_without_a_display_name_is_named_once(bob, carol, start_game):
    game = start_game(bob, carol)
    services.notify(recipient_id=bob.pk, kind="game_started", game_id=game.id, ply=game.ply)
    row = Notification.objects.get(recipient=bob, kind="game_started", game=game)

    message = emails.build(row, to="bob@example.com").message

    assert "carol" in message.body
    assert "(@carol)" not in message.body


def test_the_digest_names_opponents_with_their_usernames(eve, bob):
    summary = {
        "id": 1,
        "turn_deadline": None,
        "players": [
            {"display_name": "Azul Support", "username": "eve", "is_viewer": False},
            {"display_name": "bob", "username": "bob", "is_viewer": True},
            {"display_name": "Computer (greedy)", "username": None, "is_viewer": False},
        ],
    }

    assert digests._digest_game(summary)["opponents"] == [
        "Azul Support (@eve)",
        "Computer (greedy)",
    ]
