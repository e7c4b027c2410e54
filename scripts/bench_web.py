"""Web-layer benchmark: gunicorn on PostgreSQL, measured from a loopback load generator.

    python scripts/bench_web.py            # or: make bench-web

Creates (if needed) and migrates a dedicated database (`azul_bench`, or BENCH_DATABASE_URL),
seeds players and games through the services, starts gunicorn with DEBUG off, then measures
requests per second and p50/p95 latency, each with CONCURRENCY client threads, for:

- the trivial view (`/healthz`, one `SELECT 1`): the baseline,
- the board page of a long game (session login),
- the game detail API of the same game (token auth),
- move submission: each client thread is a pair of players with their own games, posting legal
  moves with the right `expected_ply` (token auth) and starting its next game when one ends.

The scenarios take turns in rounds (`--rounds`), so that a drift in the machine's speed during
the run does not favour one of them; each prints the totals of its slices.

Targets: the board page and the game API cost at most 4x the trivial view, move submission at
most 6x (by p50 latency and by server CPU per request); move submission p95 under 50 ms with 8
concurrent players.
"""

from __future__ import annotations

import argparse
import os

from harness.clients import free_port
from harness.floods import (
    LOAD_GENERATOR,
    SERVER_PROGRAMS,
    MovingPair,
    Result,
    run_get,
    run_moves,
    with_cpu,
)
from harness.report import goal, table_header
from harness.seeds import seed_pairs
from harness.stack import (
    BENCH_REDIS,
    Stack,
    bench_env,
    django_setup,
    flush_redis,
    gunicorn_config,
    prepare,
    vacuum,
)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_bench"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=8.0, help="per scenario, in all")
    parser.add_argument("--max-requests", type=int, default=4000, help="per scenario, in all")
    parser.add_argument(
        "--rounds", type=int, default=4, help="the scenarios run in turn, this many times"
    )
    parser.add_argument("--workers", type=int, help="default: gunicorn.conf.py's")
    parser.add_argument("--threads", type=int, help="default: gunicorn.conf.py's")
    parser.add_argument("--long-moves", type=int, default=120)
    args = parser.parse_args()

    database_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_REDIS_URL", BENCH_REDIS)
    flush_redis(redis_url)
    env = bench_env(database_url, redis_url)
    prepare(env, collectstatic=True)
    django_setup(env)
    print(f"Seeding {database_url} ...", flush=True)
    data = seed_pairs(args.concurrency, games_per_pair=8, long_moves=args.long_moves)
    vacuum(database_url)

    port = free_port()
    with Stack(env, prefix="bench_web_") as stack:
        options = [*(["--workers", str(args.workers)] if args.workers else [])]
        options += ["--threads", str(args.threads)] if args.threads else []
        stack.site(port, "--log-level", "warning", *options)
        board = f"/games/{data.long_game}/"
        session = {"Cookie": f"sessionid={data.session_cookie}"}
        token = {"Authorization": f"Token {data.watcher_token}"}
        # Warm every worker's imports, templates and connections before measuring (no more
        # requests than a scenario is measured with: a toy run's few are enough).
        warm = min(200, args.max_requests)
        run_get("warm", port, board, session, args.concurrency, 2, warm)
        run_get("warm", port, f"/api/games/{data.long_game}/", token, args.concurrency, 2, warm)
        # The scenarios take turns, a slice each per round, so that a change in the machine's
        # speed during the run (seen here: a third either way within a minute) weighs on all of
        # them alike rather than on whichever ran then.
        per_round = (args.concurrency, args.seconds / args.rounds, args.max_requests // args.rounds)
        pairs = [
            MovingPair(port, tokens, games, seed=index)
            for index, (tokens, games) in enumerate(data.pairs)
        ]
        scenarios = [
            lambda: run_get("trivial view (/healthz)", port, "/healthz", {}, *per_round),
            lambda: run_get(
                f"board page ({data.long_ply} log entries)", port, board, session, *per_round
            ),
            lambda: run_get(
                "game detail API (GET)", port, f"/api/games/{data.long_game}/", token, *per_round
            ),
            lambda: run_moves(pairs, *per_round[1:]),
        ]
        results: list[Result] = []
        for round_number in range(args.rounds):
            for index, scenario in enumerate(scenarios):
                result = with_cpu(scenario)
                if round_number == 0:
                    results.append(result)
                else:
                    results[index].add(result)
    report(args, results)


def report(args: argparse.Namespace, results: list[Result]) -> None:
    base = results[0].pct(0.5) or 1e-9
    config = gunicorn_config()
    workers, threads = args.workers or config["workers"], args.threads or config["threads"]
    print(
        f"\ngunicorn {workers} workers x {threads} threads, {args.concurrency} concurrent clients,"
        f" {os.cpu_count()} CPUs, PostgreSQL, Redis cache, DEBUG=0\n"
    )
    cpu_base = results[0].cpu_ms_per_request or 1e-9
    header = f"{'scenario':<36} {'requests':>8} {'errors':>6} {'req/s':>8} {'p50 ms':>8}"
    header += f" {'p95 ms':>8} {'x trivial':>9} {'CPU ms/req':>10} {'x trivial':>9}"
    table_header(header)
    for r in results:
        print(
            f"{r.name:<36} {len(r.latencies):>8} {r.errors:>6} {r.rps:>8.0f} {r.pct(0.5):>8.1f}"
            f" {r.pct(0.95):>8.1f} {r.pct(0.5) / base:>9.1f}"
            f" {r.cpu_ms_per_request:>10.2f} {r.cpu_ms_per_request / cpu_base:>9.1f}"
        )
    print("\nCPU ms per request, by program (the load generator's own is not the server's):")
    programs = (*SERVER_PROGRAMS, LOAD_GENERATOR)
    print(f"{'scenario':<36}" + "".join(f" {p:>14}" for p in programs))
    for r in results:
        print(f"{r.name:<36}" + "".join(f" {r.cpu_ms(p):>14.2f}" for p in programs))
    moves_r = results[3]
    print(
        "\n(x trivial: by p50 latency, then by server CPU per request: gunicorn, PostgreSQL and"
        " Redis processes, without the load generator)"
    )
    print()
    targets = [(results[1], 4), (results[2], 4), (results[3], 6)]
    for r, times in targets:
        for measure, value, baseline in (
            ("p50", r.pct(0.5), base),
            ("server CPU", r.cpu_ms_per_request, cpu_base),
        ):
            ratio = value / baseline
            what = f"{r.name} {measure} {ratio:.1f}x trivial (target <= {times}x)"
            print(goal(what, value <= times * baseline))
    print(
        goal(
            f"move submission p95 {moves_r.pct(0.95):.1f} ms (target < 50 ms)",
            moves_r.pct(0.95) < 50,
        )
    )


if __name__ == "__main__":
    main()
