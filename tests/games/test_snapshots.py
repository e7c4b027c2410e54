"""Snapshots: each move leaves its game in the cache, and the next move through the API plays
on it instead of reading the game, in the round trip that authenticates its token. A snapshot is
never trusted: a stale one, or one that cannot be read, costs only the read it was to save."""

import pytest
from django.core.cache import cache
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from games import engine, services, snapshots
from games import models as game_models
from games.models import Game, LogEntry
from tests.games.conftest import games_url, next_move

TRANSACTION_CONTROL = ("BEGIN", "COMMIT", "SAVEPOINT", "RELEASE", "ROLLBACK")


def statements(ctx: CaptureQueriesContext) -> list[str]:
    sql = [q["sql"] for q in ctx.captured_queries]
    return [s for s in sql if s.split()[0] not in TRANSACTION_CONTROL]


def move_now(game_id, users: dict) -> dict:
    """The next move in the game as stored now."""
    return next_move(Game.objects.get(pk=game_id), users)


@pytest.fixture
def play(django_capture_on_commit_callbacks):
    """`play(game_id, users, snapshot=...)`: the next player's first legal move, through the
    service, with the callbacks run on commit (as a real commit runs them)."""

    def move(game_id, users: dict, **extra) -> Game:
        with django_capture_on_commit_callbacks(execute=True):
            return services.move_submit(**move_now(game_id, users), **extra)

    return move


def stored_snapshot(game_id):
    return cache.get(snapshots.key(game_id))


def assert_log_whole(game_id) -> None:
    game = Game.objects.get(pk=game_id)
    numbers = list(LogEntry.objects.filter(game=game).values_list("number", flat=True))
    assert sorted(numbers) == list(range(game.ply))
    entries = [e.data for e in LogEntry.objects.filter(game=game).order_by("number")]
    replayed = engine.replay(
        entries, players=game.num_players, variant=game.variant, first_player=game.first_player
    )
    assert replayed.to_dict() == game.state


def test_a_move_leaves_the_game_as_it_wrote_it(start_game, alice, bob, play):
    users = {0: alice, 1: bob}
    game = start_game(alice, bob)
    alice.profile.display_name = "Alice the Tiler"
    alice.profile.save()

    moved = play(game.id, users)

    with CaptureQueriesContext(connection) as ctx:
        loaded = snapshots.load(stored_snapshot(game.id), game.id)
        seats = list(loaded.seats.all())
        names = [(s.position, s.user.username, s.user.profile.display_name) for s in seats]
        creator = loaded.created_by.username
        parsed = loaded.engine_state()
    assert statements(ctx) == []  # seats, users, profiles and the creator come with it
    assert names == [(0, "alice", "Alice the Tiler"), (1, "bob", "")]
    assert creator == "alice"
    stored = Game.objects.get(pk=game.id)
    for field in Game._meta.concrete_fields:
        assert getattr(loaded, field.attname) == getattr(stored, field.attname), field.name
    assert parsed.to_dict() == stored.state == moved.state
    assert seats[0].game is loaded and not loaded._state.adding


def test_a_snapshot_keeps_the_state_parsed(start_game, alice, bob, play, monkeypatch):
    game = start_game(alice, bob)
    play(game.id, {0: alice, 1: bob})
    # Another process: it has not parsed this version of the game, and parsing would fail.
    monkeypatch.setattr(game_models, "_parsed_states", {})
    monkeypatch.setattr(engine.State, "from_dict", None)

    loaded = snapshots.load(stored_snapshot(game.id), game.id)

    assert loaded.engine_state().to_dict() == Game.objects.get(pk=game.id).state


def test_a_snapshot_of_another_engine_is_not_read(start_game, alice, bob, play, monkeypatch):
    """A deploy that changes the engine's state (its attributes or format) changes the key."""
    game = start_game(alice, bob)
    key = snapshots.key(game.id)
    snapshots._format.cache_clear()
    monkeypatch.setattr(engine.State, "__slots__", (*engine.State.__slots__, "new"))
    try:
        assert snapshots.key(game.id) != key
    finally:
        snapshots._format.cache_clear()


def test_a_snapshot_holds_no_more_of_a_user_than_their_name(
    start_game, alice, bob, django_capture_on_commit_callbacks
):
    game_id = start_game(alice, bob).id
    game = Game.objects.with_seats().get(pk=game_id)  # users with every field, password and all
    assert game.seats.all()[0].user.password

    with django_capture_on_commit_callbacks(execute=True):
        snapshots.store_on_commit(game)

    _, _, seats, _ = stored_snapshot(game_id)

    for _seat, user, profile in seats:
        assert set(user) == {"id", "username"}
        assert set(profile) == {"id", "user_id", "display_name"}


def test_a_move_on_a_current_snapshot_is_one_statement(start_game, alice, bob, play):
    users = {0: alice, 1: bob}
    game = start_game(alice, bob)
    play(game.id, users)
    snapshot, move = stored_snapshot(game.id), move_now(game.id, users)

    with CaptureQueriesContext(connection) as ctx:
        moved = services.move_submit(**move, snapshot=snapshot)

    sql = statements(ctx)
    assert len(sql) == 1, sql  # the write; no read
    assert 'INSERT INTO "games_logentry"' in sql[0] and '"updated_at" = ' in sql[0]
    assert moved.ply == Game.objects.get(pk=game.id).ply
    assert_log_whole(game.id)


def test_a_move_that_ends_the_game_on_its_snapshot_is_played_under_the_lock_at_once(
    start_game, alice, bob, play
):
    users = {0: alice, 1: bob}
    game = start_game(alice, bob)
    play(game.id, users)
    while True:
        with CaptureQueriesContext(connection) as ctx:
            moved = play(game.id, users, snapshot=stored_snapshot(game.id))
        if moved.status == Game.Status.FINISHED:
            break

    # The service's reads of the game with its seats (not the test's own read of the next move).
    reads = [s for s in statements(ctx) if s.startswith("SELECT") and '"games_game" "p0"' in s]
    assert len(reads) == 1 and reads[0].endswith("FOR UPDATE"), reads  # no unlocked read first
    assert Game.objects.get(pk=game.id).status == Game.Status.FINISHED
    assert_log_whole(game.id)


def test_a_stale_snapshot_is_checked_against_the_database(start_game, alice, bob, play):
    """The snapshot is a move behind: on it the move looks stale, but it is not."""
    users = {0: alice, 1: bob}
    game = start_game(alice, bob)
    play(game.id, users)
    behind = stored_snapshot(game.id)
    play(game.id, users)

    moved = play(game.id, users, snapshot=behind)

    assert moved.ply == Game.objects.get(pk=game.id).ply
    assert_log_whole(game.id)


def test_a_move_refused_on_a_stale_snapshot_is_refused_only_if_the_game_refuses_it(
    start_game, alice, bob, play
):
    users = {0: alice, 1: bob}
    game = start_game(alice, bob)
    play(game.id, users)
    behind = stored_snapshot(game.id)
    play(game.id, users)
    current = Game.objects.get(pk=game.id)

    with pytest.raises(services.StaleMove):
        services.move_submit(**{**move_now(game.id, users), "expected_ply": 1}, snapshot=behind)

    assert Game.objects.get(pk=game.id).ply == current.ply


def test_a_game_changed_since_its_snapshot_is_read_again(start_game, alice, bob, play):
    """Same ply, new version (a player's new name): the write on the snapshot applies to
    nothing, and the move is played on the game as it is, new name and all."""
    users = {0: alice, 1: bob}
    game = start_game(alice, bob)
    play(game.id, users)
    snapshot = stored_snapshot(game.id)
    alice.profile.display_name = "Alice the Tiler"
    alice.profile.save()  # gives her games a new version

    moved = play(game.id, users, snapshot=snapshot)

    assert moved.seats.all()[0].user.profile.display_name == "Alice the Tiler"
    assert moved.ply == Game.objects.get(pk=game.id).ply
    assert_log_whole(game.id)


@pytest.mark.parametrize(
    "garbage",
    [b"not a snapshot", ("default",), ("default", {"id": "x"}, []), 42],
)
def test_an_unreadable_snapshot_is_a_miss(start_game, alice, bob, play, garbage):
    users = {0: alice, 1: bob}
    game = start_game(alice, bob)

    moved = play(game.id, users, snapshot=garbage)

    assert moved.ply == Game.objects.get(pk=game.id).ply
    assert_log_whole(game.id)


def test_another_games_snapshot_is_a_miss(start_game, alice, bob, carol, play):
    game, other = start_game(alice, bob), start_game(alice, carol)
    play(other.id, {0: alice, 1: carol})

    assert snapshots.load(stored_snapshot(other.id), game.id) is None
    moved = play(game.id, {0: alice, 1: bob}, snapshot=stored_snapshot(other.id))
    assert moved.id == game.id and moved.ply == Game.objects.get(pk=game.id).ply


def test_token_moves_get_the_snapshot_with_the_token(
    start_game, alice, bob, token_lookups, django_capture_on_commit_callbacks
):
    """On Redis, through the API: the token's lookup reads the game's snapshot in its own round
    trip, and the move is then one statement."""
    users = {0: alice, 1: bob}
    clients = {
        user.pk: APIClient(HTTP_AUTHORIZATION=f"Token {Token.objects.create(user=user).key}")
        for user in users.values()
    }
    game = start_game(alice, bob)
    key = snapshots.key(game.id)
    queries = []
    for _ in range(4):
        move = move_now(game.id, users)  # before counting: this reads the game
        body = {"move": move["move"], "expected_ply": move["expected_ply"]}
        client = clients[move["user"].pk]
        with (
            CaptureQueriesContext(connection) as ctx,
            django_capture_on_commit_callbacks(execute=True),
        ):
            response = client.post(games_url(game.id, "moves"), body, format="json")
        assert response.status_code == 201, response.json()
        queries.append(len(statements(ctx)))

    assert all(key in keys for keys in token_lookups)
    # Each player's first request teaches this process the token's owner; after that, the
    # snapshot comes with the token and the move writes without reading.
    assert queries[2:] == [1, 1], queries
    assert_log_whole(game.id)
