"""How many games wait for the signed-in player: one COUNT, on every page (title and
navigation), never on the API."""

import random

import pytest
from django.urls import reverse

import azul
from games import selectors
from games.models import Game
from games.presenters import lists
from games.selectors import games_waiting_count, invitations_waiting_count
from notifications import context_processors
from tests.support.play import first_move, play_forward, waiting_for

pytestmark = pytest.mark.django_db


def expected_waiting(user) -> int:
    """From the engine: active games where the user's position is in `State.to_move`."""
    return expected_waiting_of([user])[user.pk]


def expected_waiting_of(users) -> dict[int, int]:
    """`expected_waiting` of each of `users` (by id), from one read of their active games."""
    counts = dict.fromkeys((user.pk for user in users), 0)
    games = Game.objects.filter(status="active", seats__user__in=users).distinct()
    for game in games.prefetch_related("seats"):
        to_move = azul.State.from_dict(game.state).to_move
        for seat in game.seats.all():
            if seat.user_id in counts and seat.position in to_move:
                counts[seat.user_id] += 1
    return counts


@pytest.mark.slow
def test_the_count_agrees_with_the_engine_through_real_play(make_user, start_game):
    alice, bob, carol, dora = (make_user(n) for n in ("alice", "bob", "carol", "dora"))
    players = [alice, bob, carol, dora]
    games = [
        start_game(alice, bob, carol, variant="gray"),
        start_game(bob, carol, variant="gray"),
        start_game(alice, bob),
        start_game(dora, carol, bob, alice, variant="gray"),
    ]
    rng = random.Random(2027)
    several_tiling = False

    for _ in range(160):
        expected = expected_waiting_of(players)
        for user in players:
            assert games_waiting_count(user_id=user.pk) == expected[user.pk], user
        active = [g for g in games if g.status == "active"]
        if not active:
            break
        index = games.index(rng.choice(active))
        games[index] = play_forward(games[index], moves=1, rng=rng)
        state = azul.State.from_dict(games[index].state)
        several_tiling |= state.phase == "tile" and len(state.to_move) > 1

    # The gray wall's tiling phase, where several players are to move at once, was covered.
    assert several_tiling
    for user in players:
        assert games_waiting_count(user_id=user.pk) == len(
            lists.games_for_user(user=user)["my_turn"]
        )


def test_the_count_is_one_query_and_leaves_out_other_games(
    alice, bob, carol, start_game, django_assert_num_queries
):
    waiting_for(start_game(alice, bob), alice)
    waiting_for(start_game(alice, carol), alice)
    waiting_for(start_game(bob, alice), bob)
    waiting_for(start_game(bob, carol), carol)  # not hers
    finished = waiting_for(start_game(carol, alice), alice)
    Game.objects.filter(pk=finished.pk).update(status="finished")

    with django_assert_num_queries(1):
        count = games_waiting_count(user_id=alice.pk)
    with django_assert_num_queries(0):  # kept until whose turn it is changes
        assert games_waiting_count(user_id=alice.pk) == count

    assert count == 2
    assert games_waiting_count(user_id=carol.pk) == 1
    # A move in one of her games: read afresh.
    waiting_for(selectors.game_get(game_id=finished.pk), alice)
    play_forward(Game.objects.filter(status="active").first().pk, moves=1, pick=first_move)
    assert games_waiting_count(user_id=alice.pk) == expected_waiting(alice)


def test_pages_show_the_count_in_the_title_and_the_navigation(alice, bob, start_game, client_for):
    client = client_for(alice)
    game = waiting_for(start_game(alice, bob), bob)

    page = client.get(reverse("home")).content.decode()
    assert "<title>(" not in page
    assert 'id="games-waiting"' not in page

    waiting_for(game, alice)
    waiting_for(start_game(bob, alice), alice)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert "<title>(2) Settings · Azul</title>" in page
    assert 'id="games-waiting" title="Games waiting for your move">2<' in page


def test_visitors_see_no_count(client):
    page = client.get(reverse("home")).content.decode()

    assert "<title>(" not in page
    assert "games-waiting" not in page


@pytest.fixture
def counted(monkeypatch):
    calls = []

    def count(*, user_id):
        calls.append(user_id)
        return games_waiting_count(user_id=user_id)

    monkeypatch.setattr(context_processors, "games_waiting_count", count)
    return calls


def test_a_page_counts_once_and_the_api_never(alice, bob, start_game, client_for, counted):
    waiting_for(start_game(alice, bob), alice)
    client = client_for(alice)

    assert client.get("/api/games/", HTTP_ACCEPT="application/json").status_code == 200
    assert client.get("/api/games/", HTTP_ACCEPT="text/html").status_code == 200  # browsable
    assert counted == []

    page = client.get(reverse("games:my_games")).content.decode()
    assert "<title>(1) " in page
    assert counted == [alice.pk]


def test_invitations_waiting_for_an_answer_count_in_the_header_and_the_api(
    alice, bob, carol, dave, client_for, api_client_for
):
    """Issue #58: the header's count (and the title's, and the API's) includes the invitations
    waiting for the player's answer, and is true again as soon as one is answered, withdrawn or
    made."""
    from games import services
    from tests.support.factories import invite_game

    game = invite_game(alice, bob, carol)
    client = client_for(bob)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert "<title>(1) Settings · Azul</title>" in page
    # Only an invitation waits: the count leads to the invitations, and says what it counts.
    assert (
        f'href="{reverse("games:my_games")}#invitations" id="games-waiting"'
        ' title="Games waiting for your move, or invitations for your answer">1<span'
        ' class="visually-hidden"> waiting for your move or your answer</span>'
    ) in page
    assert api_client_for(bob).get("/api/games/waiting/").json() == {
        "games_waiting": 0,
        "invitations_waiting": 1,
    }
    # The home page's "1 invitation to answer" leads to where it is answered.
    home = client.get(reverse("home")).content.decode()
    assert f'<a href="{reverse("games:my_games")}#invitations" id="home-invitations">' in home
    my_games = client.get(reverse("games:my_games")).content.decode()
    assert 'id="invitations"' in my_games

    services.invitation_respond(game_id=game.pk, user=bob, accept=False)
    assert "<title>(" not in client.get(reverse("accounts:settings")).content.decode()
    # The seat bob declined goes to dave: his count has it at once.
    assert invitations_waiting_count(user_id=dave.pk) == 0
    services.seat_invite(game_id=game.pk, user=alice, position=1, username="dave")
    assert invitations_waiting_count(user_id=dave.pk) == 1
    services.seat_open(game_id=game.pk, user=alice, position=1)
    assert invitations_waiting_count(user_id=dave.pk) == 0
    # Accepted, and the game starts: carol's invitation is now a game (perhaps her move).
    assert invitations_waiting_count(user_id=carol.pk) == 1
    services.invitation_respond(game_id=game.pk, user=carol, accept=True)
    assert invitations_waiting_count(user_id=carol.pk) == 0
    services.game_cancel(game_id=game.pk, user=alice)
    assert invitations_waiting_count(user_id=carol.pk) == 0


def test_the_count_of_games_and_invitations_is_one_query(
    alice, bob, carol, start_game, django_assert_num_queries
):
    from tests.support.factories import invite_game

    waiting_for(start_game(bob, alice), alice)
    invite_game(carol, alice)
    invite_game(bob, alice, carol)
    with django_assert_num_queries(1):
        assert games_waiting_count(user_id=alice.pk) == 1
        assert invitations_waiting_count(user_id=alice.pk) == 2
