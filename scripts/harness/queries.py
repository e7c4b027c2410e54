"""The database's side of a benchmark (after `django.setup()`): each query a piece of code runs,
timed and recorded with the part of it that ran the query, its commits too (`QueryLog`); a
query's plan (`explain`); the facts of a table and of the server (`table_facts`); an index made
and dropped for a comparison.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from typing import Any
from unittest.mock import patch

COMMIT = "COMMIT"  # a Query's sql when it is a transaction's commit
# Plan lines worth showing: the scans (which index, if any), sorts, joins and the totals.
KEY_PLAN_LINE = re.compile(
    r"Scan|Index Cond|Sort Method|Join|Rows Removed|Workers Launched|Execution Time"
    r"|Planning Time|JIT:"
)


@dataclass
class Query:
    part: str
    sql: str
    params: Any
    seconds: float


@dataclass
class QueryLog:
    """The queries run while `recording()`, each with the part that ran it (a function wrapped
    by `timed`, "all" outside them), and each part's seconds."""

    queries: list[Query] = field(default_factory=list)
    part_seconds: dict[str, float] = field(default_factory=dict)
    current: str = "all"

    def timed(self, name: str, part: Callable[..., Any]) -> Callable[..., Any]:
        """`part`, timed as `name`, its queries recorded as its own."""

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            self.current = name
            started = time.perf_counter()
            try:
                return part(*args, **kwargs)
            finally:
                self.part_seconds[name] = time.perf_counter() - started
                self.current = "all"

        return wrapper

    @contextmanager
    def recording(self) -> Iterator[None]:
        """Every query and every commit of the connection recorded, while in the block."""
        from django.db import connection

        def record(execute, sql, params, many, context):  # type: ignore[no-untyped-def]
            started = time.perf_counter()
            try:
                return execute(sql, params, many, context)
            finally:
                self.queries.append(Query(self.current, sql, params, time.perf_counter() - started))

        commit = connection.commit

        def record_commit() -> None:
            # Outside a transaction, every write (bulk_create) is its own transaction: its
            # COMMIT waits for the WAL to reach the disk.
            started = time.perf_counter()
            try:
                commit()
            finally:
                seconds = time.perf_counter() - started
                self.queries.append(Query(self.current, COMMIT, None, seconds))

        with ExitStack() as stack:
            stack.enter_context(connection.execute_wrapper(record))
            stack.enter_context(patch.object(connection, "commit", record_commit))
            yield

    def of(self, part: str) -> list[Query]:
        """The part's queries, commits aside."""
        return [q for q in self.queries if q.part == part and q.sql is not COMMIT]

    def part(self, name: str) -> tuple[float, int, float, float, int, float]:
        """The part's seconds; its queries, their seconds and its first's; its commits and
        their seconds."""
        queries = self.of(name)
        commits = [q.seconds for q in self.queries if q.part == name and q.sql is COMMIT]
        return (
            self.part_seconds[name],
            len(queries),
            sum(q.seconds for q in queries),
            queries[0].seconds,
            len(commits),
            sum(commits),
        )


def explain(query: Query) -> list[str]:
    """EXPLAIN (ANALYZE, BUFFERS) of the query, a line each."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"EXPLAIN (ANALYZE, BUFFERS) {query.sql}", query.params)
        return [row[0] for row in cursor.fetchall()]


def create_index(name: str, table: str, definition: str) -> float:
    """`CREATE INDEX name ON table definition`, then the table analysed: the seconds it took."""
    from django.db import connection

    started = time.perf_counter()
    with connection.cursor() as cursor:
        cursor.execute(f"CREATE INDEX {name} ON {table} {definition}")
        cursor.execute(f"ANALYZE {table}")
    return time.perf_counter() - started


def drop_index(name: str) -> None:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(f"DROP INDEX IF EXISTS {name}")


def table_facts(table: str) -> str:
    """PostgreSQL's version and settings that matter, and the table's size and its indexes'."""
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT pg_size_pretty(pg_table_size('{table}')),"
            f" pg_size_pretty(pg_indexes_size('{table}')), current_setting('server_version'),"
            " current_setting('shared_buffers'), current_setting('jit')"
        )
        size, indexes, version, buffers, jit = cursor.fetchone()
    return (
        f"PostgreSQL {version.split()[0]} (shared_buffers {buffers}, jit {jit});"
        f" {table}: {size} of rows, {indexes} of indexes"
    )
