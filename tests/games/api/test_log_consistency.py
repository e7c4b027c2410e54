"""`/api/games/{id}/log/` is one consistent view: its `ply` is always the number of its
entries, even while players move (the entries and the ply are not read in two statements)."""

import threading

import pytest
from django.db import connections

from tests.support.play import first_move, play_forward
from tests.support.urls import api_url


def consistent(body: dict) -> bool:
    return [e["number"] for e in body["entries"]] == list(range(body["ply"]))


def test_the_log_ply_is_its_number_of_entries(start_game, alice, bob, api_client_for):
    game = start_game(alice, bob)
    users = {0: alice, 1: bob}
    game = play_forward(game, moves=5, users=users, pick=first_move)

    body = api_client_for(alice).get(api_url("games", game.id, "log")).json()

    assert body["ply"] == game.ply == len(body["entries"])
    assert consistent(body)


def test_a_game_without_entries_and_no_game(alice, create_game, clients):
    game = create_game(alice, [{"kind": "open"}])
    assert clients["alice"].get(api_url("games", game["id"], "log")).json() == {
        "ply": 0,
        "entries": [],
    }
    missing = clients["alice"].get(api_url("games", "00000000-0000-0000-0000-000000000000", "log"))
    assert missing.status_code == 404
    assert missing.json()["code"] == "game_not_found"


@pytest.mark.django_db(transaction=True)
def test_the_log_stays_consistent_while_a_game_is_played(start_game, alice, bob, api_client_for):
    """A writer plays moves in a thread of its own (its own connection, each move its own
    transaction) while the log is read over and over: every read agrees with itself."""
    game = start_game(alice, bob)
    users = {0: alice, 1: bob}
    done = threading.Event()
    errors: list[BaseException] = []

    def play() -> None:
        try:
            play_forward(game, moves=60, users=users, pick=first_move)
        except BaseException as exc:  # reported by the test, not lost in the thread
            errors.append(exc)
        finally:
            done.set()
            connections.close_all()

    client = api_client_for(alice)
    writer = threading.Thread(target=play)
    writer.start()
    reads = []
    while not done.is_set() or not reads:
        reads.append(client.get(api_url("games", game.id, "log")).json())
    writer.join(timeout=60)

    assert not errors, errors
    assert all(consistent(body) for body in reads), [
        (b["ply"], len(b["entries"])) for b in reads if not consistent(b)
    ]
    # The reads saw the game move.
    assert len({body["ply"] for body in reads}) > 1
