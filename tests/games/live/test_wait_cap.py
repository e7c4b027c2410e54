"""Fair play (issue #28): one player holds at most `LIVE_MAX_WAITS_PER_PLAYER` waiting requests
in a process. Past that, their next wait is refused at once with 429 and a message (the board
page's wait and the API's `wait_for_turn` alike), and another player still waits as usual: one
account cannot take every place and push the other boards back to polling."""

import threading
import time

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.test.utils import CaptureQueriesContext

from games import live
from tests.games.live.test_long_poll import async_client, get
from tests.support.urls import games_url, live_url

pytestmark = pytest.mark.django_db(transaction=True)


def hold_waits(user, game_id, ply: int, count: int, seconds: int) -> list[threading.Thread]:
    """`count` of `user`'s board waits on the game, each in a thread of its own."""

    def wait() -> None:
        try:
            async_to_sync(async_client(user).get)(live_url(game_id, wait=seconds, since=ply))
        finally:
            connection.close()

    threads = [threading.Thread(target=wait) for _ in range(count)]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + 5
    while live.watch.waiting < count and time.monotonic() < deadline:
        time.sleep(0.05)
    assert live.watch.waiting == count
    return threads


def test_a_player_past_the_cap_is_refused_and_another_still_waits(
    alice, bob, carol, two_player_game, settings, client_for
):
    settings.LIVE_MAX_WAITS_PER_PLAYER = 3
    game, _ = two_player_game()
    threads = hold_waits(
        carol, game.id, game.ply, 3, seconds=20
    )  # carol watches it, three times over
    try:
        refused, took = get(async_client(carol), live_url(game.id, wait=20, since=game.ply))
        assert refused.status_code == 429 and took < 1, took
        assert refused.json()["code"] == "too_many_waits"
        assert "already waiting for 3 games" in refused.json()["detail"]
        assert refused["Retry-After"] == "5"
        # Refused before anything is read but the session (kept in the cache): a burst of
        # thousands takes no database connection from the other players' waits, neither for
        # the game nor for the user's row (the time-zone middleware skips the live path).
        scripted = client_for(carol)
        scripted.get(live_url(game.id, wait=20, since=game.ply))  # the session now cached
        with CaptureQueriesContext(connection) as queries:
            burst = scripted.get(live_url(game.id, wait=20, since=game.ply))
        assert burst.status_code == 429, burst.content
        assert queries.captured_queries == []
        api_refused, _ = get(async_client(carol), games_url(game.id, wait_for_turn=20))
        assert api_refused.status_code == 429
        assert "already waiting for 3 games" in api_refused.json()["detail"]

        # alice waits as ever: the whole second, then "unchanged".
        waited, took = get(async_client(alice), live_url(game.id, wait=1, since=game.ply))
        assert waited.status_code == 204 and took >= 1, took
    finally:
        live.watch.wake_all()
        for thread in threads:
            thread.join(5)
    # Once her waits have answered, carol may wait again.
    again, took = get(async_client(carol), live_url(game.id, wait=0.5, since=game.ply))
    assert again.status_code == 204 and took >= 0.5
