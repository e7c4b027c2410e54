"""How the site sends a task: by name, once the write that asks for it commits, and never at the
cost of that write. And the options every task of the site takes (`RETRYING`).

Tasks are sent by name so that a service names the task it needs without importing it: the
tasks call the services, and the dependency runs one way (tasks -> services -> `send`).
"""

from __future__ import annotations

import logging
from functools import partial
from typing import Any

from celery import current_app, shared_task
from django.db import OperationalError, transaction

from core.ops.metrics import SWEEP_SECONDS
from core.outages import cache

logger = logging.getLogger(__name__)

RETRYING: dict[str, Any] = {
    # A database that did not answer (a restart, a failover) is tried again, with backoff.
    "autoretry_for": (OperationalError,),
    "retry_backoff": True,
    "retry_backoff_max": 60,
    "retry_jitter": True,
    "max_retries": 5,
    # Acknowledged once done: a task whose worker died goes to another worker.
    "acks_late": True,
}
"""The options of the site's tasks, all safe to run twice (`shared_task(**RETRYING)`)."""


def send(
    task: str, args: list[Any], countdown: float | None = None, queue: str | None = None
) -> bool:
    """Send the task registered as `task` with `args`; False if it could not be sent.

    Whatever was to be done is in the database already, and the periodic sweeps find what no
    task did: so a broker that is down or hung costs the request a short timeout, never an
    error. After a failure, sends are skipped for a few seconds (the cache's outage window,
    `core.outages.cache`), so that a hung broker does not hold every request up in turn.
    """
    broker_outage = cache.broker_outage  # looked up at each send: tests start a new one
    if broker_outage.skipping():
        return False
    app = current_app
    try:
        options = {"queue": queue} if queue else {}
        app.signature(task, args=args).apply_async(countdown=countdown or None, **options)
    except Exception as exc:
        # In-process (eager) tasks raise their own errors here too: the write stands either way.
        if app.conf.task_always_eager:
            logger.exception("task %s%r failed in-process", task, args)
        else:
            broker_outage.failed(exc)
        return False
    broker_outage.answered()
    return True


def send_on_commit(task: str, *args: Any, queue: str | None = None) -> None:
    """Send the task `task` with `args` once the current transaction commits (to `queue`, or the
    one its route gives), so that a worker never looks for a write that is not there yet."""
    transaction.on_commit(partial(send, task, list(args), queue=queue))


@shared_task(name="core.tasks.sweep", **RETRYING)
def sweep() -> None:
    """Every ten minutes (Celery beat): the rate limits' expired counts and locks deleted."""
    with SWEEP_SECONDS.labels(sweep="core").time():
        cache.expired_counts_delete()
