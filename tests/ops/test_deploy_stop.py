"""A deploy stops every process with SIGTERM: the site's gunicorn finishes the requests in hand and
takes no new connections; docker-compose gives each service longer than its longest request or
task before it kills it, and the signal reaches the server rather than a shell."""

from __future__ import annotations

import json
import re
import runpy
import signal
import threading
from pathlib import Path

import pytest
import yaml
from django.db import connection, transaction

from accounts.services import token_create
from games.models import Game
from tests.support.gunicorn import gunicorn, refuses_connections
from tests.support.play import first_legal_move, to_move_user
from tests.support.urls import games_url
from tests.support.workers import wait_for

ROOT = Path(__file__).resolve().parents[2]
EXIT_SECONDS = 10


def blocked_on_a_lock() -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_clear_snapshot()")  # the view is kept per transaction
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()"
            " AND pid <> pg_backend_pid() AND wait_event_type = 'Lock'"
        )
        return cursor.fetchone()[0] > 0


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_sigterm_finishes_the_requests_in_hand_and_refuses_new_connections(
    start_game, alice, bob, tmp_path
):
    game = start_game(alice, bob)
    _, move, ply = first_legal_move(game.id)
    token = token_create(user=to_move_user(Game.objects.get(pk=game.id)))[1]
    answers: list[tuple[int, dict]] = []

    with gunicorn("azul_site.wsgi:application", tmp_path / "web.log") as server:

        def play() -> None:
            connection = server.connect()
            body = json.dumps({"move": move, "expected_ply": ply})
            headers = {"Authorization": f"Token {token}", "Content-Type": "application/json"}
            connection.request("POST", games_url(game.id, "moves"), body, headers)
            response = connection.getresponse()
            answers.append((response.status, json.loads(response.read())))
            connection.close()

        player = threading.Thread(target=play)
        with transaction.atomic():
            # Hold the game's row: the move is in hand, waiting for it, when the stop comes.
            Game.objects.select_for_update().get(pk=game.id)
            player.start()
            wait_for(blocked_on_a_lock, 10, server.log)
            server.process.send_signal(signal.SIGTERM)
            wait_for(lambda: refuses_connections(server.port), 5, server.log)
            assert server.process.poll() is None, "gunicorn left a request in hand"
        player.join(10)
        assert server.process.wait(timeout=EXIT_SECONDS) == 0, server.log()

    [(status, body)] = answers
    assert status == 201, body
    assert body["ply"] == ply + 1
    assert Game.objects.get(pk=game.id).ply == ply + 1


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


def seconds(duration: str) -> float:
    """docker compose's duration ("1m30s", "40s") in seconds."""
    units = {"h": 3600, "m": 60, "s": 1}
    parts = re.findall(r"(\d+(?:\.\d+)?)(h|m|s)", duration)
    assert parts and "".join(n + u for n, u in parts) == duration, duration
    return sum(float(number) * units[unit] for number, unit in parts)


# An analysis's budget in production (settings' ANALYSIS_SECONDS_PER_GAME with a broker; the
# tests run without one, where it is shorter).
ANALYSIS_SECONDS_IN_PRODUCTION = 120.0
# An email's SMTP conversation: connecting, EHLO, MAIL, RCPT, DATA and QUIT, each up to
# EMAIL_TIMEOUT.
SMTP_STEPS = 6


def test_each_service_is_given_longer_than_its_longest_request_or_task_to_stop():
    from django.conf import settings

    from azul.ai.bots import LEVELS

    graceful = runpy.run_path(str(ROOT / "gunicorn.conf.py"))["graceful_timeout"]
    longest_move = max(level.budget or 0 for level in LEVELS.values())
    longest = {
        "web": graceful,
        "live": graceful,
        "worker": longest_move,
        "worker-slow": longest_move,
        "worker-master": longest_move,
        "worker-mail": SMTP_STEPS * settings.EMAIL_TIMEOUT,
        "worker-sweeps": longest_move,  # its timeout moves are greedy's: milliseconds
        "worker-analysis": ANALYSIS_SECONDS_IN_PRODUCTION,
    }
    services = compose()["services"]
    for name, task_seconds in longest.items():
        assert seconds(services[name]["stop_grace_period"]) > task_seconds, name
    workers = {name for name, s in services.items() if "celery" in str(s.get("command", ""))}
    assert workers - {"beat"} == set(longest) - {"web", "live"}


def test_the_servers_get_the_stop_signal_not_a_shell():
    for name, service in compose()["services"].items():
        command = service.get("command")
        if isinstance(command, str) and command.lstrip().startswith("sh -c"):
            # The last command replaces the shell: a shell passes no SIGTERM on.
            assert re.search(r"&&\s*exec\s", command), name
