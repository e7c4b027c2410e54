"""`manage.py sweep --every N` (`make run`'s sweeper, the soak's) outlives a database failover:
a round whose connection was terminated is logged and the next round runs on a new connection
(found by scripts/soak.py, whose sweep process died at the first failover)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import psycopg
import pytest
from django.db import connection

from tests.support.databases import ROOT, current_database, database_url

pytestmark = pytest.mark.django_db


def next_sweep_line(process: subprocess.Popen, timeout: float = 30) -> str:
    """The process's next "sweep: ..." line (skipping its log's), within `timeout` seconds."""
    deadline = time.monotonic() + timeout
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            pytest.fail(f"the sweep process ended (exit {process.wait()})")
        if line.startswith("sweep:"):
            return line
    pytest.fail("no sweep within the time")


def test_the_sweep_loop_goes_on_after_its_connection_is_terminated():
    process = subprocess.Popen(
        [sys.executable, "manage.py", "sweep", "--every", "0.2"],
        cwd=ROOT,
        env={
            **os.environ,
            "DATABASE_URL": database_url(current_database()),
            "PYTHONUNBUFFERED": "1",
            "CELERY_TASK_ALWAYS_EAGER": "1",
            "CONN_MAX_AGE": "600",  # one connection kept between rounds, as by default
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        next_sweep_line(process)
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_backend_pid()")
            (mine,) = cursor.fetchone()
        # Every other connection to this test's database: the sweep's, as a failover does.
        with psycopg.connect(database_url("postgres"), autocommit=True) as admin:
            terminated = admin.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
                " WHERE datname = %s AND pid <> %s",
                [current_database(), mine],
            ).fetchall()
        assert terminated
        # Two more rounds: the one the termination broke (logged, or on a new connection)
        # did not end the loop.
        next_sweep_line(process)
        next_sweep_line(process)
        assert process.poll() is None
    finally:
        process.kill()
        process.wait()
