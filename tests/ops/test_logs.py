"""Structured logs (issue #31): with LOG_FORMAT=json every event is one JSON line with time,
level, logger and message, the game's id where there is one and the request's id and path
during a request; and nothing secret reaches the logs."""

from __future__ import annotations

import copy
import io
import json
import logging.config
import re
from pathlib import Path

import pytest
from django.conf import settings as django_settings
from rest_framework.test import APIClient

from accounts import services as account_services
from core.ops import log_context
from core.tasks import sweep
from games.models import Game
from tests.support import factories
from tests.support.play import play_forward
from tests.support.processes import python_with_settings
from tests.support.urls import games_url

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def json_log():
    """The site's own logging configuration with LOG_FORMAT=json, its console into a buffer."""
    buffer = io.StringIO()
    config = copy.deepcopy(django_settings.LOGGING)
    config["handlers"]["console"].update(formatter="json", stream=buffer)
    logging.config.dictConfig(config)
    yield buffer
    logging.config.dictConfig(django_settings.LOGGING)


def lines(buffer: io.StringIO) -> list[dict]:
    return [json.loads(line) for line in buffer.getvalue().splitlines()]


@pytest.mark.django_db(transaction=True)
def test_a_move_logs_one_json_line_with_its_game_and_request(alice, json_log):
    game = factories.against_computer(alice)
    _, key = account_services.token_create(user=alice, name="bot")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    api.defaults["HTTP_X_REQUEST_ID"] = "proxy-req-42"
    play_forward(game, moves=2, how="api", clients={"alice": api})

    records = lines(json_log)  # every line is JSON, or this fails
    moves = [r for r in records if r["message"].startswith(f"game {game.id}: moves accepted")]
    person = [r for r in moves if r["moves"] == {"person": 1}]
    assert person, records
    line = person[0]
    assert {"time", "level", "logger", "message"} <= line.keys()
    assert line["level"] == "INFO" and line["logger"] == "games.services.playing"
    assert line["game_id"] == str(game.id)
    assert line["request_id"] == "proxy-req-42"
    assert line["path"] == games_url(game.id, "moves")
    assert line["time"].endswith("+00:00")
    # The computer's answer, played by its task after the commit (in-process here; by a worker
    # in tests/celery/test_request_id_e2e.py), says so too, with the request's id.
    assert any(
        r["moves"] == {"computer": 1}
        and r["game_id"] == str(game.id)
        and r.get("request_id") == "proxy-req-42"
        for r in moves
    )


@pytest.mark.django_db(transaction=True)
def test_no_secret_reaches_the_logs(alice, bob, client, json_log):
    """A whole game, a failed and a good sign-in and an API token: the log holds none of the
    deal seed, the password or the token."""
    wrong = client.post("/accounts/login/", {"login": "alice", "password": "not-it"})
    assert wrong.status_code == 200
    right = client.post("/accounts/login/", {"login": "alice", "password": factories.PASSWORD})
    assert right.status_code == 302
    _, key = account_services.token_create(user=alice, name="bot")
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert api.get(games_url()).status_code == 200
    game = factories.start_game(alice, bob)
    seed = Game.objects.get(pk=game.id).deal_seed
    assert seed
    finished = play_forward(game, until=lambda g: g.status == Game.Status.FINISHED, limit=400)
    assert finished.status == Game.Status.FINISHED

    output = json_log.getvalue()
    assert f"game {game.id}: moves accepted" in output
    for secret in (seed, factories.PASSWORD, "not-it", key):
        assert secret not in output


@pytest.mark.django_db
def test_a_request_log_carries_the_request_id_not_the_request(client, json_log):
    response = client.get("/no-such-page/", headers={"X-Request-ID": "bad id\nforged: line"})
    assert response.status_code == 404
    rid = response["X-Request-ID"]
    assert len(rid) == 32  # a new one: what the client sent is no id
    (line,) = [r for r in lines(json_log) if r["logger"] == "django.request"]
    assert line["request_id"] == rid and line["path"] == "/no-such-page/"
    assert line["level"] == "WARNING" and line["status_code"] == 404
    assert "request" not in line


@pytest.mark.parametrize(
    "given, kept",
    [
        ("0f3c2a9be1d84c5f9a7e6b1d2c3e4f50", True),  # nginx's
        ("req.42_a-b", True),
        ("x" * 64, True),
        ("x" * 65, False),
        ("", False),
        ("caf\u00e9", False),
        ("a b", False),
    ],
)
@pytest.mark.django_db
def test_an_incoming_request_id_is_taken_only_when_well_formed(client, given, kept):
    rid = client.get("/healthz", headers={"X-Request-ID": given})["X-Request-ID"]

    if kept:
        assert rid == given
    else:
        assert re.fullmatch(r"[0-9a-f]{32}", rid), rid


def test_a_task_takes_the_id_its_message_carries_and_the_next_task_does_not():
    assert log_context.request_id.get() is None
    for header, taken in (("req-7", "req-7"), ("forged\nline", None)):
        sweep.push_request(id="task-1", azul_request_id=header)
        try:
            log_context.task_request_id_restore(task_id="task-1", task=sweep)
            assert log_context.request_id.get() == taken
            headers: dict[str, object] = {}
            log_context.task_headers_add_request_id(headers=headers)
            # The tasks it sends carry it on.
            assert headers == ({} if taken is None else {log_context.TASK_HEADER: taken})
        finally:
            log_context.task_request_id_forget(task_id="task-1")
            sweep.pop_request()
        assert log_context.request_id.get() is None


def test_log_format_is_plain_unless_set_and_refuses_anything_else():
    check = "from django.conf import settings; print(settings.LOGGING['handlers']['console'])"
    for value, expected in (("", "'plain'"), ("json", "'json'")):
        env = {"LOG_FORMAT": value} if value else {}
        done = python_with_settings(check, env, without=("LOG_FORMAT",))
        assert done.returncode == 0, done.stderr
        assert f"'formatter': {expected}" in done.stdout
    refused = python_with_settings(check, {"LOG_FORMAT": "xml"})
    assert refused.returncode != 0
    assert "LOG_FORMAT must be plain or json" in refused.stderr
