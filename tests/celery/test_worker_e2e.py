"""A real Celery worker, a real Redis broker: the computer opponent's move is played by the worker,
and the "your turn" email that follows goes over SMTP.

The worker is a subprocess pointed at this test run's database and at a `redis-server` of the
test's own; this process sends tasks to that Redis instead of running them in-process (see
tests/celery/conftest.py and tests/support/workers.py). Both tests share one worker, started once
(`shared_stack`).
"""

from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import resolve, reverse

from accounts.models import Delivery
from games.models import Game, LogEntry
from tests.support.urls import games_url
from tests.support.workers import (
    WORKER_SITE_URL,
    against_computer_to_move,
    computer_moved_at,
    wait_for,
)

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


@pytest.fixture(scope="module")
def worker_env() -> dict[str, str]:
    """The "your turn" email goes as soon as the computer has moved."""
    return {"NOTIFY_GRACE_SECONDS": "0"}


def test_the_worker_plays_the_computers_move(shared_stack, send_tasks_to, api_client_for, alice):
    send_tasks_to(shared_stack.redis.url)
    worker = shared_stack.worker
    client = api_client_for(alice)
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

    wait_for(
        lambda: LogEntry.objects.filter(game_id=game["id"], kind="move", player=1).exists(),
        30,
        lambda: f"the worker did not move within 30 s:\n{worker.log()}",
    )
    row = Game.objects.get(pk=game["id"])
    assert row.state["current"] == 0 or row.state["phase"] != "take"
    assert "games.tasks.computer_move" in worker.log()


def test_the_computers_move_then_one_your_turn_email_with_working_links(
    shared_stack, send_tasks_to, api_client_for, client_for, alice
):
    game = against_computer_to_move(alice, level="greedy")
    send_tasks_to(shared_stack.redis.url)
    worker, mail_sink = shared_stack.worker, shared_stack.mail
    api = api_client_for(alice)

    legal = api.get(games_url(game.id, "legal-moves")).json()
    response = api.post(
        games_url(game.id, "moves"),
        {"move": legal["legal_moves"][0], "expected_ply": legal["ply"]},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert response.json()["to_move"] == [1], "the computer played in this process"
    computers_ply = response.json()["ply"]

    wait_for(
        lambda: computer_moved_at(game.id, computers_ply),
        5,
        lambda: f"no computer move within 5 s:\n{worker.log()}",
    )
    assert "games.tasks.computer_move" in worker.log()
    yours = wait_for(
        lambda: mail_sink.mails(kind="your_turn", to=alice.email),
        10,
        lambda: f"no your-turn email (sink: {mail_sink.summary()}):\n{worker.log()}",
    )
    worker.wait_until_idle(shared_stack.redis.url)  # a second copy would have come by now
    yours = mail_sink.mails(kind="your_turn", to=alice.email)
    assert len(yours) == 1, mail_sink.summary()
    email = yours[0].message
    assert email["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"

    # The game link opens this game's page.
    game_path = reverse("games:detail", args=[game.id])
    game_links = [url for url in yours[0].links() if urlsplit(url).path == game_path]
    assert game_links, yours[0].text()
    assert game_links[0] == WORKER_SITE_URL + game_path
    assert resolve(game_path).kwargs == {"game_id": game.id}
    assert client_for(alice).get(game_path).status_code == 200

    # One click on the unsubscribe link (a POST, as mail clients send it; no session needed)
    # turns "your turn" emails off.
    header = str(email["List-Unsubscribe"]).strip()  # folded: the long URL on a line of its own
    assert header.startswith("<") and header.endswith(">"), header
    unsubscribe = urlsplit(header[1:-1])
    assert f"{unsubscribe.scheme}://{unsubscribe.netloc}" == WORKER_SITE_URL
    response = Client().post(unsubscribe.path)
    assert response.status_code == 200
    alice.profile.refresh_from_db()
    assert alice.profile.email_your_turn == Delivery.NEVER


def test_the_worker_waits_longer_on_the_broker_than_a_request(shared_stack, send_tasks_to):
    """A worker whose acknowledgement timed out would keep the task counted against its
    prefetch for good (kombu's Redis transport): so a worker's broker calls wait
    WORKER_BROKER_TIMEOUT, not the request's short BROKER_TIMEOUT (azul_site/celery.py)."""
    from django.conf import settings

    from azul_site.celery import app

    send_tasks_to(shared_stack.redis.url)
    replies = app.control.inspect(timeout=10, limit=1).conf() or {}
    assert replies, "the worker did not answer"
    (conf,) = replies.values()
    options = conf["broker_transport_options"]
    assert options["socket_timeout"] == settings.WORKER_BROKER_TIMEOUT > settings.BROKER_TIMEOUT
    # The rest of the request's options stand (a refused connection is not retried).
    assert options["max_retries"] == 0
    assert app.conf.broker_transport_options["socket_timeout"] == settings.BROKER_TIMEOUT
