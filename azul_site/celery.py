"""The Celery app, and `send`, how the site sends a task: by name, and never at the cost of the
write that asked for it."""

from __future__ import annotations

import logging
import os
from typing import Any

from celery import Celery
from django.db import OperationalError

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "azul_site.settings")

app = Celery("azul_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

logger = logging.getLogger(__name__)

RETRYING = {
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
    `azul_site.cache`), so that a hung broker does not hold every request up in turn.
    """
    from azul_site.cache import broker_outage

    if broker_outage.skipping():
        return False
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
