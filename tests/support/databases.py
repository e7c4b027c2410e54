"""Databases beside the test database, for the backup and restore scripts: their URLs, the
scripts run as an operator runs them, the test's connection pointed at another database, and
dropping what a test made."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from urllib.parse import quote

import psycopg
from django.core.cache import caches
from django.db import connection
from psycopg import sql

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "scripts"


def current_database() -> str:
    """The name of this test process's database (per xdist worker, per DATABASE_URL)."""
    return connection.settings_dict["NAME"]


def database_url(name: str) -> str:
    """A URL of the database `name` on the test database's server, as DATABASE_URL takes it."""
    settings = connection.settings_dict
    user = quote(settings["USER"] or "", safe="")
    password = quote(settings["PASSWORD"] or "", safe="")
    credentials = f"{user}:{password}@" if password else f"{user}@" if user else ""
    host = settings["HOST"] or "localhost"
    port = f":{settings['PORT']}" if settings["PORT"] else ""
    return f"postgres://{credentials}{host}{port}/{name}"


def drop_database(name: str) -> None:
    """Drop `name` if it exists, whoever is still connected to it."""
    with psycopg.connect(database_url("postgres"), autocommit=True) as admin:
        admin.execute(
            sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name))
        )


def run_script(
    script: str, *args: str, timeout: float = 120, **env: str
) -> subprocess.CompletedProcess[str]:
    """scripts/`script` with `args`, the environment plus `env` (DATABASE_URL, BACKUP_DIR, ...),
    from the project folder as `make` runs it."""
    return subprocess.run(
        [str(SCRIPTS / script), *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@contextmanager
def using_database(name: str) -> Iterator[None]:
    """The test's connection on the database `name` (in a transactional test), as a process
    started with that DATABASE_URL would be: the caches that outlive a request emptied."""
    saved = connection.settings_dict["NAME"]
    connection.close()
    connection.settings_dict["NAME"] = name
    for cache in caches.all(initialized_only=True):
        cache.clear()
    try:
        yield
    finally:
        connection.close()
        connection.settings_dict["NAME"] = saved
