"""The slow computer levels (strong and master, a second or more a move) are played from a queue
of their own, so that their thinking never holds up the quick levels' moves in other games;
every level the engine has can sit at a table."""

import pytest

import core.tasks
from azul import legal_moves
from azul.ai.bots import LEVELS
from games import follow_ups, services
from games.models import Game, Seat

pytestmark = pytest.mark.django_db


@pytest.fixture
def sent(monkeypatch):
    calls = []
    monkeypatch.setattr(
        core.tasks, "send", lambda task, args, queue=None: calls.append((task, queue)) or True
    )
    return calls


@pytest.mark.parametrize("level", ["greedy", "strong", "master"])
def test_a_computer_move_goes_to_its_levels_queue(
    level, alice, sent, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        game = services.game_create(
            creator=alice,
            num_players=2,
            variant="colored",
            days_per_move=3,
            seats=[services.SeatSpec(kind="computer", level=level)],
        )
    game = Game.objects.get(pk=game.pk)
    assert game.status == Game.Status.ACTIVE
    state = game.engine_state()
    if state.to_move == [0]:
        # Alice moves first: her move hands the turn to the computer.
        move = str(legal_moves(state, 0)[0])
        with django_capture_on_commit_callbacks(execute=True):
            services.move_submit(game_id=game.pk, user=alice, move=move, expected_ply=game.ply)
    moves = [(task, queue) for task, queue in sent if "computer_move" in task]
    if level in ("strong", "master"):
        lane = {"strong": "slow_moves", "master": "master_moves"}[level]
        assert moves == [(follow_ups.SLOW_COMPUTER_MOVE, lane)]
    else:
        assert moves == [(follow_ups.COMPUTER_MOVE, None)]


def test_every_engine_level_is_a_seat_level():
    assert set(Seat.BotLevel.values) == set(LEVELS)
    assert set(LEVELS) >= follow_ups.SLOW_LEVELS
