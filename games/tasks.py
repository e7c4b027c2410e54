"""Celery tasks for games: thin wrappers that take ids and call a service.

Each is harmless when run twice, or many times at once: the service re-checks the game under its
row lock and at its ply, and does nothing if the world moved on.
"""

from celery import shared_task
from django.db import OperationalError

from games import services, sweeps

RETRY_ON_DATABASE_ERRORS = {
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 5,
    "acks_late": True,
}


@shared_task(name=sweeps.COMPUTER_MOVE_TASK, **RETRY_ON_DATABASE_ERRORS)
def computer_move(game_id: str, expected_ply: int) -> None:
    """Play the computer seat's move in game `game_id` if the game is still at `expected_ply`."""
    services.computer_move_play(game_id=game_id, expected_ply=expected_ply)


@shared_task(name=sweeps.TIMEOUTS_TASK, **RETRY_ON_DATABASE_ERRORS)
def play_timeouts(game_id: str, expected_ply: int) -> None:
    """Move for the players whose time ran out, if the game is still at `expected_ply`."""
    services.timeouts_play(game_id=game_id, expected_ply=expected_ply)


@shared_task(name="games.tasks.sweep", **RETRY_ON_DATABASE_ERRORS)
def sweep() -> None:
    """Every minute (Celery beat): deadlines, reminders, and computer turns left waiting."""
    sweeps.sweep()
