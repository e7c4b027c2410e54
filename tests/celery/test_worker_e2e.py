"""A real Celery worker, a real Redis broker: the computer opponent's move is played by the worker.

The worker is a subprocess pointed at this test run's database; this process sends tasks to
Redis instead of running them in-process. Needs Redis on 127.0.0.1:6379 (CI starts it); without
it the test is skipped locally and fails on CI.
"""

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from urllib.parse import quote

import pytest
from django.db import connection
from rest_framework.test import APIClient

from azul_site.celery import app
from games.models import Game, LogEntry
from tests.games.conftest import games_url

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

BROKER_URL = os.environ.get("TEST_CELERY_BROKER_URL", "redis://127.0.0.1:6379/5")
ROOT = Path(__file__).resolve().parents[2]


def redis_answers() -> bool:
    import redis

    try:
        return bool(redis.Redis.from_url(BROKER_URL, socket_connect_timeout=2).ping())
    except redis.RedisError:
        return False


def worker_database_url() -> str:
    db = connection.settings_dict
    auth = quote(db["USER"] or "", safe="")
    if db.get("PASSWORD"):
        auth += ":" + quote(db["PASSWORD"], safe="")
    host = db.get("HOST") or "127.0.0.1"
    port = db.get("PORT") or 5432
    return f"postgres://{auth}@{host}:{port}/{db['NAME']}"


def reset_broker_pools() -> None:
    """Drop the app's broker connection pools, so the next send connects to the broker now set."""
    if app._pool is not None:
        app._pool.force_close_all()
    app._after_fork()


@pytest.fixture
def celery_worker(tmp_path):
    if not redis_answers():
        if os.environ.get("CI"):
            pytest.fail(f"Redis is not answering at {BROKER_URL}")
        pytest.skip(f"Redis is not answering at {BROKER_URL}")
    queue = f"test-{uuid.uuid4().hex[:12]}"  # our own queue: no other run's worker takes our task
    env = {
        **os.environ,
        "DATABASE_URL": worker_database_url(),
        "CELERY_BROKER_URL": BROKER_URL,
        "CELERY_TASK_ALWAYS_EAGER": "0",
        "DEBUG": "1",
    }
    env.pop("REDIS_URL", None)
    log = tmp_path / "worker.log"
    with log.open("w") as out:
        worker = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "azul_site",
                "worker",
                "--pool=solo",
                "-c",
                "1",
                "-Q",
                queue,
                "--without-gossip",
                "--without-mingle",
                "--without-heartbeat",
                "--loglevel=INFO",
            ],
            cwd=ROOT,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    saved = {
        key: app.conf.get(key) for key in ("task_always_eager", "broker_url", "task_default_queue")
    }
    try:
        deadline = time.monotonic() + 30
        while "ready." not in log.read_text():
            assert worker.poll() is None, f"the worker died:\n{log.read_text()}"
            assert time.monotonic() < deadline, f"the worker did not start:\n{log.read_text()}"
            time.sleep(0.2)
        app.conf.update(task_always_eager=False, broker_url=BROKER_URL, task_default_queue=queue)
        reset_broker_pools()
        yield log
    finally:
        app.conf.update(saved)
        reset_broker_pools()
        worker.terminate()
        try:
            worker.wait(timeout=15)
        except subprocess.TimeoutExpired:
            worker.kill()
            worker.wait(timeout=5)
        try:
            import redis

            redis.Redis.from_url(BROKER_URL).delete(queue)
        except Exception:  # noqa: BLE001 - cleanup is best effort
            pass


def computer_moves(game_id) -> int:
    return LogEntry.objects.filter(game_id=game_id, kind="move", player=1).count()


def test_the_worker_plays_the_computers_move(celery_worker, alice):
    client = APIClient()
    client.force_authenticate(alice)
    response = client.post(
        games_url(), {"players": 2, "seats": [{"kind": "computer"}]}, format="json"
    )
    assert response.status_code == 201, response.json()
    game = response.json()
    assert game["status"] == "active"

    if game["to_move"] == [0]:
        # Alice starts: she moves, and then the computer must answer.
        legal = client.get(games_url(game["id"], "legal-moves")).json()
        response = client.post(
            games_url(game["id"], "moves"),
            {"move": legal["legal_moves"][0], "expected_ply": legal["ply"]},
            format="json",
        )
        assert response.status_code == 201
        # This process queued the task and did not run it.
        assert response.json()["to_move"] == [1]

    deadline = time.monotonic() + 30
    while computer_moves(game["id"]) == 0:
        assert time.monotonic() < deadline, (
            f"the worker did not move within 30 s:\n{celery_worker.read_text()}"
        )
        time.sleep(0.25)

    row = Game.objects.get(pk=game["id"])
    assert row.state["current"] == 0 or row.state["phase"] != "take"
    assert "games.tasks.computer_move" in celery_worker.read_text()
