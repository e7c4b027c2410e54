"""History benchmark: the leaderboard and the history of finished games over a large community.

    python scripts/bench_history.py            # or: make bench-history
    python scripts/bench_history.py --reuse    # keep the seeded data if it is there

Creates (if needed) and migrates a database of its own (`azul_bench_history`, or
BENCH_HISTORY_DATABASE_URL), seeds it with `manage.py seed_history --players 10000 --games
100000 --flush` (in this process, set up as the site; unless `--reuse` and that many finished
games are there), `VACUUM ANALYZE`, then serves it with gunicorn (DEBUG=0, as `bench_web.py`)
and measures, through HTTP with a few concurrent clients, p50 and p95 over `--requests`
anonymous requests of each page.

Target (issue 14): the leaderboard and the first and 50th page of history under 100 ms p95.
Reported beside them: the leaderboard with the computer levels, a level's page, and how long
`manage.py rate_levels` (the levels' fit, #36) takes over every game with a computer seat.
"""

from __future__ import annotations

import argparse
import os
import time
from urllib.parse import quote

from harness.clients import free_port
from harness.floods import run_get
from harness.report import goal, table_header
from harness.stack import (
    BENCH_REDIS,
    Stack,
    bench_env,
    django_setup,
    flush_redis,
    manage,
    prepare,
    vacuum,
)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_bench_history"
TARGET_MS = 100.0


def finished_games(database_url: str) -> int:
    import psycopg

    with psycopg.connect(database_url) as conn:
        row = conn.execute("SELECT count(*) FROM games_game WHERE status = 'finished'").fetchone()
        return row[0]


BENCH_DISPLAY_NAME = "Bench Player B."


def a_player(database_url: str) -> str:
    """The username of a seeded player with a typical number of games (the median player by
    games), who is given a display name (`BENCH_DISPLAY_NAME`: the seed gives none) so that the
    history can be filtered by either name, as players type them."""
    import psycopg

    with psycopg.connect(database_url) as conn:
        user_id, username = conn.execute(
            "SELECT u.id, u.username FROM ratings_playerrecord r"
            " JOIN accounts_user u ON u.id = r.user_id WHERE r.variant = '' AND r.num_players = 0"
            " ORDER BY r.games, r.user_id OFFSET (SELECT count(*) / 2 FROM ratings_playerrecord"
            " WHERE variant = '' AND num_players = 0) LIMIT 1"
        ).fetchone()
        conn.execute(
            "UPDATE accounts_profile SET display_name = %s WHERE user_id = %s",
            [BENCH_DISPLAY_NAME, user_id],
        )
        return username


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=10_000)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reuse", action="store_true", help="keep the seeded data if there")
    parser.add_argument("--requests", type=int, default=200, help="per page")
    parser.add_argument("--concurrency", type=int, default=4)
    args = parser.parse_args()

    database_url = os.environ.get("BENCH_HISTORY_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_REDIS_URL", BENCH_REDIS)
    flush_redis(redis_url)
    env = bench_env(database_url, redis_url)
    prepare(env, collectstatic=True)
    django_setup(env)
    if args.reuse and finished_games(database_url) >= args.games:
        print(f"Reusing the {finished_games(database_url)} finished games of {database_url}")
    else:
        from django.core.management import call_command
        from django.db import connections

        print(f"Seeding {database_url} ...", flush=True)
        started = time.perf_counter()
        # In this process, set up as the site (a process of its own imported it once more).
        call_command(
            "seed_history", players=args.players, games=args.games, seed=args.seed, flush=True
        )
        connections.close_all()
        print(f"seeding took {time.perf_counter() - started:.1f} s", flush=True)
    started = time.perf_counter()
    vacuum(database_url)
    print(f"VACUUM ANALYZE took {time.perf_counter() - started:.1f} s", flush=True)
    player = a_player(database_url)
    # The computer levels' fit (#36) over every game with a computer seat (about 5% of them).
    started = time.perf_counter()
    manage(env, "rate_levels")
    levels_seconds = time.perf_counter() - started

    # The 50th page, or the last one when a smaller seed (`--games`) has fewer.
    from games.selectors import HISTORY_PAGE_SIZE

    deep = max(1, min(50, -(-finished_games(database_url) // HISTORY_PAGE_SIZE)))

    port = free_port()
    pages = [
        ("leaderboard page", "/leaderboard/", True),
        ("leaderboard API", "/api/leaderboard/", True),
        ("leaderboard with levels", "/leaderboard/?computers=on", False),
        ("a computer level's page", "/computer/strong/", False),
        ("history page 1", "/history/", True),
        (f"history page {deep}", f"/history/?page={deep}", True),
        ("games API finished p1", "/api/games/?status=finished", True),
        (f"games API finished p{deep}", f"/api/games/?status=finished&page={deep}", True),
        (f"history of player {player}", f"/history/?player={player}", False),
        ("history by display name", f"/history/?player={quote(BENCH_DISPLAY_NAME)}", False),
    ]
    results = []
    with Stack(env, prefix="bench_history_") as stack:
        stack.site(port, "--log-level", "warning")
        # Warm every worker's imports, templates and connections (no more requests than a
        # page is measured with: a toy run's few are enough for its workers).
        warm = min(20, args.requests)
        for _, path, _ in pages:
            run_get("warm", port, path, {}, args.concurrency, 5, warm)
        for name, path, _ in pages:
            results.append(run_get(name, port, path, {}, args.concurrency, 120, args.requests))

    print(
        f"\n{args.concurrency} concurrent clients, {os.cpu_count()} CPUs, gunicorn"
        " (gunicorn.conf.py), PostgreSQL, Redis cache, DEBUG=0, anonymous requests\n"
    )
    header = f"{'page':<28} {'path':<40} {'requests':>8} {'errors':>6} {'p50 ms':>8} {'p95 ms':>8}"
    table_header(header)
    for (_, path, _), r in zip(pages, results, strict=True):
        print(
            f"{r.name:<28} {path:<40} {len(r.latencies):>8} {r.errors:>6}"
            f" {r.pct(0.5):>8.1f} {r.pct(0.95):>8.1f}"
        )
    print(f"\nmanage.py rate_levels (the levels' fit, its own process): {levels_seconds:.1f} s")
    print()
    for (_, _, target), r in zip(pages, results, strict=True):
        kind = "target" if target else "reported"
        met = r.pct(0.95) < TARGET_MS and not r.errors
        print(goal(f"{r.name}: p95 {r.pct(0.95):.1f} ms ({kind} < {TARGET_MS:.0f} ms)", met))


if __name__ == "__main__":
    main()
