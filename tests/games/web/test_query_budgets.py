"""The board page, "My games" and the lobby make a fixed number of queries: no more for a long
game than a short one, nor for five games than one."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from games import services
from games.models import Game
from tests.support.play import play_forward, to_move_user

pytestmark = pytest.mark.django_db

# The board, the chat panel's two queries on a player's page (chat.panels), and the event a
# game is, read once a game and then kept (events.panels).
BOARD_BUDGET = 11
LIST_BUDGET = 10


def count_queries(client, url: str) -> int:
    """Queries for one request with every cache cold (the most a request can make), so that two
    counts compare like with like."""
    cache.clear()
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    assert response.status_code == 200
    return len(queries)


def test_board_page_queries_do_not_grow_with_the_log(
    start_game, alice, bob, carol, client_for, django_assert_max_num_queries
):
    short = start_game(alice, bob)
    # Deals come from the server's unpredictable random source, so a random game's length
    # varies: 40 moves keeps it going in practice, and a finished game is still a long log.
    long = play_forward(start_game(alice, bob), moves=40)
    assert long.ply > short.ply + 35
    player = to_move_user(long) if long.status == Game.Status.ACTIVE else alice
    if long.status == Game.Status.ACTIVE and to_move_user(short) != player:
        # The same player to move in both (a board on your turn also marks your "your turn"
        # email as not needed: one UPDATE).
        short = play_forward(short, moves=1)

    for viewer in (carol, player):
        client = client_for(viewer)
        for game in (short, long):
            for name in ("games:detail", "games:board"):
                with django_assert_max_num_queries(BOARD_BUDGET):
                    client.get(reverse(name, args=[game.id]))
        for name in ("games:detail", "games:board"):
            assert count_queries(client, reverse(name, args=[short.id])) == count_queries(
                client, reverse(name, args=[long.id])
            )


def test_my_games_queries_do_not_grow_with_the_number_of_games(
    start_game, make_user, alice, client_for, django_assert_max_num_queries
):
    client = client_for(alice)
    opponents = [make_user(f"opponent{i}") for i in range(5)]
    start_game(alice, opponents[0])
    services.game_create(
        creator=opponents[0],
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="invite", username="alice")],
    )
    with django_assert_max_num_queries(LIST_BUDGET):
        one = count_queries(client, reverse("games:my_games"))
    home_one = count_queries(client, reverse("home"))

    for opponent in opponents[1:]:
        play_forward(start_game(alice, opponent), moves=3)
        services.game_create(
            creator=opponent,
            num_players=2,
            variant="gray",
            days_per_move=3,
            seats=[services.SeatSpec(kind="invite", username="alice")],
        )
    with django_assert_max_num_queries(LIST_BUDGET):
        five = count_queries(client, reverse("games:my_games"))

    assert one == five
    assert count_queries(client, reverse("home")) == home_one


def test_lobby_queries_do_not_grow_with_the_number_of_games(
    make_user, carol, client_for, django_assert_max_num_queries
):
    client = client_for(carol)
    creators = [make_user(f"host{i}") for i in range(5)]

    def open_game(creator):
        services.game_create(
            creator=creator,
            num_players=3,
            variant="colored",
            days_per_move=3,
            seats=[services.SeatSpec(kind="open"), services.SeatSpec(kind="computer")],
        )

    open_game(creators[0])
    with django_assert_max_num_queries(LIST_BUDGET):
        one = count_queries(client, reverse("games:lobby"))
    for creator in creators[1:]:
        open_game(creator)
    content = client.get(reverse("games:lobby")).content.decode()
    assert content.count('action="/games/') == 5

    assert count_queries(client, reverse("games:lobby")) == one
