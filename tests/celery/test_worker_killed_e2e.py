"""Exactly once: a worker killed (SIGKILL) in the middle of a computer turn, a new worker, and
the sweep that sends the lost turn again, lead to exactly one computer move."""

import re
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from games import sweeps
from games.models import Game, LogEntry
from tests.support.play import first_legal_move
from tests.support.records import entries_from
from tests.support.urls import games_url
from tests.support.workers import against_computer_to_move, computer_moved_at, wait_for

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]


def test_a_worker_killed_mid_turn_leads_to_exactly_one_computer_move(
    redis_server, start_worker, api_client_for, alice
):
    # The strong computer thinks for most of a second before it writes its move.
    game = against_computer_to_move(alice, level="strong")
    first = start_worker(redis_server.url)

    _, move, ply = first_legal_move(game.id)
    response = api_client_for(alice).post(
        games_url(game.id, "moves"), {"move": move, "expected_ply": ply}, format="json"
    )
    assert response.status_code == 201, response.json()
    computers_ply = response.json()["ply"]

    with transaction.atomic():
        # Hold the game's row: whatever the machine's speed, the worker can think but cannot
        # write its move before it is killed.
        Game.objects.select_for_update().get(pk=game.id)
        first.wait_for_log("computer_move[", 10)
        first.kill()
    assert not re.search(r"computer_move\[[^\]]+\] succeeded", first.log()), first.log()
    assert entries_from(game.id, computers_ply) == [], "the killed worker wrote a move"

    second = start_worker(redis_server.url)
    # The sweep's job (Celery beat, every minute): the computer turn has waited more than a
    # minute, so its task is sent again; twice, as overlapping sweeps may.
    Game.objects.filter(pk=game.id).update(updated_at=timezone.now() - timedelta(minutes=2))
    assert sweeps.sweep().computer_turns == 1
    assert sweeps.sweep().computer_turns == 1

    wait_for(
        lambda: computer_moved_at(game.id, computers_ply),
        15,
        lambda: f"the new worker did not move:\n{second.log()}",
    )
    # Both tasks have run: the second did nothing.
    wait_for(
        lambda: len(re.findall(r"computer_move\[[^\]]+\] succeeded", second.log())) == 2,
        10,
        lambda: f"the new worker did not run both tasks:\n{second.log()}",
    )

    entries = entries_from(game.id, computers_ply)
    assert [(e.kind, e.player) for e in entries[:1]] == [(LogEntry.Kind.MOVE, 1)]
    # After the computer's move: nothing, or the next round's deal if the move ended the round.
    assert [e.kind for e in entries[1:]] in ([], [LogEntry.Kind.DEAL])
    assert Game.objects.get(pk=game.id).ply == computers_ply + len(entries)
    assert (
        LogEntry.objects.filter(
            game_id=game.id, kind=LogEntry.Kind.MOVE, player=1, number__gte=computers_ply
        ).count()
        == 1
    )
