"""The live process as deployed: the site's ASGI application (azul_site/asgi.py) under uvicorn,
here in a thread. Waiting requests hold no worker: while many wait, another request is answered
at once, and one move wakes them all."""

import copy
import http.client
import socket
import threading
import time

import pytest

from accounts.services import token_create
from tests.support.play import first_move, mover_and_other, play_forward
from tests.support.urls import games_url

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

WAITERS = 40


@pytest.fixture
def asgi_server(settings):
    """(host, port) of uvicorn serving azul_site.asgi.application, with the database connections
    from a pool as in the live process; the test process's own settings are put back after."""
    import uvicorn
    from django.db import connections

    database = connections["default"].settings_dict
    saved = copy.deepcopy(database)
    connections["default"].close()  # opened without the pool: closed before it is set
    from azul_site import asgi

    asgi._pooled_connections()  # also when an earlier test imported it
    assert database["OPTIONS"]["pool"]["max_size"] == 8

    settings.ALLOWED_HOSTS = ["127.0.0.1"]
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(asgi.application, log_level="warning", lifespan="off"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started
    try:
        yield sock.getsockname()
    finally:
        server.should_exit = True
        thread.join(10)
        sock.close()
        connections["default"].close()
        connections["default"].close_pool()
        database.clear()
        database.update(saved)


def fetch(address, path: str, headers: dict[str, str]) -> tuple[int, bytes, float]:
    connection = http.client.HTTPConnection(*address, timeout=30)
    try:
        connection.request("GET", path, headers=headers)
        response = connection.getresponse()
        return response.status, response.read(), time.monotonic()
    finally:
        connection.close()


def test_many_wait_while_others_are_served_and_one_move_wakes_them_all(
    asgi_server, alice, bob, two_player_game, settings
):
    # What one process holds: here one player's many waits, past the cap a player has
    # (test_wait_cap.py), raised for this test.
    settings.LIVE_MAX_WAITS_PER_PLAYER = WAITERS
    game, users = two_player_game()
    mover, waiting = mover_and_other(game.id, users)
    headers = {"Authorization": f"Token {token_create(user=waiting)[1]}"}
    answers: list[tuple[int, bytes, float]] = []
    lock = threading.Lock()

    def wait() -> None:
        answer = fetch(asgi_server, games_url(game.id, wait_for_turn=30), headers)
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=wait) for _ in range(WAITERS)]
    for thread in threads:
        thread.start()
    time.sleep(1.0)  # all of them waiting by now
    assert answers == []

    status, _, answered = fetch(asgi_server, "/healthz", {})
    assert status == 200
    started = time.monotonic()
    status, _, answered = fetch(asgi_server, games_url(game.id), headers)
    assert status == 200 and answered - started < 0.5, "a request that does not wait is served"

    play_forward(game.id, moves=1, users=users, pick=first_move)
    moved = time.monotonic()
    for thread in threads:
        thread.join(10)
    assert len(answers) == WAITERS
    assert {status for status, _, _ in answers} == {200}
    assert all(b'"viewer_can_move":true' in body for _, body, _ in answers)
    slowest = max(at for _, _, at in answers) - moved
    assert slowest < 1.5, f"the last of {WAITERS} waiting requests answered {slowest:.2f} s after"
