"""Who made each move, in the log (`LogEntry.mover_kind`, `LogEntry.mover`): written as the
move is played - a person's with their account, the server's at a timeout, the computer's -
exported with the game and imported with a study."""

import copy
import json
from datetime import timedelta

import pytest
import time_machine
from django.core.serializers.json import DjangoJSONEncoder
from django.utils import timezone

from games import selectors, services
from games.errors import GameError
from games.models import LogEntry
from games.record.export import game_export
from games.record.study_import import study_import
from tests.support import factories
from tests.support.play import finish, play_forward, waiting_for

pytestmark = pytest.mark.django_db

PERSON, COMPUTER, SERVER = LogEntry.Mover.values


def moves(game) -> list[tuple[int, str, int | None, bool]]:
    """(seat, mover's kind, mover's account, made at a timeout) of each move, in order."""
    return [
        (entry.player, entry.mover_kind, entry.mover_id, bool(entry.data.get("timeout")))
        for entry in LogEntry.objects.filter(game=game, kind="move").order_by("number")
    ]


@pytest.fixture
def timed_out_then_resigned(alice, bob):
    """Alice and Bob play; Bob's time runs out once; then Alice resigns, and the computer plays
    the game out."""
    game = waiting_for(play_forward(factories.start_game(alice, bob), moves=4), bob)
    with time_machine.travel(timezone.now() + timedelta(days=4)):
        services.timeouts_play(game_id=game.id, expected_ply=game.ply)
    game = play_forward(game, moves=3)
    services.game_resign(game_id=game.id, user=alice)
    return selectors.game_get(game_id=game.id)


def test_each_move_says_who_made_it(timed_out_then_resigned, alice, bob):
    game = timed_out_then_resigned
    accounts = {alice.id: 0, bob.id: 1}
    made = moves(game)
    timeout = made.index(next(m for m in made if m[3]))
    played_out = next(i for i, m in enumerate(made) if m[1] == COMPUTER)

    assert made[timeout][:3] == (1, SERVER, None)
    people = made[:timeout] + made[timeout + 1 : played_out]
    assert len(people) >= 7
    # Each a person's, by the account that holds the seat.
    assert all(kind == PERSON and accounts[mover] == seat for seat, kind, mover, _ in people)
    # The resignation leaves nothing to play for: the computer plays out both seats.
    rest = made[played_out:]
    assert {(kind, mover) for _, kind, mover, _ in rest} == {(COMPUTER, None)}
    assert {seat for seat, *_ in rest} == {0, 1}


def test_the_computers_seat_moves_as_the_computer(dave):
    game = play_forward(factories.against_computer(dave, level="random"), moves=6)
    made = moves(game)
    assert {(kind, mover) for seat, kind, mover, _ in made if seat == 1} == {(COMPUTER, None)}
    assert {(kind, mover) for seat, kind, mover, _ in made if seat == 0} == {(PERSON, dave.id)}


def as_file(export: dict) -> dict:
    """The export as its file reads, its players named otherwise (a study may not name the
    site's players)."""
    data = json.loads(json.dumps(export, cls=DjangoJSONEncoder))
    for player, name in zip(data["players"], ("Ada", "Grace"), strict=True):
        player["name"] = name
    return data


def test_who_moved_goes_out_with_the_export_and_back_in_with_the_import(
    timed_out_then_resigned, alice, bob, carol
):
    game = timed_out_then_resigned
    export = game_export(game=game)
    exported = [
        (entry["player"], entry["by"], entry.get("by_player"))
        for entry in export["entries"]
        if entry["kind"] == "move"
    ]
    usernames = {alice.id: "alice", bob.id: "bob", None: None}
    assert exported == [(seat, kind, usernames[mover]) for seat, kind, mover, _ in moves(game)]

    study = study_import(user=carol, data=as_file(export))

    # The kinds come back; the accounts do not: a study's seats belong to nobody.
    assert [(s, kind, mover) for s, kind, mover, _ in moves(study)] == [
        (seat, kind, None) for seat, kind, _, _ in moves(game)
    ]
    again = game_export(game=selectors.game_get(game_id=study.id))
    assert [e.get("by") for e in again["entries"]] == [e.get("by") for e in export["entries"]]
    # The engine's log is as it was: the deals and moves the deal verification reads.
    assert [{k: v for k, v in e.items() if k not in ("by", "by_player", "server")}
            for e in again["entries"]] == [
        {k: v for k, v in e.items() if k not in ("by", "by_player", "server")}
        for e in export["entries"]
    ]  # fmt: skip


@pytest.mark.parametrize(
    ("change", "refusal"),
    [
        (lambda move: move.update(by="someone"), "'by' says who made the move"),
        (lambda move: move.update(by="server"), "a move 'by' the server is one made at a timeout"),
        (lambda move: move.update(by="computer", by_player="alice"), "'by_player' is the username"),
    ],
)
def test_an_import_refuses_a_move_said_made_by_nobody_it_could_be(
    timed_out_then_resigned, carol, change, refusal
):
    data = as_file(game_export(game=timed_out_then_resigned))
    first_persons = next(e for e in data["entries"] if e.get("by") == PERSON)
    change(first_persons)
    with pytest.raises(GameError, match=refusal):
        study_import(user=carol, data=copy.deepcopy(data))


def test_an_import_refuses_a_persons_move_at_a_computers_seat(dave, carol):
    data = json.loads(
        json.dumps(
            game_export(game=finish(factories.against_computer(dave, level="random"))),
            cls=DjangoJSONEncoder,
        )
    )
    data["players"][0]["name"] = "Ada"
    computers = next(e for e in data["entries"] if e.get("player") == 1 and e["kind"] == "move")
    computers["by"] = PERSON
    with pytest.raises(GameError, match="a move 'by' a person at a computer's seat"):
        study_import(user=carol, data=data)
