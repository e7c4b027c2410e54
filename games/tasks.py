"""Celery tasks for games: thin wrappers that take ids and call a service.

Each is harmless when run twice: the service re-checks the game under its row lock and does
nothing if the world moved on.
"""

from celery import shared_task
from django.db import OperationalError

from games.services import computer_move_play


@shared_task(
    autoretry_for=(OperationalError,),
    retry_backoff=True,
    retry_backoff_max=60,
    retry_jitter=True,
    max_retries=5,
    acks_late=True,
)
def computer_move(game_id: str, expected_ply: int) -> None:
    """Play the computer seat's move in game `game_id` if the game is still at `expected_ply`."""
    computer_move_play(game_id=game_id, expected_ply=expected_ply)
