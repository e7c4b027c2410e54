"""Emptying the test database after a test that commits (`transactional_db`, the live server's
tests) with DELETE rather than Django's TRUNCATE.

PostgreSQL's TRUNCATE gives each of the ~40 tables and ~150 indexes new files: measured on this
project's database, one TRUNCATE of every table took 2.2-3.9 s on a busy two-core machine where
DELETE of the same tables took 0.4-0.7 s, and a test's database holds a few rows. Every test that
commits pays it once (the browser tests, the servers', the workers'). The foreign keys Django
makes on PostgreSQL are deferred to the commit, so the tables can be emptied in any order; the
flush runs in a transaction (`execute_sql_flush`). Resetting sequences, or cascading, is left to
TRUNCATE, as Django does it.

The content types and permissions are kept rather than emptied and made again: Django's flush
sends `post_migrate` after each test that commits, and its two receivers (contenttypes, auth)
query every app and write some 300 rows back, 0.08-0.1 s of a 0.1-0.12 s flush on an idle
machine (measured with `call_command("flush")` on this project's test database). The rows
`migrate` made when the test database was set up stay as they were; no test writes them.
"""

from __future__ import annotations

from typing import Any

from django.core.management.commands import flush
from django.db.backends.postgresql.operations import DatabaseOperations

_truncate = DatabaseOperations.sql_flush
# Made once by `migrate` for the test database, and kept (see above).
KEPT_TABLES = frozenset({"django_content_type", "auth_permission"})


def _delete_every_row(
    self: DatabaseOperations,
    style: Any,
    tables: list[str],
    *,
    reset_sequences: bool = False,
    allow_cascade: bool = False,
) -> list[str]:
    tables = [table for table in tables if table not in KEPT_TABLES]
    if reset_sequences or allow_cascade or not tables:
        return _truncate(
            self, style, tables, reset_sequences=reset_sequences, allow_cascade=allow_cascade
        )
    return ["SET CONSTRAINTS ALL DEFERRED;"] + [
        f"{style.SQL_KEYWORD('DELETE FROM')} {style.SQL_FIELD(self.quote_name(table))};"
        for table in tables
        if table not in KEPT_TABLES
    ]


def delete_rather_than_truncate() -> None:
    """For this test process: flushes empty the tables with DELETE, all but the content types
    and permissions, which therefore need no `post_migrate` to make them again."""
    DatabaseOperations.sql_flush = _delete_every_row  # type: ignore[method-assign, assignment]
    flush.emit_post_migrate_signal = _content_types_kept  # type: ignore[attr-defined]


def _content_types_kept(*args: Any, **kwargs: Any) -> None:
    """`flush`'s `post_migrate`: nothing to make again (KEPT_TABLES)."""
