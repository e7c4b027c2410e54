"""The Celery app. How the site sends a task, and the options its tasks take, are in
`core.tasks`."""

from __future__ import annotations

import os
from typing import Any

from celery import Celery, signals

from core.ops import log_context

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "azul_site.settings")

app = Celery("azul_site")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()

# The id of the request that sent a task goes with it, onto the task's log lines.
signals.before_task_publish.connect(log_context.task_headers_add_request_id)
signals.task_prerun.connect(log_context.task_request_id_restore)
signals.task_postrun.connect(log_context.task_request_id_forget)


@signals.celeryd_init.connect
def _worker_broker_timeout(conf: Any = None, **_: object) -> None:
    """A worker's connections to the broker wait `WORKER_BROKER_TIMEOUT` (settings/tasks.py
    says why), where a request's give up after `BROKER_TIMEOUT`."""
    from django.conf import settings

    if conf is None:
        return
    options = dict(conf.broker_transport_options or {})
    options["socket_timeout"] = settings.WORKER_BROKER_TIMEOUT
    conf.broker_transport_options = options


@signals.celeryd_init.connect
def _serve_metrics(**_: object) -> object:
    """A worker started with METRICS_PORT serves its metrics there (core.ops.metrics), from its main
    process: its pool processes, forked after this, write theirs to PROMETHEUS_MULTIPROC_DIR."""
    from django.conf import settings

    from core.ops import metrics

    if not settings.METRICS_PORT:
        return None
    metrics.empty_multiprocess_dir()
    return metrics.serve_worker_metrics(settings.METRICS_PORT, settings.METRICS_ADDRESS)


@signals.worker_process_shutdown.connect
def _forget_pool_process(pid: int | None = None, **_: object) -> None:
    from core.ops import metrics

    metrics.process_exited(pid or os.getpid())
