"""What a write to a game asks to happen once it commits: Celery tasks, sent by name.

The tasks call the services, so the services name the tasks instead of importing them: the
dependency runs one way (tasks -> services -> follow-ups). A task is sent only after the write
commits (`transaction.on_commit`), so a worker never looks for a write that is not there yet.

Sending may fail (the broker is down or hung): the write has committed and stays, the failure is
logged, and the periodic sweep finds what is still to be done in the database and sends it then.
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from django.db import transaction

from azul_site.celery import app

logger = logging.getLogger(__name__)

COMPUTER_MOVE = "games.tasks.computer_move"


def send(task: str, *args: Any) -> None:
    """Send the task `task` (its registered name) with `args` now; a failure is logged."""
    try:
        app.signature(task, args=args).delay()
    except Exception:
        # Whatever the broker or an in-process (eager) task raised: the caller's write stands,
        # and the sweep will find the work again.
        logger.exception("could not send %s%r", task, args)


def on_commit(task: str, *args: Any) -> None:
    """Send the task `task` with `args` once the current transaction commits."""
    transaction.on_commit(partial(send, task, *args))
