"""The slow computer levels' lane is fair between players: one player's many games waiting for
`strong` do not hold up another player's one (`games.services.moves`, the slow lane)."""

from datetime import datetime, timedelta

import psycopg
import pytest
from django.db import connection

from azul import legal_moves
from games import services
from games.models import Game
from games.selectors.turns import ComputerTurn, computer_turns_waiting
from games.services import moves

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _quick_thinking(monkeypatch):
    """The computer thinks as `greedy` does (at once): which game is served is what is tested."""
    choose = moves.computer_choice
    monkeypatch.setattr(
        moves,
        "computer_choice",
        lambda game, seat, state, level=None: choose(game, seat, state, "greedy"),
    )


def computer_to_move(player, level="strong") -> Game:
    """A new game of `player` against one computer at `level`, at the computer's turn (its
    task not sent: the test takes the lane's places itself)."""
    game = services.game_create(
        creator=player,
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="computer", level=level)],
    )
    game = Game.objects.get(pk=game.pk)
    state = game.engine_state()
    if 0 in state.to_move:
        move = str(legal_moves(state, 0)[0])
        services.move_submit(game_id=game.pk, user=player, move=move, expected_ply=game.ply)
    return Game.objects.get(pk=game.pk)


def test_the_player_with_fewest_games_waiting_is_served_first():
    t0 = datetime(2026, 1, 1)
    heavy = [ComputerTurn(f"h{i}", 1, "heavy", t0 + timedelta(seconds=i)) for i in range(5)]
    light = ComputerTurn("l", 1, "light", t0 + timedelta(seconds=10))
    order = moves.fairest_first([*heavy, light])
    assert [t.game_id for t in order] == ["l", "h0", "h1", "h2", "h3", "h4"]


def test_a_place_sent_by_a_flooders_game_plays_the_other_players_game(mallory, alice):
    flood = [computer_to_move(mallory) for _ in range(3)]
    victim = computer_to_move(alice)
    assert {t.game_id for t in computer_turns_waiting({"strong"})} == {
        *(g.pk for g in flood),
        victim.pk,
    }

    # The place the flooder's first game sent, taken after alice's game started waiting.
    moves.slow_computer_move_play(game_id=flood[0].pk, expected_ply=flood[0].ply)

    assert Game.objects.get(pk=victim.pk).ply == victim.ply + 1
    assert [Game.objects.get(pk=g.pk).ply for g in flood] == [g.ply for g in flood]


def test_every_place_serves_a_game_until_none_waits(mallory, alice):
    games = [computer_to_move(mallory) for _ in range(3)] + [computer_to_move(alice)]
    # One place per game waiting, whichever game each names: all are served once.
    for _place in games:
        moves.slow_computer_move_play(game_id=games[0].pk, expected_ply=games[0].ply)
    assert [Game.objects.get(pk=g.pk).ply for g in games] == [g.ply + 1 for g in games]
    # A place left over (a duplicate, a sweep's re-send) plays nothing twice.
    assert moves.slow_computer_move_play(game_id=games[0].pk, expected_ply=games[0].ply) is None


def test_a_game_another_worker_thinks_about_is_skipped(mallory, alice):
    first, second = computer_to_move(alice), computer_to_move(mallory)
    # Another worker: a session of its own on this test's database, holding the game's lock
    # while it thinks.
    other = psycopg.connect(**connection.get_connection_params(), autocommit=True)
    try:
        other.execute("SELECT pg_advisory_lock(%s)", [moves._lock_key(first.pk)])
        moves.slow_computer_move_play(game_id=first.pk, expected_ply=first.ply)
    finally:
        other.close()  # its lock goes with its session, as a killed worker's does

    assert Game.objects.get(pk=first.pk).ply == first.ply
    assert Game.objects.get(pk=second.pk).ply == second.ply + 1
    # The other worker gone, the next place serves the game it held.
    moves.slow_computer_move_play(game_id=first.pk, expected_ply=first.ply)
    assert Game.objects.get(pk=first.pk).ply == first.ply + 1


def test_quick_levels_are_not_in_the_lane(alice):
    computer_to_move(alice, level="greedy")
    assert computer_turns_waiting({"strong", "master"}) == []


def test_each_slow_level_has_its_own_lane(mallory, alice):
    """A `strong` reply never waits behind a `master` move: a place in strong's lane serves
    only strong's games, however fair the master game's turn would be."""
    master = computer_to_move(alice, level="master")
    strong = computer_to_move(mallory)
    moves.slow_computer_move_play(game_id=strong.pk, expected_ply=strong.ply, level="strong")
    assert Game.objects.get(pk=strong.pk).ply == strong.ply + 1
    assert Game.objects.get(pk=master.pk).ply == master.ply
