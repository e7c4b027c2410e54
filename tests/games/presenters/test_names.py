"""A player is named the same way everywhere other players see them: their display name, else
their username (`accounts.names.player_name`, `{{ user|player_name }}` in templates). Usernames
stay where they identify an account: URLs, the invitation field, the API's `username`."""

import re
from pathlib import Path

import pytest
from django.contrib.auth.models import AnonymousUser
from django.template import Context, Template
from django.test import Client
from django.urls import reverse

from accounts.models import Profile
from accounts.names import player_name
from games import services
from games.presenters.names import seat_name
from tests.support.play import finish, play_forward

pytestmark = pytest.mark.django_db

TEMPLATES = Path(__file__).resolve().parents[3] / "templates"


@pytest.fixture
def alice_named(alice):
    Profile.objects.filter(user=alice).update(display_name="Alice L")
    alice.refresh_from_db()
    return alice


def test_player_name_is_the_display_name_else_the_username(alice_named, bob):
    assert player_name(alice_named) == "Alice L"
    assert player_name(bob) == "bob"
    assert player_name(None) == ""
    rendered = Template("{% load player_names %}[{{ a|player_name }}|{{ b|player_name }}]")
    context = {"a": alice_named, "b": AnonymousUser()}
    assert rendered.render(Context(context)) == "[Alice L|]"


def test_the_navigation_and_home_page_greet_the_player_by_their_name(
    alice_named, bob, start_game, client_for
):
    start_game(alice_named, bob)  # a player back, not a new one
    page = client_for(alice_named).get("/").content.decode()

    assert f'<a href="{reverse("accounts:player", args=["alice"])}">Alice L</a>' in page
    assert "Welcome back, Alice L." in page


def test_lists_of_games_name_the_creator_by_their_name(alice_named, bob, client_for):
    invited = services.game_create(
        creator=alice_named,
        num_players=3,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="invite", username="bob"), services.SeatSpec("open")],
    )
    services.game_create(
        creator=alice_named,
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="open")],
    )

    invitations = client_for(bob).get(reverse("games:my_games")).content.decode()
    lobby = Client().get(reverse("games:lobby")).content.decode()
    waiting = client_for(bob).get(reverse("games:detail", args=[invited.id])).content.decode()

    assert "<strong>Alice L</strong> invites you" in invitations
    assert "2-player game by Alice L" in lobby
    assert ">Alice L</a>" in waiting
    for page in (invitations, lobby):
        assert ">alice<" not in page and " alice " not in page


def test_the_board_history_and_emails_use_the_same_name(alice_named, bob, start_game, client_for):
    game = play_forward(start_game(alice_named, bob), moves=3)
    board = client_for(bob).get(reverse("games:detail", args=[game.id])).content.decode()
    assert "Board of Alice L" in board
    assert 'aria-label="Board of alice"' not in board

    seat = game.seats.get(user=alice_named)
    assert seat_name(seat) == "Alice L"  # as the emails name it

    finish(game)
    history = Client().get(reverse("games:history")).content.decode()
    assert ">Alice L</a>" in history


# Where a template may still print a username: as the account's identifier.
USERNAME_SHOWN_ON_PURPOSE = {
    "accounts/player_detail.html",  # the "Username" fact beside the display name
    "ratings/leaderboard.html",  # the username beside a different display name
    "notifications/unsubscribe_confirm.html",  # which account stops getting the emails
    "notifications/unsubscribed.html",
}
USERNAME_OUTPUT = re.compile(r"\{\{[^}]*\b(username|created_by)\s*(\|[^}]*)?\}\}")


def test_templates_print_names_not_usernames():
    """`{{ ….username }}` and `{{ g.created_by }}` only inside tags and attributes (URLs, form
    values), never as text shown to players, except where the username is the point."""
    offenders = []
    for path in sorted(TEMPLATES.rglob("*.html")) + sorted(TEMPLATES.rglob("*.txt")):
        name = path.relative_to(TEMPLATES).as_posix()
        if name in USERNAME_SHOWN_ON_PURPOSE:
            continue
        # Text between tags only: attribute values (href, value, data-*) are identifiers.
        text = re.sub(r"<[^>]*>", " ", path.read_text())
        offenders += [f"{name}: {m.group(0)}" for m in USERNAME_OUTPUT.finditer(text)]
    assert offenders == []
