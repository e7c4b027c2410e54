"""/metrics (issue #31, "What operators see"): in Prometheus' text format, for the scraper
alone, with the site's own metrics counted where things happen and the queues and outbox read
when it scrapes; a broker down or hung never breaks the scrape."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time
from datetime import timedelta
from pathlib import Path

import pytest
import time_machine
from django.utils import timezone
from prometheus_client import REGISTRY
from prometheus_client.parser import text_string_to_metric_families

from core.ops import metrics
from games import live, selectors, services
from games.errors import IllegalMoveError
from games.models import LogEntry
from notifications.models import Notification
from tests.support import factories
from tests.support.outage import RedisServer, closed_port, hung_server
from tests.support.play import play_forward, to_move_user

ROOT = Path(__file__).resolve().parents[2]
SCRAPER = "127.0.0.1"
ELSEWHERE = "203.0.113.7"


def sample(name: str, **labels: str) -> float:
    return REGISTRY.get_sample_value(name, labels) or 0.0


def scrape(client, address: str = SCRAPER, **headers: str):
    return client.get("/metrics", REMOTE_ADDR=address, headers=headers)


def scraped(client) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """The samples of one scrape: (name, labels) -> value."""
    response = scrape(client)
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/plain; version=")
    return {
        (s.name, tuple(sorted(s.labels.items()))): s.value
        for family in text_string_to_metric_families(response.content.decode())
        for s in family.samples
    }


# -- who may scrape ----------------------------------------------------------------------------


@pytest.mark.django_db
def test_metrics_answer_the_allowed_addresses_and_the_token_only(client, settings):
    settings.METRICS_ALLOWED_IPS = ["127.0.0.1", "::1", "10.0.0.0/8"]
    settings.METRICS_TOKEN = "scrape-secret"

    # Anyone else: as if there were no such page, whatever X-Forwarded-For says.
    hidden = scrape(client, ELSEWHERE, **{"X-Forwarded-For": "127.0.0.1"})
    assert hidden.status_code == 404
    assert b"azul_" not in hidden.content
    wrong = scrape(client, ELSEWHERE, Authorization="Bearer guessed")
    assert wrong.status_code == 403
    assert b"azul_" not in wrong.content

    for allowed in ("127.0.0.1", "::1", "10.20.30.40"):
        assert scrape(client, allowed).status_code == 200, allowed
    with_token = scrape(client, ELSEWHERE, Authorization="Bearer scrape-secret")
    assert with_token.status_code == 200
    assert b"django_http_requests_latency_seconds_by_view_method" in with_token.content


@pytest.mark.django_db
def test_without_a_token_setting_no_token_opens_the_metrics(client, settings):
    settings.METRICS_TOKEN = ""
    assert scrape(client, ELSEWHERE, Authorization="Bearer ").status_code == 403
    assert scrape(client, ELSEWHERE, Authorization="Bearer anything").status_code == 403
    assert scrape(client, ELSEWHERE).status_code == 404


# -- what is counted ---------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_moves_are_counted_once_committed_by_who_made_them(alice, bob):
    """Each accepted move counts once, as the person's, the computer's or the server's at a
    timeout; the computer's answers are timed by level."""
    before = {kind: sample("azul_moves_total", kind=kind) for kind in metrics.MOVE_KINDS}
    answers = sample("azul_computer_answer_seconds_count", level="greedy")

    # The computer's answers come from its task, run in-process when alice's moves commit.
    computer_game = play_forward(factories.against_computer(alice), moves=3)
    timed_out = play_forward(factories.start_game(alice, bob), moves=2)
    with time_machine.travel(timed_out.turn_deadline + timedelta(minutes=1), tick=False):
        assert services.timeouts_play(game_id=timed_out.id, expected_ply=timed_out.ply)

    logged = {kind: 0 for kind in metrics.MOVE_KINDS}
    for game in (computer_game, timed_out):
        seats = {s.position: s for s in selectors.game_get(game_id=game.id).seat_list}
        for entry in LogEntry.objects.filter(game=game, kind=LogEntry.Kind.MOVE):
            if entry.data.get("timeout"):
                logged["timeout"] += 1
            else:
                logged["computer" if seats[entry.player].user_id is None else "person"] += 1
    assert logged["person"] and logged["computer"] and logged["timeout"]
    after = {kind: sample("azul_moves_total", kind=kind) for kind in metrics.MOVE_KINDS}
    assert {kind: after[kind] - before[kind] for kind in after} == logged
    assert (
        sample("azul_computer_answer_seconds_count", level="greedy") - answers
        == (logged["computer"])
    )


@pytest.mark.django_db
def test_a_refused_move_is_not_counted(alice, bob):
    game = factories.start_game(alice, bob)
    before = sample("azul_moves_total", kind="person")
    with pytest.raises(IllegalMoveError):
        services.move_submit(
            game_id=game.id, user=to_move_user(game), move="C red 1", expected_ply=game.ply
        )
    assert sample("azul_moves_total", kind="person") == before


@pytest.mark.django_db
def test_each_sweep_is_timed(django_capture_on_commit_callbacks):
    from analysis import tasks as analysis_tasks
    from games import tasks as games_tasks
    from notifications import tasks as notifications_tasks
    from ratings import tasks as ratings_tasks

    for name, task in (
        ("games", games_tasks.sweep),
        ("notifications", notifications_tasks.sweep),
        ("analysis", analysis_tasks.sweep),
        ("ratings", ratings_tasks.sweep),
    ):
        before = sample("azul_sweep_duration_seconds_count", sweep=name)
        task()
        assert sample("azul_sweep_duration_seconds_count", sweep=name) == before + 1, name


@pytest.mark.django_db(transaction=True)
def test_live_waits_held_are_a_gauge(alice, bob):
    game = factories.start_game(alice, bob)
    version = selectors.game_version(game_id=game.id, viewer=alice)
    held = sample("azul_live_waits")
    waiting = threading.Thread(target=live.watcher.watch.wait, args=(version, 20))
    waiting.start()
    try:
        deadline = time.monotonic() + 5
        while sample("azul_live_waits") < held + 1 and time.monotonic() < deadline:
            time.sleep(0.02)
        assert sample("azul_live_waits") == held + 1
    finally:
        live.watcher.watch.wake_all()
        waiting.join(5)
    assert sample("azul_live_waits") == held


@pytest.mark.django_db
def test_the_outbox_backlog_is_read_when_scraped(client, alice, bob):
    game = factories.start_game(alice, bob)
    now = timezone.now()
    Notification.objects.all().delete()
    rows = [
        # Due for ten minutes and not sent: the backlog.
        (Notification.Kind.YOUR_TURN, "pending", now - timedelta(minutes=10), 1),
        (Notification.Kind.YOUR_TURN, "pending", now - timedelta(minutes=1), 2),
        (Notification.Kind.REMINDER, "pending", now - timedelta(seconds=5), 3),
        # Not due yet (a grace period), and done with: not the backlog.
        (Notification.Kind.YOUR_TURN, "pending", now + timedelta(minutes=2), 4),
        (Notification.Kind.YOUR_TURN, "sent", now - timedelta(hours=1), 5),
        (Notification.Kind.GAME_OVER, "failed", now - timedelta(hours=1), 6),
    ]
    Notification.objects.bulk_create(
        Notification(recipient=alice, game=game, ply=ply, kind=kind, status=status, send_after=at)
        for kind, status, at, ply in rows
    )
    samples = scraped(client)
    assert samples[("azul_outbox_due", (("kind", "your_turn"),))] == 2
    assert samples[("azul_outbox_due", (("kind", "reminder"),))] == 1
    assert samples[("azul_outbox_due", (("kind", "game_over"),))] == 0
    assert 600 <= samples[("azul_outbox_oldest_due_seconds", ())] < 660


@pytest.mark.django_db
def test_a_failure_for_good_is_counted(alice, bob, settings):
    from notifications import outbox

    game = factories.start_game(alice, bob)
    settings.NOTIFY_MAX_ATTEMPTS = 1
    row = Notification.objects.create(
        recipient=alice, game=game, ply=game.ply, kind="game_over", attempts=1
    )
    before = sample("azul_outbox_failures_total", kind="game_over")
    outbox.record_failure(row, outbox.Outcome(sent=False, error="mail server away", retry=True))
    outbox.record_failure(
        row, outbox.Outcome(sent=False, error="the same failure, told twice", retry=True)
    )
    assert Notification.objects.get(pk=row.pk).status == "failed"
    assert sample("azul_outbox_failures_total", kind="game_over") == before + 1


# -- the queues, read from the broker ----------------------------------------------------------


@pytest.fixture
def redis_server():
    server = RedisServer()
    server.start()
    yield server
    server.stop()


@pytest.mark.django_db
def test_queue_depths_are_read_from_the_broker(client, settings, redis_server):
    import redis

    settings.CELERY_BROKER_URL = redis_server.url
    broker = redis.Redis.from_url(redis_server.url)
    broker.lpush("moves", *[b"task"] * 3)
    broker.lpush("mail", b"task")
    broker.lpush("mail\x06\x163", b"task")  # a priority message of kombu's
    samples = scraped(client)
    assert samples[("azul_broker_up", ())] == 1
    depth = {
        dict(labels)["queue"]: value
        for (name, labels), value in samples.items()
        if name == "azul_queue_depth"
    }
    assert depth == {queue: 0 for queue in settings.WORKER_QUEUES} | {"moves": 3, "mail": 2}


@pytest.mark.django_db
@pytest.mark.parametrize("broker", ["down", "hung"])
def test_a_broker_down_or_hung_only_marks_the_broker_down(client, settings, broker):
    with hung_server() as hung:
        settings.CELERY_BROKER_URL = (
            hung if broker == "hung" else f"redis://127.0.0.1:{closed_port()}/0"
        )
        started = time.monotonic()
        samples = scraped(client)
        took = time.monotonic() - started
    assert samples[("azul_broker_up", ())] == 0
    assert not any(name == "azul_queue_depth" for name, _ in samples)
    assert ("azul_outbox_due", (("kind", "your_turn"),)) in samples
    assert took < 2, took


@pytest.mark.django_db
def test_without_a_broker_no_queue_is_reported(client, settings):
    settings.CELERY_BROKER_URL = "memory://"
    assert not any(name.startswith(("azul_broker", "azul_queue")) for name, _ in scraped(client))


# -- several processes -------------------------------------------------------------------------


def test_the_processes_of_one_server_are_added_up(tmp_path):
    """With PROMETHEUS_MULTIPROC_DIR (docker-compose.yml), what each of a server's worker
    processes counts is in the one /metrics; the live gauge counts the processes alive only."""
    env = {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(tmp_path), "PYTHONPATH": str(ROOT)}
    count = textwrap.dedent("""
        from core.ops import metrics
        metrics.MOVES.labels(kind="person").inc(2)
        metrics.LIVE_WAITS.inc()
    """)
    pids = []
    for _ in range(2):
        done = subprocess.run(
            [sys.executable, "-c", count + "print(__import__('os').getpid())"],
            env=env,
            capture_output=True,
            text=True,
            check=True,
            cwd=ROOT,
        )
        pids.append(int(done.stdout))
    read = textwrap.dedent(f"""
        from prometheus_client import generate_latest
        from core.ops import metrics
        metrics.process_exited({pids[0]})
        print(generate_latest(metrics.multiprocess_registry()).decode())
    """)
    done = subprocess.run(
        [sys.executable, "-c", read], env=env, capture_output=True, text=True, check=True, cwd=ROOT
    )
    assert 'azul_moves_total{kind="person"} 4.0' in done.stdout
    assert "azul_live_waits 1.0" in done.stdout


def test_compose_serves_the_workers_metrics_in_their_network_only():
    compose = (ROOT / "docker-compose.yml").read_text()
    assert "PROMETHEUS_MULTIPROC_DIR: /tmp/metrics" in compose
    assert 'METRICS_PORT: "9100"' in compose
    assert "9100:" not in compose  # never published outside the stack
    nginx = (ROOT / "deploy" / "nginx.conf").read_text()
    assert "location = /metrics {\n        return 404;" in nginx


def test_a_celery_worker_with_a_metrics_port_serves_its_metrics(settings):
    import urllib.request

    from celery import signals

    settings.METRICS_PORT = closed_port()
    settings.METRICS_ADDRESS = "127.0.0.1"
    served = [
        response
        for _receiver, response in signals.celeryd_init.send(sender="probe@host", instance=None)
        if response is not None
    ]
    try:
        url = f"http://127.0.0.1:{settings.METRICS_PORT}/metrics"
        with urllib.request.urlopen(url, timeout=5) as response:
            body = response.read().decode()
    finally:
        for server in served:
            server.shutdown()
            server.server_close()
    assert "azul_moves_total" in body or "# TYPE azul_moves counter" in body
    assert "azul_computer_answer_seconds" in body
