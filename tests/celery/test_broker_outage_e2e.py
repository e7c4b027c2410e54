"""The broker is a helper too: with the Redis that is both the cache and the Celery broker
stopped, or hung, a player still signs in, loads the board and moves against the computer (whose
task cannot be sent), each within a second. Once Redis is back, the sweeps send what was not
sent, and a real worker plays the computer's answer and mails the player."""

from __future__ import annotations

import time
from datetime import timedelta
from urllib.parse import urlsplit

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.services import token_create
from core.outages import cache as site_cache
from core.outages.cache import redis_cache
from games import sweeps
from games.models import Game
from notifications import services as notifications
from tests.support.factories import PASSWORD
from tests.support.outage import hung_server
from tests.support.play import first_legal_move
from tests.support.workers import against_computer_to_move, computer_moved_at, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

WITHIN = 1.0  # seconds, for each request


def timed(request, *args, **kwargs):
    started = time.monotonic()
    response = request(*args, **kwargs)
    return response, time.monotonic() - started


def assert_quick(took: float, within: float | None, what: str) -> None:
    assert within is None or took < within, f"{what} took {took:.2f} s"


def assert_the_move_tried_the_broker() -> None:
    """The move's `send` went to the broker and failed (rather than being skipped because an
    earlier send had failed moments ago)."""
    assert site_cache.broker_outage.skip_until > 0, "the computer's task was not tried"


def move_against_the_computer_through_every_door(
    user, by_page: Game, by_api: Game, moves_within: float | None = WITHIN
) -> list[int]:
    """Sign in and load the board, each within `WITHIN` seconds; move on the page (in
    `by_page`) and through the API with a token (in `by_api`), each within `moves_within`
    seconds unless it is None. Each move tries to send the computer's task. Returns the two
    games' plies after the moves (the computer's turn)."""
    page = Client()
    response, took = timed(
        page.post, reverse("account_login"), {"login": user.username, "password": PASSWORD}
    )
    assert response.status_code == 302, response.content[:500]
    assert_quick(took, WITHIN, "sign-in")

    board = reverse("games:detail", args=[by_page.id])
    response, took = timed(page.get, board)
    assert response.status_code == 200
    assert_quick(took, WITHIN, "board")

    _, move, ply = first_legal_move(by_page.id)
    site_cache.broker_outage.skip_until = 0
    response, took = timed(page.post, board, {"move": move, "expected_ply": ply})
    assert response.status_code == 302
    assert_quick(took, moves_within, "page move")
    assert Game.objects.get(pk=by_page.id).ply > ply, "the page's move was not played"
    assert_the_move_tried_the_broker()

    _, move, ply = first_legal_move(by_api.id)
    _token, key = token_create(user=user)
    api = APIClient(HTTP_AUTHORIZATION=f"Token {key}")
    site_cache.broker_outage.skip_until = 0
    response, took = timed(
        api.post,
        reverse("games_api:moves", args=[by_api.id]),
        {"move": move, "expected_ply": ply},
        format="json",
    )
    assert response.status_code == 201, response.json()
    assert_quick(took, moves_within, "API move")
    assert response.json()["to_move"] == [1]
    assert_the_move_tried_the_broker()

    return [Game.objects.get(pk=game.id).ply for game in (by_page, by_api)]


def test_with_redis_stopped_every_door_answers_within_a_second(
    settings, redis_server, send_tasks_to, alice
):
    settings.CACHES = {"default": redis_cache(redis_server.url, 0.25)}
    games = [against_computer_to_move(alice), against_computer_to_move(alice)]
    send_tasks_to(redis_server.url)

    redis_server.stop()

    move_against_the_computer_through_every_door(alice, *games)


def test_moves_made_while_redis_was_stopped_are_answered_once_it_is_back(
    settings, redis_server, send_tasks_to, start_worker, mail_sink, alice
):
    settings.CACHES = {"default": redis_cache(redis_server.url, 0.25)}
    games = [against_computer_to_move(alice), against_computer_to_move(alice)]
    send_tasks_to(redis_server.url)

    redis_server.stop()
    # How quickly the moves answer is the test above's; here, that they are played.
    plies = move_against_the_computer_through_every_door(alice, *games, moves_within=None)
    # No worker runs yet, and this process did not play the computer's turn in its stead.
    assert not any(computer_moved_at(g.id, ply) for g, ply in zip(games, plies, strict=True))

    redis_server.start()  # the same port
    site_cache.outage.skip_until = 0  # the retry windows have passed
    site_cache.broker_outage.skip_until = 0
    worker = start_worker(redis_server.url, NOTIFY_GRACE_SECONDS="0", **mail_sink.env)
    # A minute later, Celery beat runs both sweeps.
    Game.objects.filter(pk__in=[g.id for g in games]).update(
        updated_at=timezone.now() - timedelta(minutes=2)
    )
    assert sweeps.sweep().computer_turns == 2
    notifications.sweep()

    for game, ply in zip(games, plies, strict=True):
        wait_for(
            lambda game=game, ply=ply: computer_moved_at(game.id, ply),
            15,
            lambda: f"the computer did not answer:\n{worker.log()}",
        )
    mails = wait_for(
        lambda: (
            len(mail_sink.mails(kind="your_turn", to=alice.email)) >= 2
            and mail_sink.mails(kind="your_turn", to=alice.email)
        ),
        10,
        lambda: f"alice's emails did not come (sink: {mail_sink.summary()}):\n{worker.log()}",
    )
    worker.wait_until_idle(redis_server.url)  # a third email would have come by now
    assert len(mail_sink.mails(kind="your_turn")) == 2, mail_sink.summary()
    linked = {
        urlsplit(url).path
        for mail in mails
        for url in mail.links()
        if urlsplit(url).path.startswith("/games/")
    }
    assert linked == {reverse("games:detail", args=[g.id]) for g in games}


def test_with_redis_hung_moves_answer_within_a_second(settings, send_tasks_to, alice):
    with hung_server() as url:
        settings.CACHES = {"default": redis_cache(url, 0.25)}
        games = [against_computer_to_move(alice), against_computer_to_move(alice)]
        send_tasks_to(url)

        move_against_the_computer_through_every_door(alice, *games)
