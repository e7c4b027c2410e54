"""Waiting without polling: the API's `wait_for_turn` and the board page's live endpoint answer
as soon as another player moves (a thread moves while the request waits), at the end of the wait
with the unchanged game, and at once when there is nothing to wait for.

The requests go through Django's ASGI handler (the async test client), as they do in the live
process; the moves commit in another thread, as another request's would (PostgreSQL, so the
tests are transactional)."""

import threading
import time

import pytest
from asgiref.sync import async_to_sync
from django.db import connection
from django.test import AsyncClient

from tests.support.factories import SESSION_BACKEND
from tests.support.play import first_move, mover_and_other, play_forward
from tests.support.urls import games_url, live_url

pytestmark = pytest.mark.django_db(transaction=True)


def async_client(user) -> AsyncClient:
    client = AsyncClient()
    client.force_login(user, backend=SESSION_BACKEND)
    return client


def get(client: AsyncClient, url: str, **headers):
    """GET through the ASGI handler: (response, seconds it took)."""
    started = time.monotonic()
    response = async_to_sync(client.get)(url, headers=headers)
    return response, time.monotonic() - started


def move_later(game_id, users, delay: float) -> threading.Thread:
    def move():
        time.sleep(delay)
        try:
            play_forward(game_id, moves=1, users=users, pick=first_move)
        finally:
            connection.close()  # this thread's own

    thread = threading.Thread(target=move)
    thread.start()
    return thread


def test_waiting_for_your_turn_answers_as_soon_as_the_other_player_moves(
    alice, bob, two_player_game
):
    game, users = two_player_game()
    mover, waiting = mover_and_other(game.id, users)
    mover_thread = move_later(game.id, users, delay=0.5)
    response, took = get(async_client(waiting), games_url(game.id, wait_for_turn=20))
    mover_thread.join()

    assert response.status_code == 200
    view = response.json()
    assert view["ply"] == game.ply + 1
    assert view["viewer_can_move"] is True
    assert 0.5 <= took < 1.5, took  # the move, then at most a tick of the watch and the answer


def test_a_watcher_waits_for_any_change_and_sees_no_legal_moves(alice, bob, carol, two_player_game):
    game, users = two_player_game()
    mover_thread = move_later(game.id, users, delay=0.3)
    response, took = get(async_client(carol), games_url(game.id, wait_for_turn=20))
    mover_thread.join()
    assert response.status_code == 200
    assert response.json()["ply"] == game.ply + 1
    assert response.json()["legal_moves"] == []
    assert took < 1.3, took


def test_the_wait_ends_with_the_unchanged_game(alice, bob, two_player_game):
    game, users = two_player_game()
    _, waiting = mover_and_other(game.id, users)
    client = async_client(waiting)
    response, took = get(client, games_url(game.id, wait_for_turn=1))
    assert response.status_code == 200
    assert response.json()["ply"] == game.ply
    assert 1.0 <= took < 2.0, took

    tag = response["ETag"]
    unchanged, took = get(client, games_url(game.id, wait_for_turn=0.5), if_none_match=tag)
    assert unchanged.status_code == 304 and unchanged.content == b""
    assert unchanged["ETag"] == tag
    assert 0.5 <= took < 1.5, took


def test_nothing_to_wait_for_answers_at_once(alice, bob, two_player_game):
    game, users = two_player_game()
    mover, waiting = mover_and_other(game.id, users)
    # Your turn already.
    response, took = get(async_client(mover), games_url(game.id, wait_for_turn=30))
    assert response.status_code == 200 and response.json()["viewer_can_move"] is True
    assert took < 1.0, took
    # An ETag of an older version: the game changed since.
    client = async_client(waiting)
    old = async_to_sync(client.get)(games_url(game.id))["ETag"]
    play_forward(game.id, moves=1, users=users, pick=first_move)  # now the waiting player's turn...
    play_forward(game.id, moves=1, users=users, pick=first_move)  # ...and now the other's again
    response, took = get(client, games_url(game.id, wait_for_turn=30), if_none_match=old)
    assert response.status_code == 200 and response.json()["ply"] == game.ply + 2
    assert took < 1.0, took


def test_the_page_is_told_as_soon_as_the_other_player_moves(alice, bob, two_player_game):
    game, users = two_player_game()
    _, waiting = mover_and_other(game.id, users)
    client = async_client(waiting)
    first, _ = get(client, live_url(game.id, wait=0, since=game.ply))
    tag = first["ETag"]

    mover_thread = move_later(game.id, users, delay=0.5)
    response, took = get(client, live_url(game.id, wait=20, since=game.ply), if_none_match=tag)
    mover_thread.join()
    assert response.status_code == 200
    assert response.json() == {"ply": game.ply + 1}
    assert response["ETag"] != tag
    assert 0.5 <= took < 1.5, took

    # Nothing more happens: 304 at the end of the wait.
    unchanged, took = get(
        client, live_url(game.id, wait=0.5, since=game.ply + 1), if_none_match=response["ETag"]
    )
    assert unchanged.status_code == 304
    assert 0.5 <= took < 1.5, took


def test_a_chat_message_wakes_the_page_and_leaves_the_game_as_it_was(alice, bob, two_player_game):
    from chat import services as chat_services
    from games.models import Game

    game, users = two_player_game()
    before = Game.objects.values_list("ply", "updated_at").get(pk=game.id)
    client = async_client(alice)
    first, _ = get(client, live_url(game.id, wait=0, since=game.ply, side=""))
    tag, mark = first["ETag"], first["X-Live-Side"]

    def write():
        time.sleep(0.5)
        try:
            chat_services.message_post(game_id=game.id, user=bob, text="good luck")
        finally:
            connection.close()  # this thread's own

    thread = threading.Thread(target=write)
    thread.start()
    response, took = get(
        client, live_url(game.id, wait=20, since=game.ply, side=mark), if_none_match=tag
    )
    thread.join()
    assert response.status_code == 200
    assert response.json() == {"ply": game.ply, "board_changed": False, "side_changed": True}
    assert response["ETag"] == tag  # the board is as it was
    assert response["X-Live-Side"] != mark
    assert 0.5 <= took < 1.5, took
    # The game's version, which orders game lists and wakes the computer, did not change.
    assert Game.objects.values_list("ply", "updated_at").get(pk=game.id) == before

    # A page that missed the mark is told at once; with the new one, it waits.
    missed, took = get(client, live_url(game.id, wait=20, since=game.ply, side=mark))
    assert missed.status_code == 200 and missed.json()["side_changed"] is True
    assert took < 1.0, took
    current = response["X-Live-Side"]
    unchanged, took = get(
        client, live_url(game.id, wait=0.5, since=game.ply, side=current), if_none_match=tag
    )
    assert unchanged.status_code == 304 and unchanged["X-Live-Side"] == current
