"""Queues by kind of work: computer moves, the slow level's moves, emails, sweeps and analyses
each have a queue (settings' `CELERY_TASK_ROUTES`), and each queue its worker in
docker-compose.yml, so that emails and the minute's sweeps never wait behind computer moves."""

import shlex
from pathlib import Path

import pytest
import yaml
from django.conf import settings

from analysis.services import ANALYSIS_QUEUE
from azul_site.celery import app
from games.follow_ups import SLOW_LANES, computer_move_task

ROOT = Path(__file__).resolve().parents[2]


def queue_of(task: str, queue: str | None = None) -> str:
    """The queue Celery sends `task` to (as `core.tasks.send` does: an explicit queue wins)."""
    options = {"queue": queue} if queue else {}
    route = app.amqp.router.route(options, task, args=(), kwargs={})
    return route["queue"].name


@pytest.mark.parametrize(
    ("task", "queue"),
    [
        ("games.tasks.computer_move", "moves"),
        ("games.tasks.slow_computer_move", "slow_moves"),
        ("games.tasks.play_timeouts", "sweeps"),
        ("games.tasks.sweep", "sweeps"),
        ("notifications.tasks.sweep", "sweeps"),
        ("analysis.tasks.sweep", "sweeps"),
        ("ratings.tasks.sweep", "sweeps"),
        ("core.tasks.sweep", "sweeps"),
        ("notifications.tasks.send_notification", "mail"),
        ("notifications.tasks.send_event", "mail"),
        ("analysis.tasks.analyse_game", "analysis"),
    ],
)
def test_each_kind_of_work_has_its_queue(task, queue):
    assert queue_of(task) == queue


def test_the_slow_levels_moves_go_to_their_own_queue():
    assert queue_of(*computer_move_task("strong")[:2]) == "slow_moves"
    assert queue_of(*computer_move_task("master")[:2]) == "master_moves"
    for quick in ("random", "greedy", "medium"):
        assert queue_of(*computer_move_task(quick)[:2]) == "moves"


def test_every_task_of_the_site_is_routed():
    """A new task gets a queue of its kind, not Celery's default one that nobody watches."""
    ours = {
        name
        for name in app.tasks
        if name.split(".")[0] in ("games", "notifications", "analysis", "ratings")
    }
    assert ours, "the site's tasks are registered"
    assert ours <= set(settings.CELERY_TASK_ROUTES), ours - set(settings.CELERY_TASK_ROUTES)


def routed_queues() -> set[str]:
    return {route["queue"] for route in settings.CELERY_TASK_ROUTES.values()} | {
        *SLOW_LANES.values(),
        ANALYSIS_QUEUE,
    }


def compose_worker_queues(text: str) -> dict[str, set[str]]:
    """Each docker-compose service running `celery ... worker`, with the queues of its `-Q`."""
    workers = {}
    for name, service in yaml.safe_load(text)["services"].items():
        command = service.get("command") or ""
        words = shlex.split(command if isinstance(command, str) else shlex.join(command))
        if "celery" not in words or "worker" not in words:
            continue
        queues: set[str] = set()
        for i, word in enumerate(words):
            if word in ("-Q", "--queues") and i + 1 < len(words):
                queues |= set(words[i + 1].split(","))
            elif word.startswith("--queues="):
                queues |= set(word.split("=", 1)[1].split(","))
        # Without -Q a worker takes every queue the settings declare.
        workers[name] = queues or set(settings.WORKER_QUEUES)
    return workers


def test_every_queue_the_code_routes_to_has_a_worker_in_docker_compose():
    served = set().union(*compose_worker_queues((ROOT / "docker-compose.yml").read_text()).values())
    assert routed_queues() <= served, f"no worker for {routed_queues() - served}"


def test_mail_and_sweeps_have_workers_of_their_own():
    """No worker of computer moves also takes the mail or the sweeps: they never wait behind it."""
    workers = compose_worker_queues((ROOT / "docker-compose.yml").read_text())
    for queues in workers.values():
        if queues & {"moves", "slow_moves", "master_moves", "analysis"}:
            assert not queues & {"mail", "sweeps"}, queues


def test_the_compose_check_finds_a_missing_worker():
    text = """
services:
  worker:
    command: celery -A azul_site worker -Q moves,celery --loglevel=INFO
  worker-slow:
    command: celery -A azul_site worker -Q slow_moves
"""
    served = set().union(*compose_worker_queues(text).values())
    assert routed_queues() - served == {"master_moves", "mail", "sweeps", "analysis"}


def test_a_worker_without_queues_takes_them_all():
    """`make worker` (no -Q), for development: every queue the code routes to."""
    assert routed_queues() <= {queue.name for queue in app.amqp.queues.values()}
    assert routed_queues() <= set(settings.WORKER_QUEUES)


def test_a_task_goes_to_one_queue_only():
    """Each queue is bound by its own name: a queue declared without it would be bound to the
    default exchange and key, and every task would land in every queue."""
    for queue in app.amqp.queues.values():
        assert queue.routing_key == queue.name and queue.exchange.name == queue.name, queue
