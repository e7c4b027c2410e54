"""Celery tasks for games: thin wrappers that take ids and call a service.

Each is harmless when run twice, or many times at once: the service re-checks the game under its
row lock and at its ply, and does nothing if the world moved on.
"""

from celery import shared_task

from core.ops.metrics import SWEEP_SECONDS
from core.tasks import RETRYING
from games import follow_ups, services, sweeps


@shared_task(name=follow_ups.COMPUTER_MOVE, **RETRYING)
def computer_move(game_id: str, expected_ply: int) -> None:
    """Play the computer seat's move in game `game_id` if the game is still at `expected_ply`."""
    services.computer_move_play(game_id=game_id, expected_ply=expected_ply)


@shared_task(name=follow_ups.SLOW_COMPUTER_MOVE, **RETRYING)
def slow_computer_move(game_id: str, expected_ply: int, level: str | None = None) -> None:
    """A place in the lane of a slow computer `level`, sent by game `game_id` at `expected_ply`:
    plays the move of the game whose turn is fairest now (`services.moves`' slow lane)."""
    services.slow_computer_move_play(game_id=game_id, expected_ply=expected_ply, level=level)


@shared_task(name=sweeps.TIMEOUTS_TASK, **RETRYING)
def play_timeouts(game_id: str, expected_ply: int) -> None:
    """Move for the players whose time ran out, if the game is still at `expected_ply`."""
    services.timeouts_play(game_id=game_id, expected_ply=expected_ply)


@shared_task(name="games.tasks.sweep", **RETRYING)
def sweep() -> None:
    """Every minute (Celery beat): deadlines, reminders, and computer turns left waiting."""
    with SWEEP_SECONDS.labels(sweep="games").time():
        sweeps.sweep()


@shared_task(name=sweeps.CHECK_TASK, **RETRYING)
def computer_turns_check() -> None:
    """Every few seconds (Celery beat): computer turns whose task was lost, sent again sooner
    than the minute's sweep would."""
    with SWEEP_SECONDS.labels(sweep="computer_turns").time():
        sweeps.computer_turns_check()
