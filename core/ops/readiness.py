"""Whether this process should take traffic (`/readyz`, for a load balancer), as opposed to
whether it is alive (`/healthz`): its database answers within a short timeout, every migration
of the code it runs is applied, and it is not shutting down.

The migrations are compared once they are all applied (the code a process runs does not
change), and while some are not, at most every `MIGRATIONS_RECHECK_SECONDS`: reading the
migration files and the table costs tens of milliseconds.
"""

from __future__ import annotations

import threading
import time

from django.db import DatabaseError, connection, transaction

MIGRATIONS_RECHECK_SECONDS = 10.0

shutting_down = threading.Event()
"""Set when the process was asked to stop (gunicorn.conf.py, on SIGTERM): from then on it
answers the requests it has but says it is not ready for more."""

_migrations_applied = False
_migrations_checked_at = float("-inf")
_lock = threading.Lock()


def database_answers(timeout: float) -> bool:
    """One trivial query, which may take at most `timeout` seconds on PostgreSQL."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            if connection.vendor != "postgresql":
                cursor.execute("SELECT 1")
                return True
            # For this query only: set in its transaction (`is_local`), and put back at once
            # for a caller's transaction around it.
            cursor.execute(
                "SELECT current_setting('statement_timeout'),"
                " set_config('statement_timeout', %s, true)",
                [str(int(timeout * 1000))],
            )
            previous = cursor.fetchone()[0]
            cursor.execute("SELECT 1")
            cursor.execute("SELECT set_config('statement_timeout', %s, true)", [previous])
    except DatabaseError:
        return False
    return True


def migrations_applied() -> bool:
    global _migrations_applied, _migrations_checked_at
    if _migrations_applied:
        return True
    with _lock:
        now = time.monotonic()
        if now - _migrations_checked_at >= MIGRATIONS_RECHECK_SECONDS:
            from django.db.migrations.executor import MigrationExecutor

            executor = MigrationExecutor(connection)
            plan = executor.migration_plan(executor.loader.graph.leaf_nodes())
            _migrations_applied = not plan
            _migrations_checked_at = now
    return _migrations_applied


def forget_migrations_check() -> None:
    """Check the migrations again at the next request (for tests)."""
    global _migrations_applied, _migrations_checked_at
    _migrations_applied, _migrations_checked_at = False, float("-inf")


def not_ready_reasons(database_timeout: float) -> list[str]:
    """Why the process should not take traffic; empty when it should."""
    if shutting_down.is_set():
        return ["shutting down"]
    if not database_answers(database_timeout):
        return ["database not answering"]
    try:
        if not migrations_applied():
            return ["migrations not applied"]
    except DatabaseError:
        return ["database not answering"]
    return []
