"""Friends (issue #32): the home page shows the games waiting for players that the players one
follows created and one could join: newest first, at most FRIENDS_GAMES_LIMIT, none with a
player either way blocked, none one sits in already; in a fixed number of queries."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.services import block_create, follow_create
from games import selectors, services
from games.models import Game
from tests.games.web.test_query_budgets import count_queries
from tests.support.factories import client_for

pytestmark = pytest.mark.django_db

SECTION = 'id="friends-games"'


def open_game(creator, players: int = 2) -> Game:
    return services.game_create(
        creator=creator,
        num_players=players,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="open") for _ in range(players - 1)],
    )


def home(person) -> str:
    return client_for(person).get(reverse("home")).content.decode()


def test_a_followed_players_open_game_is_on_the_home_page(alice, bob, carol):
    follow_create(follower=alice, username="bob")
    game = open_game(bob, players=3)
    open_game(carol)  # not followed

    page = home(alice)

    assert SECTION in page
    assert f"?join={game.id}" in page
    assert "3-player game by bob" in page
    assert "game by carol" not in page
    # Nobody else's home page shows it as a friend's game, nor bob's own.
    assert SECTION not in home(carol) and SECTION not in home(bob)


def test_only_games_one_could_join(alice, bob, mallory, start_game):
    follow_create(follower=alice, username="bob")
    follow_create(follower=alice, username="mallory")
    start_game(bob, mallory)  # in progress: nothing to join
    invited_only = services.game_create(
        creator=bob,
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="invite", username="mallory")],
    )
    mallorys = open_game(mallory)
    joined = open_game(bob, players=3)
    services.game_join(game_id=joined.id, user=alice)

    page = home(alice)
    assert str(invited_only.id) not in page and f"?join={joined.id}" not in page
    assert f"?join={mallorys.id}" in page

    # A block hides the game, whoever blocked whom (and ends the follow).
    follow_create(follower=alice, username="bob")
    block_create(blocker=mallory, username="alice")
    assert f"?join={mallorys.id}" not in home(alice)


def test_a_blocked_players_game_in_a_friends_game_is_left_out(alice, bob, mallory):
    follow_create(follower=alice, username="bob")
    game = open_game(bob, players=3)
    services.game_join(game_id=game.id, user=mallory)
    block_create(blocker=mallory, username="alice")

    assert f"?join={game.id}" not in home(alice)


def test_the_section_is_capped_newest_first(alice, bob, carol):
    follow_create(follower=alice, username="bob")
    follow_create(follower=alice, username="carol")
    # Two friends: a player has at most five games waiting for players.
    creators = [bob, carol] * selectors.FRIENDS_GAMES_LIMIT
    games = [open_game(creator) for creator in creators[: selectors.FRIENDS_GAMES_LIMIT + 2]]

    page = home(alice)

    shown = [g for g in games if f"?join={g.id}" in page]
    assert shown == games[-selectors.FRIENDS_GAMES_LIMIT :]
    positions = [page.index(f"?join={g.id}") for g in reversed(shown)]
    assert positions == sorted(positions)


def test_the_home_pages_queries_do_not_grow_with_friends_or_their_games(alice, make_user):
    client = client_for(alice)
    friend = make_user("friend0")
    follow_create(follower=alice, username="friend0")
    open_game(friend)
    one = count_queries(client, reverse("home"))

    for n in range(1, 6):
        other = make_user(f"friend{n}")
        follow_create(follower=alice, username=other.username)
        open_game(other, players=3)
        open_game(other)

    assert count_queries(client, reverse("home")) == one
