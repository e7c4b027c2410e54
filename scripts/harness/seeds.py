"""Seeds: many players and games at once for the benchmarks (after `django.setup()`): bench_live's
games and their watchers (`seed_boards`), bench_web's pairs and long game (`seed_pairs`), and
bench_sweep's bulk inserts (`empty_tables`, `bulk_users`, `start_states`, `times_as_given`).
"""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from unittest.mock import patch

from harness.players import api_token, bench_session, bench_user, two_player_game

# -- bench_live's games and their watchers ---------------------------------------------------------


@dataclass
class Seeded:
    """Games of two players each, their tokens, and the sessions of users who watch them."""

    games: list[str]
    players: dict[str, dict[str, str]]  # game id -> {username: token}
    sessions: list[str]  # session keys of the watching users


def seed_boards(games: int, watchers: int) -> Seeded:
    """Every game deleted; `games` games of two players (`live_p<i>a`, `live_p<i>b`), and the
    sessions of `watchers` users (bench_live's boards)."""
    import django

    django.setup()
    from games.models import Game

    Game.objects.all().delete()
    result = Seeded(
        games=[],
        players={},
        sessions=[bench_session(bench_user(f"live_w{i}")) for i in range(watchers)],
    )
    for i in range(games):
        a, b = bench_user(f"live_p{i}a"), bench_user(f"live_p{i}b")
        game = two_player_game(a, b)
        result.games.append(str(game.id))
        result.players[str(game.id)] = {u.username: api_token(u) for u in (a, b)}
    return result


# -- many players and games at once (bench_sweep's bulk inserts) ---------------------------------

BATCH = 10_000  # rows a bulk insert


def empty_tables() -> None:
    """Every user and game deleted, and everything that refers to them (seats, logs,
    notifications, profiles, tokens): for a database that is the script's own."""
    from django.contrib.auth import get_user_model
    from django.db import connection

    from games.models import Game

    tables = [get_user_model()._meta.db_table, Game._meta.db_table]
    with connection.cursor() as cursor:
        cursor.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")


def bulk_users(count: int, prefix: str = "bench") -> list[int]:
    """`count` players (`<prefix>00000`, ...) with their profiles, inserted in bulk: their ids."""
    from django.contrib.auth import get_user_model

    from accounts.confusables import skeleton
    from accounts.models import Profile

    user_model = get_user_model()
    # bulk_create calls no save(), which sets each name's look-alike skeleton (unique).
    users = user_model.objects.bulk_create(
        [
            user_model(
                username=f"{prefix}{i:05d}",
                username_skeleton=skeleton(f"{prefix}{i:05d}"),
                email=f"{prefix}{i:05d}@bench.test",
                password="!",
            )
            for i in range(count)
        ],
        batch_size=BATCH,
    )
    # bulk_create sends no post_save, so the signal that gives every user a profile does not run.
    Profile.objects.bulk_create([Profile(user=u) for u in users], batch_size=BATCH)
    return [u.pk for u in users]


def start_states(count: int, seed: int) -> dict[int, list[dict]]:
    """Real started games from the engine (new game, then the first deal drawn with a seeded
    generator), as `Game.state` holds them, by the player to move."""
    import azul

    rng = random.Random(seed)
    states: dict[int, list[dict]] = {0: [], 1: []}
    for i in range(count):
        first = i % 2
        state = azul.new_game(2, "gray" if i % 4 >= 2 else "colored", first)
        state = azul.deal(state, tiles=azul.draw_tiles(state, rng))
        assert state.to_move == [first]
        states[first].append(state.to_dict())
    return states


@contextmanager
def times_as_given() -> Iterator[None]:
    """Let bulk_create write the games' `created_at` and `updated_at` as set, rather than now
    (auto_now_add, auto_now): a turn's start is the game's last write."""
    from games.models import Game

    with ExitStack() as stack:
        for name in ("created_at", "updated_at"):
            game_field = Game._meta.get_field(name)
            stack.enter_context(patch.object(game_field, "auto_now", False))
            stack.enter_context(patch.object(game_field, "auto_now_add", False))
        yield


# -- the web benchmarks' seed ----------------------------------------------------------------------


@dataclass
class Seed:
    long_game: str
    long_ply: int
    session_cookie: str
    watcher_token: str
    # Per client thread: {username: token} and the ids of that pair's games.
    pairs: list[tuple[dict[str, str], list[str]]] = field(default_factory=list)


def seed_pairs(concurrency: int, games_per_pair: int, long_moves: int) -> Seed:
    """Every game deleted; a long game of `long_moves` moves and its watcher; and per client a
    pair of players with `games_per_pair` games between them (bench_web's scenarios)."""
    import django

    django.setup()
    import azul
    from games import selectors, services
    from games.models import Game

    Game.objects.all().delete()

    rng = random.Random(1)
    watcher = bench_user("bench_watcher")
    a, b = bench_user("bench_long_a"), bench_user("bench_long_b")
    long_game = two_player_game(a, b)
    by_seat = {s.position: s.user for s in long_game.seats.all()}
    for _ in range(long_moves):
        game = selectors.game_get(game_id=long_game.id)
        state = azul.State.from_dict(game.state)
        if game.status != Game.Status.ACTIVE or not state.to_move:
            break
        position = state.to_move[0]
        move = str(azul.random_move(state, rng, position))
        services.move_submit(
            game_id=game.id, user=by_seat[position], move=move, expected_ply=game.ply
        )
    long_game = selectors.game_get(game_id=long_game.id)

    result = Seed(
        long_game=str(long_game.id),
        long_ply=long_game.ply,
        session_cookie=bench_session(watcher),
        watcher_token=api_token(watcher),
    )
    for i in range(concurrency):
        p, q = bench_user(f"bench_p{i}a"), bench_user(f"bench_p{i}b")
        games = [str(two_player_game(p, q).id) for _ in range(games_per_pair)]
        result.pairs.append(({p.username: api_token(p), q.username: api_token(q)}, games))
    return result
