"""What a write to a game asks to happen once it commits: Celery tasks, sent by name.

The tasks call the services, so the services name the tasks instead of importing them: the
dependency runs one way (tasks -> services -> follow-ups). A task is sent only after the write
commits (`transaction.on_commit`), so a worker never looks for a write that is not there yet.

Sending may fail (the broker is down or hung): the write has committed and stays, and the
periodic sweep (`games.sweeps`) finds what is still to be done in the database and sends it then.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django.db import transaction

from azul_site.celery import send

COMPUTER_MOVE = "games.tasks.computer_move"

SLOW_LEVELS = frozenset({"master"})
"""Computer levels that think for seconds a move: their moves go to a queue of their own
(`SLOW_MOVES_QUEUE`, served by its own worker), so that they never hold up the quick levels'
moves in other games."""
SLOW_MOVES_QUEUE = "slow_moves"


def computer_move_queue(level: str) -> str | None:
    """The queue for a computer move at `level`: None is the default queue."""
    return SLOW_MOVES_QUEUE if level in SLOW_LEVELS else None


def on_commit(task: str, *args: Any, queue: str | None = None) -> None:
    """Send the task `task` with `args` once the current transaction commits (to `queue`, or
    the one its route gives)."""
    transaction.on_commit(partial(send, task, list(args), queue=queue))
