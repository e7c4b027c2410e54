"""Simultaneous submissions of the same turn: exactly one is accepted, the log stays whole."""

import threading

import pytest
from django.db import connections
from rest_framework.test import APIClient

from games.models import Game, LogEntry
from tests.support.play import player_to_move
from tests.support.urls import games_url

THREADS = 8


@pytest.mark.django_db(transaction=True)
def test_many_simultaneous_submissions_of_one_turn(active_game, alice, bob):
    game = active_game
    mover = alice if player_to_move(game) == "alice" else bob
    first = APIClient()
    first.force_authenticate(mover)
    legal = first.get(games_url(game["id"], "legal-moves")).json()["legal_moves"]
    barrier = threading.Barrier(THREADS)
    statuses: list[int] = []
    lock = threading.Lock()

    def submit(index: int) -> None:
        client = APIClient()
        client.force_authenticate(mover)
        try:
            barrier.wait(timeout=10)
            response = client.post(
                games_url(game["id"], "moves"),
                # Different legal moves, all for the same ply.
                {"move": legal[index % len(legal)], "expected_ply": game["ply"]},
                format="json",
            )
            with lock:
                statuses.append(response.status_code)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=submit, args=(i,)) for i in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert sorted(statuses).count(201) == 1, statuses
    assert all(s in (201, 409, 403) for s in statuses), statuses
    row = Game.objects.get(pk=game["id"])
    numbers = list(
        LogEntry.objects.filter(game=row).order_by("number").values_list("number", flat=True)
    )
    assert numbers == list(range(row.ply))
    assert row.ply in (game["ply"] + 1, game["ply"] + 2)  # the move, and a deal if one was due


def test_the_unique_log_number_is_a_backstop_when_the_lock_is_bypassed(
    active_game, alice, bob, monkeypatch
):
    """If two writers ever passed the ply check together, the second insert fails cleanly."""
    from games import services
    from games.errors import StaleMove
    from games.services import playing

    game = Game.objects.get(pk=active_game["id"])
    mover = alice if player_to_move(active_game) == "alice" else bob
    stale_copy = playing.read_game(game.pk, lock=False)
    legal = active_game["legal_moves"] or legal_moves_of(mover, game)
    services.move_submit(game_id=game.pk, user=mover, move=legal[0], expected_ply=game.ply)

    # The move path's locked read returns the game as it was before the first move.
    monkeypatch.setattr(playing, "read_game", lambda game_id, lock: stale_copy)
    with pytest.raises(StaleMove) as caught:
        services.move_submit(game_id=game.pk, user=mover, move=legal[0], expected_ply=game.ply)
    assert caught.value.current_ply == Game.objects.get(pk=game.pk).ply
    numbers = list(
        LogEntry.objects.filter(game=game).order_by("number").values_list("number", flat=True)
    )
    assert numbers == list(range(len(numbers)))


def legal_moves_of(user, game) -> list[str]:
    client = APIClient()
    client.force_authenticate(user)
    return client.get(games_url(game.pk, "legal-moves")).json()["legal_moves"]


@pytest.mark.django_db(transaction=True)
def test_many_players_joining_the_open_seats_at_once(alice, make_user):
    """The lock reads the seats once it is granted, so the writers who waited see the seats
    taken before them (a join that does not fill the game leaves the game's row unchanged)."""
    from games import services

    game = services.game_create(
        creator=alice,
        num_players=4,
        variant="colored",
        days_per_move=3,
        seats=[
            services.SeatSpec(kind="computer"),
            services.SeatSpec(kind="open"),
            services.SeatSpec(kind="open"),
        ],
    )
    joiners = [make_user(f"joiner{i}") for i in range(THREADS)]
    barrier = threading.Barrier(THREADS)
    statuses: dict[str, int] = {}
    lock = threading.Lock()

    def join(user) -> None:
        client = APIClient()
        client.force_authenticate(user)
        try:
            barrier.wait(timeout=10)
            response = client.post(games_url(game.id, "join"), format="json")
            with lock:
                statuses[user.username] = response.status_code
        finally:
            connections.close_all()

    threads = [threading.Thread(target=join, args=(user,)) for user in joiners]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    winners = {name for name, status in statuses.items() if status == 200}
    assert sorted(statuses.values()) == [200] * 2 + [409] * (THREADS - 2), statuses
    row = Game.objects.get(pk=game.id)
    assert row.status == Game.Status.ACTIVE
    seated = list(row.seats.order_by("position").values_list("user__username", flat=True))
    assert seated[:2] == ["alice", None] and set(seated[2:]) == winners
    assert LogEntry.objects.filter(game=row).count() == row.ply >= 1  # one start, one deal


@pytest.mark.django_db(transaction=True)
def test_the_lock_sees_the_seat_filled_while_it_waited(alice, bob):
    """A writer fills the last seat and starts the game while another waits for the lock: the
    waiter gets the started game with the seat filled (the seats are read once the lock is
    granted)."""
    import time

    from django.db import transaction

    from games import services
    from games.models import Seat
    from games.services import playing

    game = services.game_create(
        creator=alice,
        num_players=2,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="open")],
    )
    locked, waited = threading.Event(), {}

    def writer() -> None:
        try:
            with transaction.atomic():
                playing.lock_game(game.id)
                locked.set()
                time.sleep(0.5)  # the reader is now waiting for the lock
                Seat.objects.filter(game=game, position=1).update(user=bob)
                Game.objects.filter(pk=game.id).update(status=Game.Status.ACTIVE)
        finally:
            connections.close_all()

    def reader() -> None:
        try:
            locked.wait(timeout=10)
            with transaction.atomic():
                seen = playing.lock_game(game.id)
                waited["status"] = seen.status
                waited["users"] = [s.user_id for s in seen.seats.all()]
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer), threading.Thread(target=reader)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert waited == {"status": Game.Status.ACTIVE, "users": [alice.pk, bob.pk]}
