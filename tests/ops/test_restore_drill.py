"""The restore drill (README, "Backups"): a database with games in every state, made through the
games' own services, dumped by the backup script and restored by the restore script into a new
database, which then passes the checks an operator runs after a restore (`check_game_logs`,
`ratings_recompute`) and lets a game in progress go on: a move, the computer's answer and the
"your turn" email after it."""

from __future__ import annotations

import copy
import os
import subprocess
import sys
import time
from datetime import timedelta
from typing import Any

import pytest
import time_machine
from django.contrib.auth import get_user_model
from django.db.models import Count

import azul
from games import selectors, services
from games.models import Game, LogEntry, Seat
from games.record.export import game_export
from games.record.study_import import study_import
from notifications import services as notification_services
from notifications.models import Notification
from ratings.models import Rating
from tests.support import factories
from tests.support.databases import (
    ROOT,
    current_database,
    database_url,
    drop_database,
    run_script,
    using_database,
)
from tests.support.mail import sent
from tests.support.play import play_forward, play_to_end

pytestmark = [
    pytest.mark.slow,
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("site_mail"),
]

User = get_user_model()


@pytest.fixture
def restored(transactional_db):
    """The name of the database the drill restores into: this test process's database (one per
    xdist worker) with a suffix, absent before and after."""
    name = f"{current_database()}_restored"
    drop_database(name)
    yield name
    drop_database(name)


def games_in_every_state() -> dict[str, Any]:
    """A game of each kind a site holds, by what it is, made as players make them."""
    alice, bob, carol, dave = (factories.user(name) for name in ("alice", "bob", "carol", "dave"))
    open_seat = [services.SeatSpec(kind="open")]
    lobby = services.game_create(
        creator=alice, num_players=2, variant="colored", days_per_move=3, seats=open_seat
    )
    invitation = factories.invite_game(alice, carol)
    cancelled = services.game_create(
        creator=bob, num_players=2, variant="colored", days_per_move=3, seats=open_seat
    )
    services.game_cancel(game_id=cancelled.id, user=bob)
    active = play_forward(factories.start_game(alice, bob), moves=6)
    # The computer's answer comes from its task, run in-process when alice's move commits. One
    # move each: the round goes on after alice's next move, so that the computer answers it.
    computer = play_forward(factories.against_computer(alice), moves=1)
    finished = play_to_end(factories.start_game(bob, carol), seed=1)
    resigned = play_forward(factories.start_game(carol, dave), moves=12)
    services.game_resign(game_id=resigned.id, user=dave)
    timed_out = play_forward(factories.start_game(alice, dave, variant="gray"), moves=3)
    with time_machine.travel(timed_out.turn_deadline + timedelta(minutes=1), tick=False):
        assert services.timeouts_play(game_id=timed_out.id, expected_ply=timed_out.ply)
    study_file = copy.deepcopy(game_export(game=selectors.game_get(game_id=finished.id)))
    for player, name in zip(study_file["players"], ("Ada", "Grace"), strict=True):
        player["name"] = name
    study = study_import(user=carol, data=study_file)
    return {
        "lobby": lobby.id,
        "invitation": invitation.id,
        "cancelled": cancelled.id,
        "active": active.id,
        "computer": computer.id,
        "finished": finished.id,
        "resigned": resigned.id,
        "timed_out": timed_out.id,
        "study": study.id,
    }


def snapshot(games: dict[str, Any]) -> dict[str, Any]:
    """What the drill compares between the database and its restored copy."""
    statuses = dict(Game.objects.values_list("id", "status"))
    return {
        "statuses": {what: statuses[pk] for what, pk in games.items()},
        "plies": dict(Game.objects.values_list("id", "ply")),
        "log entries": LogEntry.objects.count(),
        "seats": list(Seat.objects.order_by("game", "position").values()),
        "ratings": list(Rating.objects.order_by("pk").values()),
        "notifications": dict(
            Notification.objects.values_list("status").annotate(n=Count("pk")).order_by()
        ),
        "users": User.objects.count(),
    }


def manage(*args: str, database: str) -> subprocess.CompletedProcess[str]:
    """`manage.py` in a process of its own on `database`, as an operator runs it."""
    return subprocess.run(
        [sys.executable, "manage.py", *args],
        cwd=ROOT,
        env={**os.environ, "DATABASE_URL": database_url(database)},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_a_backup_restores_into_a_site_that_plays_on(restored, tmp_path):
    games = games_in_every_state()
    before = snapshot(games)
    assert before["statuses"] == {
        "lobby": "open",
        "invitation": "open",
        "cancelled": "aborted",
        "active": "active",
        "computer": "active",
        "finished": "finished",
        "resigned": "finished",
        "timed_out": "active",
        "study": "finished",
    }
    assert LogEntry.objects.filter(game_id=games["timed_out"], data__timeout=True).exists()
    assert Seat.objects.filter(game_id=games["finished"], rating_after__isnull=False).count() == 2

    started = time.monotonic()
    backup = run_script(
        "backup.sh", DATABASE_URL=database_url(current_database()), BACKUP_DIR=str(tmp_path)
    )
    assert backup.returncode == 0, backup.stderr
    restore = run_script("restore.sh", backup.stdout.strip(), DATABASE_URL=database_url(restored))
    assert restore.returncode == 0, restore.stderr
    drill_seconds = time.monotonic() - started

    logs = manage("check_game_logs", database=restored)
    assert logs.returncode == 0, logs.stderr
    assert f"All {len(games)} games agree with their logs." in logs.stdout
    ratings = manage("ratings_recompute", database=restored)
    assert ratings.returncode == 0, ratings.stderr
    assert "The stored ratings agree with the history." in ratings.stdout, ratings.stdout

    with using_database(restored):
        assert snapshot(games) == before
        game = selectors.game_get(game_id=games["computer"])
        alice = User.objects.get(username="alice")
        [seat] = [s for s in game.seat_list if s.user_id == alice.pk]
        computer_seat = next(s for s in game.seat_list if s.kind == Seat.Kind.COMPUTER)
        state = game.engine_state()
        assert state.to_move == [seat.position]
        last_notification = Notification.objects.order_by("pk").last()

        move = str(azul.legal_moves(state, seat.position)[0])
        services.move_submit(game_id=game.id, user=alice, move=move, expected_ply=game.ply)

        after = selectors.game_get(game_id=game.id)
        answers = LogEntry.objects.filter(
            game=game, number__gt=game.ply, data__player=computer_seat.position
        )
        assert answers.exists(), "the computer answered"
        assert after.engine_state().to_move == [seat.position]
        [your_turn] = Notification.objects.filter(
            pk__gt=last_notification.pk, recipient=alice, kind="your_turn", game=game
        )
        assert your_turn.status == "pending" and not sent("your_turn")
        # The minute's sweep, once the email's grace period is over.
        with time_machine.travel(your_turn.send_after + timedelta(minutes=2), tick=False):
            notification_services.sweep()
        your_turn.refresh_from_db()
        assert your_turn.status == "sent"
        # Alice's other games may have had their own "your turn" email waiting too.
        [email] = [m for m in sent("your_turn", to=alice) if str(game.id) in m.body]
    print(f"restore drill: dump and restore of {len(games)} games in {drill_seconds:.1f} s")
