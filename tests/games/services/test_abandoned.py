"""A game in which no person is left to move is played out at once, as a resignation already
does: a player who abandons games against the slowest computer level (master, seconds a move)
costs the workers nothing more, whatever way they leave (timeouts, or resigning)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

import azul
import core.tasks
from azul.ai import bots
from games import follow_ups, services
from games.models import Game, LogEntry, Seat
from games.services.moves import TIMEOUTS_BEFORE_AUTOPLAY
from games.services.playing import lock_game, play_and_write

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    """The tasks sent (name, args, queue), recorded rather than run: a master move is seconds."""
    calls = []

    def record(task, args, countdown=None, queue=None):
        calls.append((task, args, queue))
        return True

    monkeypatch.setattr(core.tasks, "send", record)
    return calls


@pytest.fixture
def no_master(monkeypatch):
    """The master level must not be asked for a move: it would be the slow worker's seconds."""
    real = bots.choose_move

    def choose(state, player, level, **kwargs):
        assert level != "master", "the master level was asked to move in an abandoned game"
        return real(state, player, level, **kwargs)

    monkeypatch.setattr("games.services.playing.choose_move", choose)


def computer_moves(sent) -> list:
    return [call for call in sent if call[0] == follow_ups.SLOW_COMPUTER_MOVE]


def against_masters(person, sent, computers: int = 3) -> Game:
    """A started game of `person` against master seats, brought to `person`'s turn (the seats
    before them move their first legal move, not the master's)."""
    with transaction.atomic():
        game = services.game_create(
            creator=person,
            num_players=1 + computers,
            variant="colored",
            days_per_move=1,
            seats=[services.SeatSpec(kind="computer", level="master")] * computers,
        )
    mine = next(s for s in Game.objects.get(pk=game.pk).seats.all() if s.user_id == person.pk)
    while True:
        with transaction.atomic():
            game = lock_game(game.pk)
            state = game.engine_state()
            if mine.position in state.to_move:
                break
            seat = next(s for s in game.seat_list if s.position == state.to_move[0])
            play_and_write(
                game,
                list(game.seat_list),
                seat.position,
                str(azul.legal_moves(state, seat.position)[0]),
            )
    sent.clear()
    return Game.objects.get(pk=game.pk)


def time_out(game: Game, times: int, django_capture_on_commit_callbacks) -> Game:
    """The person's turn passes its deadline: their `times`-th timeout in the game."""
    Seat.objects.filter(game=game, kind=Seat.Kind.HUMAN).update(timeouts=times - 1)
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(minutes=1))
    with django_capture_on_commit_callbacks(execute=True):
        services.timeouts_play(game_id=game.pk, expected_ply=game.ply)
    return Game.objects.get(pk=game.pk)


def test_a_hostile_players_abandoned_game_costs_no_computer_move(
    make_user, sent, no_master, django_capture_on_commit_callbacks
):
    mallory = make_user("mallory")
    game = against_masters(mallory, sent)
    # Her first two timeouts: the server moves for her, and the masters still play her.
    game = time_out(game, 1, django_capture_on_commit_callbacks)
    assert game.status == Game.Status.ACTIVE
    assert computer_moves(sent), "the computer seats play on while she may come back"

    # Bring it back to her turn, then her third timeout hands her seat to the computer: no
    # person is left to move, and the game is played out now, by the greedy player.
    with transaction.atomic():
        locked = lock_game(game.pk)
        while True:
            state = locked.engine_state()
            seat = next(s for s in locked.seat_list if s.position == state.to_move[0])
            if seat.kind == Seat.Kind.HUMAN:
                break
            play_and_write(
                locked,
                list(locked.seat_list),
                seat.position,
                str(azul.legal_moves(state, seat.position)[0]),
            )
    sent.clear()
    game = time_out(
        Game.objects.get(pk=game.pk), TIMEOUTS_BEFORE_AUTOPLAY, django_capture_on_commit_callbacks
    )

    assert game.status == Game.Status.FINISHED
    assert computer_moves(sent) == []
    seat = Seat.objects.get(game=game, user=mallory)
    assert seat.autoplay and seat.place is not None
    assert LogEntry.objects.filter(game=game, data__timeout=True).count() == 2


def test_a_game_left_to_the_computer_before_is_played_out_by_its_next_computer_move(
    make_user, sent, no_master, django_capture_on_commit_callbacks
):
    """A game that had no person left before this rule (the player's seat taken over, the
    masters to move) is played out by the next computer-move task, not move by move."""
    mallory = make_user("mallory")
    game = against_masters(mallory, sent, computers=1)
    with transaction.atomic():
        locked = lock_game(game.pk)
        state = locked.engine_state()
        seats = list(locked.seat_list)
        mine = next(s for s in seats if s.user_id == mallory.pk)
        Seat.objects.filter(pk=mine.pk).update(autoplay=True, timeouts=3)
        mine.autoplay = True
        play_and_write(locked, seats, mine.position, str(azul.legal_moves(state, mine.position)[0]))
    game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.ACTIVE
    sent.clear()
    with django_capture_on_commit_callbacks(execute=True):
        services.computer_move_play(game_id=game.pk, expected_ply=game.ply)
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
    assert computer_moves(sent) == []


def test_a_hostile_player_who_resigns_costs_no_computer_move(
    make_user, sent, no_master, django_capture_on_commit_callbacks
):
    mallory = make_user("mallory")
    game = against_masters(mallory, sent)
    with django_capture_on_commit_callbacks(execute=True):
        services.game_resign(game_id=game.pk, user=mallory)
    assert Game.objects.get(pk=game.pk).status == Game.Status.FINISHED
    assert computer_moves(sent) == []


def test_another_players_game_is_not_played_out_when_one_of_two_people_times_out(
    alice, bob, sent, django_capture_on_commit_callbacks
):
    """Played out only when nobody is left: bob still plays against the computer in her seat."""
    game = services.game_create(
        creator=alice,
        num_players=2,
        variant="colored",
        days_per_move=1,
        seats=[services.SeatSpec(kind="invite", username=bob.username)],
    )
    game = services.invitation_respond(game_id=game.id, user=bob, accept=True)
    to_move = game.engine_state().to_move[0]
    Seat.objects.filter(game=game, position=to_move).update(timeouts=TIMEOUTS_BEFORE_AUTOPLAY - 1)
    Game.objects.filter(pk=game.pk).update(turn_deadline=timezone.now() - timedelta(minutes=1))
    with django_capture_on_commit_callbacks(execute=True):
        services.timeouts_play(game_id=game.pk, expected_ply=game.ply)
    game = Game.objects.get(pk=game.pk)
    assert Seat.objects.get(game=game, position=to_move).autoplay
    assert game.status == Game.Status.ACTIVE
