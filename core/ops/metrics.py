"""The site's own metrics, in Prometheus' conventions (`azul_` prefix, `_total` counters,
`_seconds` durations), counted where things happen; `azul_site.metrics` serves them with
django-prometheus' request metrics at /metrics, and reads what is read at scrape time (queue
depths, the outbox).

Processes (README, "What operators see"): gunicorn's web workers and the live process's
workers are separate processes, as are a Celery worker's pool processes. With
PROMETHEUS_MULTIPROC_DIR set (docker-compose.yml sets it in every container) each process writes
its values to files in that folder, and whoever serves /metrics adds them up: the web and the
live process each serve their own workers' sums at /metrics (gunicorn.conf.py empties the folder
at start and forgets a worker that exits), and a Celery worker with METRICS_PORT serves its pool
processes' on that port (`serve_worker_metrics`). Unset, each process counts for itself (one
process: `make run`, the tests).
"""

from __future__ import annotations

import logging
import os
import shutil
from pathlib import Path
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client import multiprocess as prometheus_multiprocess

logger = logging.getLogger(__name__)

MULTIPROCESS_DIR = os.environ.get("PROMETHEUS_MULTIPROC_DIR", "")
if MULTIPROCESS_DIR:
    # prometheus_client writes into it from the first value; a command run before the server
    # (migrate) must not fail for want of it.
    Path(MULTIPROCESS_DIR).mkdir(parents=True, exist_ok=True)

MOVES = Counter(
    "azul_moves",
    "Moves accepted (committed), by who made them: a person, the computer (its seats, and "
    "seats it plays for a player who resigned or timed out three times), or the server at a "
    "timeout.",
    ["kind"],
)
MOVE_KINDS = ("person", "computer", "timeout")

COMPUTER_ANSWER_SECONDS = Histogram(
    "azul_computer_answer_seconds",
    "From the turn becoming the computer's (the write before it) to its move being committed, "
    "by level: its thinking time plus the time its task waited in the queue.",
    ["level"],
    buckets=(0.1, 0.25, 0.5, 1, 2, 3, 5, 8, 13, 20, 30, 45, 60, 90, 120, 300),
)

SWEEP_SECONDS = Histogram(
    "azul_sweep_duration_seconds",
    "How long one periodic sweep took, by sweep (games, computer_turns, notifications, analysis).",
    ["sweep"],
    buckets=(0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60),
)

LIVE_WAITS = Gauge(
    "azul_live_waits",
    "Requests waiting for a game to change, held by the live process now.",
    # Summed over the process's workers that are alive.
    multiprocess_mode="livesum",
)

OUTBOX_FAILURES = Counter(
    "azul_outbox_failures",
    "Emails of the outbox that failed for good (after NOTIFY_MAX_ATTEMPTS attempts), by kind.",
    ["kind"],
)


def multiprocess_registry() -> CollectorRegistry | None:
    """A registry that adds up every process's values in PROMETHEUS_MULTIPROC_DIR; None when
    each process counts for itself."""
    if not MULTIPROCESS_DIR:
        return None
    registry = CollectorRegistry()
    prometheus_multiprocess.MultiProcessCollector(registry)
    return registry


def empty_multiprocess_dir() -> None:
    """Forget the values of the processes of a previous run: a server's master calls it before
    it starts its workers."""
    if MULTIPROCESS_DIR:
        shutil.rmtree(MULTIPROCESS_DIR, ignore_errors=True)
        Path(MULTIPROCESS_DIR).mkdir(parents=True, exist_ok=True)


def process_exited(pid: int) -> None:
    """A worker process exited: its live gauges no longer count (its counters still do)."""
    if MULTIPROCESS_DIR:
        prometheus_multiprocess.mark_process_dead(pid)


def serve_worker_metrics(port: int, address: str) -> Any:
    """Serve this Celery worker's metrics (its pool processes' values added up) on `port`: the
    worker has no web server of its own. Unauthenticated: bind it to an address only the
    scraper reaches."""
    from prometheus_client import REGISTRY, start_http_server

    server, _thread = start_http_server(
        port, addr=address, registry=multiprocess_registry() or REGISTRY
    )
    logger.info("metrics served on %s:%s", address, port)
    return server
