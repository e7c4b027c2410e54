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


def on_commit(task: str, *args: Any) -> None:
    """Send the task `task` with `args` once the current transaction commits."""
    transaction.on_commit(partial(send, task, list(args)))
