"""The backup and restore scripts (`make backup`, `make restore`, docker-compose.yml's backup
service) on their own: what they refuse, what they keep, how the scheduled one stops. The restore
drill of a database full of games is tests/ops/test_restore_drill.py."""

from __future__ import annotations

import os
import shlex
import signal
import stat
import subprocess
import time
from pathlib import Path

import psycopg
import pytest
import yaml

from tests.support.databases import (
    ROOT,
    SCRIPTS,
    current_database,
    database_url,
    drop_database,
    run_script,
)

DAY = 24 * 3600


@pytest.fixture
def scratch(db):
    """The name of a database beside the test database, absent before and after the test."""
    name = f"{current_database()}_scratch"
    drop_database(name)
    yield name
    drop_database(name)


@pytest.fixture
def dump(db, tmp_path) -> Path:
    """A dump of the test database, by the backup script."""
    made = run_script(
        "backup.sh",
        DATABASE_URL=database_url(current_database()),
        BACKUP_DIR=str(tmp_path / "made"),
    )
    assert made.returncode == 0, made.stderr
    return Path(made.stdout.strip())


def tables(name: str) -> set[str]:
    with psycopg.connect(database_url(name)) as conn:
        rows = conn.execute(
            "select tablename from pg_tables where schemaname = 'public'"
        ).fetchall()
    return {row[0] for row in rows}


def test_a_dump_restores_into_a_new_database_and_never_over_one_with_tables(dump, scratch):
    assert dump.name.startswith(f"{current_database()}-") and dump.suffix == ".dump"
    assert stat.S_IMODE(dump.stat().st_mode) == 0o600
    url = database_url(scratch)

    restored = run_script("restore.sh", str(dump), DATABASE_URL=url)
    assert restored.returncode == 0, restored.stderr
    assert f"created database {scratch}" in restored.stderr
    assert {"games_game", "games_logentry", "ratings_rating"} <= tables(scratch)

    # A table of its own marks the database: a refused restore leaves it there.
    with psycopg.connect(url) as conn:
        conn.execute("create table kept_here (id int)")
    again = run_script("restore.sh", str(dump), DATABASE_URL=url)
    assert again.returncode == 1
    assert f"database {scratch} on" in again.stderr and "is not empty" in again.stderr
    assert "RESTORE_FORCE=1" in again.stderr
    assert "kept_here" in tables(scratch)

    forced = run_script("restore.sh", str(dump), DATABASE_URL=url, RESTORE_FORCE="1")
    assert forced.returncode == 0, forced.stderr
    assert "kept_here" not in tables(scratch)
    assert "games_game" in tables(scratch)


def test_a_restore_that_fails_leaves_the_database_as_it_was(dump, scratch, tmp_path):
    """Even with RESTORE_FORCE=1, whose drop of the public schema goes in the restore's
    transaction: here the dump's other schema is in the way."""
    url = database_url(scratch)
    assert run_script("restore.sh", str(dump), DATABASE_URL=url).returncode == 0
    with psycopg.connect(url) as conn:
        conn.execute("create schema extra")
    made = run_script("backup.sh", DATABASE_URL=url, BACKUP_DIR=str(tmp_path / "with-extra"))
    assert made.returncode == 0, made.stderr
    before = tables(scratch)

    failed = run_script("restore.sh", made.stdout.strip(), DATABASE_URL=url, RESTORE_FORCE="1")
    assert failed.returncode == 1
    assert 'schema "extra" already exists' in failed.stderr
    assert f"the restore failed; database {scratch} was left as it was" in failed.stderr
    assert tables(scratch) == before and "games_game" in before


@pytest.mark.parametrize(
    ("make_file", "message"),
    [
        (None, "no dump at"),
        (lambda path: path.write_text("select 1;\n"), "is not a dump in pg_dump's custom format"),
    ],
)
def test_what_is_not_a_dump_is_refused(tmp_path, make_file, message):
    path = tmp_path / "latest.dump"
    if make_file:
        make_file(path)
    refused = run_script("restore.sh", str(path), DATABASE_URL="postgres://nobody@127.0.0.1/x")
    assert refused.returncode == 1
    assert message in refused.stderr


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("", "DATABASE_URL is not set"),
        ("sqlite:///db.sqlite3", "not a PostgreSQL database (sqlite)"),
    ],
)
def test_the_backup_says_what_it_cannot_dump(tmp_path, url, message):
    refused = run_script("backup.sh", DATABASE_URL=url, BACKUP_DIR=str(tmp_path))
    assert refused.returncode == 1
    assert message in refused.stderr
    assert not list(tmp_path.iterdir())


def test_dumps_older_than_the_kept_days_go_after_a_dump_that_worked(db, tmp_path):
    name = current_database()
    now = time.time()

    def dump_file(file: str, days_old: float) -> Path:
        path = tmp_path / file
        path.write_bytes(b"")
        os.utime(path, (now - days_old * DAY, now - days_old * DAY))
        return path

    old = dump_file(f"{name}-20250101T000000Z.dump", 15)
    recent = dump_file(f"{name}-20250110T000000Z.dump", 13)
    others = dump_file("another-20250101T000000Z.dump", 30)

    # A dump that fails deletes nothing.
    failed = run_script(
        "backup.sh",
        DATABASE_URL=database_url(name) + "_missing",
        BACKUP_DIR=str(tmp_path),
        BACKUP_KEEP_DAYS="14",
    )
    assert failed.returncode == 1 and "failed; the older dumps are kept" in failed.stderr
    assert old.exists() and not list(tmp_path.glob("*.partial"))

    made = run_script(
        "backup.sh",
        DATABASE_URL=database_url(name),
        BACKUP_DIR=str(tmp_path),
        BACKUP_KEEP_DAYS="14",
    )
    assert made.returncode == 0, made.stderr
    assert not old.exists()
    assert recent.exists() and others.exists() and Path(made.stdout.strip()).exists()
    assert f"deleted {old}" in made.stderr


def test_the_scheduled_backup_dumps_at_once_then_stops_on_sigterm(db, tmp_path):
    """docker-compose.yml's service: the first dump at start, then a wait that a stop ends."""
    loop = subprocess.Popen(
        [str(SCRIPTS / "backup.sh"), "--every", str(DAY)],
        cwd=ROOT,
        env={
            **os.environ,
            "DATABASE_URL": database_url(current_database()),
            "BACKUP_DIR": str(tmp_path),
        },
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = Path(loop.stdout.readline().strip())  # its path, once it is written
        assert first.exists()
        loop.send_signal(signal.SIGTERM)
        assert loop.wait(timeout=10) == 143
    finally:
        if loop.poll() is None:
            loop.kill()
    assert "stopped" in loop.stderr.read()
    assert [p.name for p in tmp_path.iterdir()] == [first.name]


# -- docker-compose.yml and the Makefile run the same script ---------------------------------------


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def test_the_compose_backup_service_runs_the_backup_script_against_the_sites_database():
    services = compose()["services"]
    backup = services["backup"]
    words = (
        backup["command"] if isinstance(backup["command"], list) else shlex.split(backup["command"])
    )
    assert words[0] == "/scripts/backup.sh" and words[1] == "--every"
    assert "./scripts:/scripts:ro" in backup["volumes"]
    env = backup["environment"]
    assert env["DATABASE_URL"] == compose()["x-env"]["DATABASE_URL"]
    # pg_dump of the server's major version, from the same image.
    assert backup["image"].split(":")[1] == services["postgres"]["image"].split(":")[1]
    volume = next(v.split(":")[0] for v in backup["volumes"] if v.endswith(f":{env['BACKUP_DIR']}"))
    assert volume in compose()["volumes"]
    assert "BACKUP_KEEP_DAYS" in env


def test_make_backup_and_restore_run_the_same_scripts():
    dry = subprocess.run(
        ["make", "-n", "backup", "restore", "DUMP=backups/x.dump"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert "scripts/backup.sh" in dry and "scripts/restore.sh 'backups/x.dump'" in dry
