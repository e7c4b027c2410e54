"""The plain-SQL reads and writes of the move path read and store what the ORM would."""

import functools
import uuid
import warnings

import pytest
from django.apps import apps
from django.db import IntegrityError, connections, transaction
from django.db.models import JSONField, Value
from django.utils import timezone

from games import rows
from games.models import Game, LogEntry

pytestmark = pytest.mark.django_db


@pytest.fixture
def game(start_game, alice, bob) -> Game:
    return start_game(alice, bob)


def test_insert_stores_the_rows_as_the_orm_reads_them(game):
    before = timezone.now()
    entries = [
        LogEntry(game=game, number=game.ply, kind="move", player=0, data={"move": "F1 red 1"}),
        LogEntry(game=game, number=game.ply + 1, kind="deal", data={"tiles": [["red"] * 4]}),
    ]

    rows.insert(entries)

    stored = list(LogEntry.objects.filter(game=game, number__gte=game.ply).order_by("number"))
    assert [(e.number, e.kind, e.player, e.data) for e in stored] == [
        (game.ply, "move", 0, {"move": "F1 red 1"}),
        (game.ply + 1, "deal", None, {"tiles": [["red"] * 4]}),
    ]
    assert all(e.created_at >= before for e in stored)  # auto_now_add, as save() would set it
    assert not entries[0]._state.adding


def test_insert_keeps_the_log_unique(game):
    with pytest.raises(IntegrityError, match="logentry_unique_number"):
        rows.insert([LogEntry(game=game, number=0, kind="deal", data={"tiles": []})])


def test_update_sets_the_named_fields_and_updated_at_only(game):
    stored = Game.objects.get(pk=game.pk)
    game.ply = 99
    game.state = {**game.state, "round": 7}
    game.days_per_move = 14  # not named: must not be written

    assert rows.update(game, ["ply", "state"]) == 1

    fresh = Game.objects.get(pk=game.pk)
    assert fresh.ply == 99
    assert fresh.state["round"] == 7
    assert fresh.days_per_move == stored.days_per_move
    assert fresh.updated_at > stored.updated_at
    assert fresh.updated_at == game.updated_at  # the instance carries the value written


def test_update_of_a_missing_row_changes_nothing(game):
    Game.objects.filter(pk=game.pk).delete()
    assert rows.update(game, ["ply"]) == 0


def test_insert_and_update_writes_both(game):
    entry = LogEntry(game=game, number=game.ply, kind="move", player=0, data={"move": "C red 1"})
    game.ply += 1

    assert rows.insert_and_update([entry], game, ["ply"]) == 1

    assert Game.objects.get(pk=game.pk).ply == game.ply
    assert LogEntry.objects.get(game=game, number=game.ply - 1).data == {"move": "C red 1"}


def test_insert_and_update_writes_neither_when_the_insert_fails(game):
    duplicate = LogEntry(game=game, number=0, kind="deal", data={"tiles": []})
    game.ply = 500

    with pytest.raises(IntegrityError, match="logentry_unique_number"), transaction.atomic():
        rows.insert_and_update([duplicate], game, ["ply"])

    assert Game.objects.get(pk=game.pk).ply != 500


def _fields(instance) -> dict:
    return {f.attname: getattr(instance, f.attname) for f in type(instance)._meta.concrete_fields}


@pytest.fixture
def mixed_game(alice, bob):
    """Seats of every shape: a player with a profile, a computer, an invitation, an open seat."""
    from games import services

    return services.game_create(
        creator=alice,
        num_players=4,
        variant="gray",
        days_per_move=5,
        seats=[
            services.SeatSpec(kind="computer", level="greedy"),
            services.SeatSpec(kind="invite", username=bob.username),
            services.SeatSpec(kind="open"),
        ],
    )


def test_select_with_children_reads_the_parent_and_its_children_in_one_row(
    mixed_game, django_assert_num_queries
):
    from games.models import Seat

    expected = list(
        Seat.objects.select_related("user__profile").filter(game=mixed_game).order_by("position")
    )
    only = {"user": ["username"], "user__profile": ["display_name"]}

    with django_assert_num_queries(1):
        game, seats = rows.select_with_children(
            Game,
            mixed_game.pk,
            "seats",
            ["user", "user__profile"],
            only=only,
            order_by=["position"],
        )
        got = [
            (
                _fields(s),
                s.game is game,
                s.user and (s.user.pk, s.user.username),
                s.user and (s.user.profile.pk, s.user.profile.display_name),
                s.user and s.user.profile.user is s.user,
            )
            for s in seats
        ]

    assert _fields(game) == _fields(Game.objects.get(pk=mixed_game.pk))
    assert got == [
        (
            _fields(s),
            True,
            s.user and (s.user.pk, s.user.username),
            s.user and (s.user.profile.pk, s.user.profile.display_name),
            s.user and True,
        )
        for s in expected
    ]
    assert [s.position for s in seats] == [0, 1, 2, 3]
    # What `only` leaves out is deferred, not wrong: reading it costs a query.
    assert seats[0].user.get_deferred_fields() >= {"email", "password"}
    assert "time_zone" in seats[0].user.profile.get_deferred_fields()
    with django_assert_num_queries(1):
        assert seats[0].user.email == "alice@example.com"
    assert not game._state.adding and not seats[0]._state.adding


def test_select_with_children_of_a_missing_row_and_with_a_lock(mixed_game):
    assert rows.select_with_children(Game, uuid.uuid4(), "seats") is None
    with transaction.atomic():
        game, seats = rows.select_with_children(Game, mixed_game.pk, "seats", lock=True)
    assert game.pk == mixed_game.pk and len(seats) == 4


def test_select_with_children_refuses_columns_a_json_array_would_change(mixed_game):
    from django.db import NotSupportedError

    # The log's `data` is JSON and its `created_at` a time: neither comes back as it went in.
    with pytest.raises(NotSupportedError, match="JSON array"):
        rows.select_with_children(Game, mixed_game.pk, "log_entries")


def _outcome(convert, value):
    """What converting `value` gives: its type and value (a JSON wrapper by what it wraps), or
    the type of the error it raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a naive datetime warns on both ways alike
        try:
            result = convert(value)
        except Exception as exc:  # noqa: BLE001 - the same failure is the expected outcome
            return ("raises", type(exc))
    if hasattr(result, "obj") and hasattr(result, "dumps"):  # psycopg's Jsonb
        return (type(result), result.obj, result.dumps(result.obj))
    return (type(result), result)


@pytest.mark.parametrize("alias", ["default"])
def test_the_shortcut_to_database_values_gives_what_django_gives(alias):
    """rows.db_value_for_save is field.get_db_prep_save for every field of the project's models
    and values of every kind they hold (and some they should not)."""
    connection = connections[alias]
    now = timezone.now()
    values = [
        None,
        7,
        True,
        "7",
        "x",
        "",
        7.5,
        now,
        now.replace(tzinfo=None),
        uuid.uuid4(),
        str(uuid.uuid4()),
        {"a": [1, "b"]},
        [1, "b"],
        Value(None, output_field=JSONField()),
    ]
    fields = [
        field
        for model in apps.get_models()
        if model._meta.app_label in ("games", "accounts", "authtoken")
        for field in model._meta.concrete_fields
    ]
    kinds = {type(field).__name__ for field in fields}
    assert {"UUIDField", "JSONField", "DateTimeField", "ForeignKey", "CharField"} <= kinds
    for field in fields:
        django_way = functools.partial(field.get_db_prep_save, connection=connection)
        shortcut = rows.db_value_for_save(field, alias)
        for value in values:
            assert _outcome(shortcut, value) == _outcome(django_way, value), (field, value)
