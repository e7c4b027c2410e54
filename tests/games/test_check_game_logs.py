"""`manage.py check_game_logs` over games in every state, each made through the services as play
makes them: it finds nothing wrong. Then a seat and a log entry are tampered with (as an edit in
the database would), and it reports each, one line per problem, and exits non-zero."""

import json
from datetime import timedelta
from io import StringIO

import pytest
import time_machine
from django.core.management import call_command
from django.core.management.base import CommandError
from django.core.serializers.json import DjangoJSONEncoder
from django.db import transaction
from django.utils import timezone

from accounts.models import User
from games import selectors, services
from games.models import Game, LogEntry, Seat
from games.record.export import game_export
from games.record.study_import import study_import
from tests.support import factories
from tests.support.play import finish, play_forward, waiting_for

pytestmark = pytest.mark.django_db


def check(*game_ids) -> tuple[bool, list[str]]:
    """(whether the command passed, the problems it reported)."""
    out, err = StringIO(), StringIO()
    args = [f"--game={game_id}" for game_id in game_ids]
    try:
        call_command("check_game_logs", *args, stdout=out, stderr=err)
    except CommandError:
        return False, err.getvalue().splitlines()
    return True, err.getvalue().splitlines()


@pytest.fixture
def every_state(alice, bob, carol, dave):
    """A game of each kind and state, by name."""
    games = {}
    games["open"] = services.game_create(
        creator=alice, num_players=3, variant="colored", days_per_move=3,
        seats=[services.SeatSpec(kind="open"), services.SeatSpec(kind="invite", username="bob")],
    )  # fmt: skip
    games["cancelled"] = factories.invite_game(alice, carol)
    services.game_cancel(game_id=games["cancelled"].id, user=alice)
    games["active"] = play_forward(factories.start_game(alice, bob), moves=7)
    games["finished"] = finish(factories.start_game(alice, bob, carol, variant="gray"))
    resigned = play_forward(factories.start_game(bob, dave), moves=5)
    services.game_resign(game_id=resigned.id, user=dave)
    games["resigned"] = resigned
    games["computer"] = finish(factories.against_computer(dave, computers=2, level="random"))
    games["timed out"] = waiting_for(factories.start_game(carol, dave), carol)
    with time_machine.travel(timezone.now() + timedelta(days=4)):
        services.timeouts_play(game_id=games["timed out"].id, expected_ply=games["timed out"].ply)
    export = game_export(game=selectors.game_get(game_id=games["finished"].id))
    games["study"] = study_import(user=bob, data=renamed(export, "Ada", "Grace", "Hedy"))
    return {name: Game.objects.get(pk=game.id) for name, game in games.items()}


def renamed(export: dict, *names: str) -> dict:
    """The export as its file reads, its players given other names (a study may not name the
    site's players)."""
    data = json.loads(json.dumps(export, cls=DjangoJSONEncoder))
    for player, name in zip(data["players"], names, strict=True):
        player["name"] = name
        player["username"] = None
    return data


def test_games_made_by_play_in_every_state_pass(every_state):
    assert {g.status for g in every_state.values()} == set(Game.Status.values)
    assert every_state["timed out"].seats.filter(timeouts=1).count() == 1
    assert every_state["resigned"].status == Game.Status.FINISHED
    assert every_state["study"].is_study

    assert check() == (True, [])


def seats(game: Game, **which):
    return Seat.objects.filter(game=game, **which)


def move_of_the_other_player(game: Game) -> None:
    entry = LogEntry.objects.get(game=game, number=3)
    LogEntry.objects.filter(pk=entry.pk).update(player=1 - entry.player)


def a_deal_in_an_open_game(game: Game) -> None:
    LogEntry.objects.create(game=game, number=0, kind="deal", data={"kind": "deal", "tiles": []})


TAMPERS = {
    "unknown-kind": (
        "active",
        lambda game: seats(game, position=1).update(kind="robot"),
        "seat 1 is of unknown kind 'robot'",
    ),
    "missing-seat": (
        "active",
        lambda game: seats(game, position=1).delete(),
        "the seats are at positions [0], not 0..1 for its 2 players",
    ),
    "started-seat-without-player": (
        "active",
        lambda game: seats(game, position=0).update(user=None),
        "seat 0 is a person's but nobody took it in a started game",
    ),
    "wrong-score": (
        "finished",
        lambda game: seats(game, position=2).update(final_score=99),
        "seat 2 has score 99 and place",
    ),
    "resignation-added": (
        "resigned",
        lambda game: seats(game).update(resigned_at=timezone.now()),
        "but the replayed log gives",
    ),
    "timeouts-forgotten": (
        "timed out",
        lambda game: seats(game).update(timeouts=0),
        "counts 0 timeouts but the log has 1",
    ),
    "result-too-early": (
        "active",
        lambda game: seats(game, position=0).update(place=1),
        "seat 0 has a result but the game is active",
    ),
    "unknown-level": (
        "computer",
        lambda game: seats(game, kind="computer").update(bot_level="x"),
        "is a computer's of unknown level 'x'",
    ),
    "move-of-another-player": (
        "active",
        move_of_the_other_player,
        "log entry 3 is a move of player",
    ),
    "missing-log-entry": (
        "active",
        lambda game: LogEntry.objects.filter(game=game, number=game.ply - 1).delete(),
        "entries",
    ),
    "seat-given-to-another-account": (
        "active",
        lambda game: seats(game, position=0).update(user=User.objects.get(username="dave")),
        "of its moves were made by player",
    ),
    "a-timeout-said-a-persons-move": (
        "timed out",
        lambda game: LogEntry.objects.filter(game=game, data__timeout=True).update(
            mover_kind=LogEntry.Mover.PERSON
        ),
        "is a move by the person, but at a timeout",
    ),
    "log-in-an-open-game": (
        "open",
        a_deal_in_an_open_game,
        "status is open but the game has a log or a state",
    ),
}


def test_each_tampered_seat_or_log_entry_is_reported(every_state):
    """Each tampering in turn, undone after (one set of games made for them all: playing them
    is the slow part)."""
    found = {}
    for name, (game, tamper, reported) in TAMPERS.items():
        target = every_state[game]
        others = [g.id for other, g in every_state.items() if other != game]
        with transaction.atomic():
            tamper(target)
            passed, problems = check()
            found[name] = (
                passed,
                all(p.startswith(f"game {target.id}: ") for p in problems),
                any(reported in p for p in problems) or problems,
                check(*others),
            )
            transaction.set_rollback(True)

    assert found == {name: (False, True, True, (True, [])) for name in TAMPERS}
    assert check() == (True, [])
