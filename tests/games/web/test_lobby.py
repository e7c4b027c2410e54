"""The lobby is public: a visitor sees the open games, "Sign in to join" brings them back to the
game in the lobby after signing in, and Join stays a POST with its CSRF token. The creator sees
their own waiting games there, marked, with no Join button."""

import re
from urllib.parse import parse_qs, urlsplit

import pytest
from django.test import Client
from django.urls import reverse

from games import services
from games.models import Game, Seat
from tests.support.factories import PASSWORD

pytestmark = pytest.mark.django_db

LOBBY = reverse("games:lobby")
CSRF = re.compile(r'name="csrfmiddlewaretoken" value="([^"]+)"')


def open_game(creator, num_players=2):
    return services.game_create(
        creator=creator,
        num_players=num_players,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="open")] * (num_players - 1),
    )


def game_item(page: str, game: Game) -> str:
    """The lobby's list item of `game`."""
    match = re.search(rf'<li id="game-{game.id}"[^>]*>(.*?)</li>', page, re.S)
    assert match, f"game {game.id} is not in the lobby"
    return match.group(0)


def test_a_visitor_sees_the_open_games_and_is_asked_to_sign_in_to_join(alice):
    alice.profile.display_name = "Alice L"
    alice.profile.save()
    game = open_game(alice)

    response = Client().get(LOBBY)

    assert response.status_code == 200
    item = game_item(response.content.decode(), game)
    assert "2-player game by Alice L" in item
    assert reverse("games:join", args=[game.id]) not in item  # no form that would bounce
    link = re.search(r'<a class="button" href="([^"]+)">Sign in to join</a>', item)
    assert link
    url = urlsplit(link.group(1).replace("&amp;", "&"))
    assert url.path == reverse("account_login")
    assert parse_qs(url.query)["next"] == [f"{LOBBY}?join={game.id}"]


def test_signing_in_brings_the_visitor_back_to_join_the_game(alice, bob):
    game = open_game(alice)
    client = Client(enforce_csrf_checks=True)
    login = client.get(LOBBY)
    item = game_item(login.content.decode(), game)
    login_path = reverse("account_login")
    sign_in = re.search(rf'href="({login_path}[^"]+)"', item).group(1).replace("&amp;", "&")
    next_url = parse_qs(urlsplit(sign_in).query)["next"][0]
    login_page = client.get(sign_in).content.decode()

    response = client.post(
        sign_in,
        {
            "login": "bob",
            "password": PASSWORD,
            "next": next_url,
            "csrfmiddlewaretoken": CSRF.search(login_page).group(1),
        },
    )

    assert response.status_code == 302
    assert response.url == f"{LOBBY}?join={game.id}"
    page = client.get(response.url).content.decode()
    assert "Press <strong>Join</strong>" in page
    item = game_item(page, game)
    assert 'class="lobby-game picked"' in item
    join = reverse("games:join", args=[game.id])
    assert f'action="{join}"' in item
    # The join is the lobby's own form: a POST with its CSRF token, refused without it.
    assert client.post(join).status_code == 403
    joined = client.post(join, {"csrfmiddlewaretoken": CSRF.search(item).group(1)})
    assert joined.url == reverse("games:detail", args=[game.id])
    game.refresh_from_db()
    assert game.status == Game.Status.ACTIVE
    assert game.seats.filter(user=bob).exists()


def test_the_lobby_says_when_the_game_picked_is_gone(alice, bob, carol, client_for):
    game = open_game(alice)
    client_for(carol).post(reverse("games:join", args=[game.id]))

    page = client_for(bob).get(f"{LOBBY}?join={game.id}").content.decode()

    assert "That game is not waiting for players any more" in page
    assert Client().get(f"{LOBBY}?join=not-a-game").status_code == 200


def test_the_creator_sees_their_own_waiting_games_marked_and_cannot_join_them(
    alice, bob, client_for
):
    mine = open_game(alice, num_players=3)
    theirs = open_game(bob)
    invited = services.game_create(
        creator=bob,
        num_players=3,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="invite", username="alice"), services.SeatSpec("open")],
    )

    page = client_for(alice).get(LOBBY).content.decode()

    own = game_item(page, mine)
    assert "your game" in own
    assert 'class="lobby-game mine"' in own
    assert reverse("games:join", args=[mine.id]) not in own
    assert "Waiting for players" in own
    other = game_item(page, theirs)
    assert "your game" not in other
    assert reverse("games:join", args=[theirs.id]) in other
    # A game the user is invited to is answered from their invitations, not joined here.
    assert f'id="game-{invited.id}"' not in page
    # Joining one's own game is refused all the same.
    response = client_for(alice).post(reverse("games:join", args=[mine.id]), follow=True)
    assert 'class="message error"' in response.content.decode()
    assert Seat.objects.filter(game=mine, user=alice).count() == 1


def test_the_api_lobby_list_keeps_leaving_out_the_callers_games(alice, bob):
    """`open_games_for_lobby` without `include_own` (the API's list) is as it was."""
    from games.presenters import lists

    mine = open_game(alice)
    theirs = open_game(bob)

    assert [g["id"] for g in lists.open_games_for_lobby(user=alice)] == [theirs.id]
    with_own = lists.open_games_for_lobby(user=alice, include_own=True)
    assert [g["id"] for g in with_own] == [theirs.id, mine.id]
    assert {g["id"] for g in lists.open_games_for_lobby()} == {mine.id, theirs.id}
