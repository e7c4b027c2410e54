"""The id of a request goes with the tasks it sends (#66): the worker's log lines of the
computer's answer to a move, sent to a real worker through a real broker, carry the id of the
move's request, as the proxy set it (deploy/nginx.conf) or the site made it
(`core.ops.log_context`)."""

from __future__ import annotations

import json

import pytest

from tests.support.play import first_legal_move
from tests.support.urls import games_url
from tests.support.workers import against_computer_to_move, computer_moved_at, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# As nginx's $request_id: 32 hexadecimal digits.
PROXY_ID = "0f3c2a9be1d84c5f9a7e6b1d2c3e4f50"


def json_lines(log: str) -> list[dict]:
    return [json.loads(line) for line in log.splitlines() if line.startswith("{")]


def test_the_workers_lines_of_a_task_carry_the_id_of_the_request_that_sent_it(
    redis_server, start_worker, api_client_for, alice
):
    game = against_computer_to_move(alice)
    worker = start_worker(redis_server.url, LOG_FORMAT="json")
    _, move, ply = first_legal_move(game.id)

    response = api_client_for(alice).post(
        games_url(game.id, "moves"),
        {"move": move, "expected_ply": ply},
        format="json",
        headers={"X-Request-ID": PROXY_ID},
    )

    assert response.status_code == 201, response.json()
    assert response["X-Request-ID"] == PROXY_ID
    computers_ply = response.json()["ply"]
    wait_for(
        lambda: computer_moved_at(game.id, computers_ply),
        30,
        lambda: f"the worker did not move within 30 s:\n{worker.log()}",
    )
    moved = f"game {game.id}: moves accepted, now at ply {computers_ply + 1}"
    records = wait_for(
        lambda: [r for r in json_lines(worker.log()) if r["message"].startswith(moved)],
        10,
        lambda: f"no JSON line {moved!r} in the worker's log:\n{worker.log()}",
    )
    assert [(r["request_id"], r["game_id"]) for r in records] == [(PROXY_ID, str(game.id))]
    assert "path" not in records[0]  # the worker served no path
