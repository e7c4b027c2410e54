"""Live-updates benchmark: how soon a move reaches the open boards, and how many waiting boards one
live process holds.

    python scripts/bench_live.py            # or: make bench-live

Serves the site as deployed (README, "Serving"), on PostgreSQL with the Redis cache and DEBUG
off: gunicorn's synchronous workers (gunicorn.conf.py) for the site, and ONE live process
(gunicorn with one uvicorn worker, azul_site/asgi.py) for the requests that wait. The load
generator talks to each directly (no proxy), from this machine.

For each number of open boards N (`--boards`, default 250, 1000 and 2000), spread over games of
two players (`--per-game` boards each), every board does what the page does (static/games/
board.js): a long-poll on the live process (`/games/<id>/live/?wait=...`, `If-None-Match` with
the ETag it has), then, once told the game changed, the board partial from the site, then the
next long-poll. Meanwhile:

- idle: the live process's threads, memory and CPU while the N boards wait, and the latency of
  a request to it that does not wait (`/healthz`);
- play: moves at `--rate` a second for `--seconds` on random games, made through the site's API
  as players make them; for each board of a moved game, the time from the move's answer (the
  moment the mover's own board changes) to the board being told, and to the new board loaded;
- all at once: one move in every game, one after the other, which wakes all N boards within
  seconds: the time from each move's answer to its boards being told, and to the last one.

Then the page's fallback, the ETag poll of a server that cannot wait: 304 answers of the site's
synchronous workers, and the CPU each costs. And, for the choice of serving the site itself with
synchronous workers (`--no-site-asgi` skips it): the trivial view and move submission of
`make bench-web` under the site's synchronous workers and under uvicorn workers.

Uses its own database (`azul_bench_live`, or BENCH_DATABASE_URL) and Redis database
(BENCH_REDIS_URL), emptied at the start.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import time
import uuid
from dataclasses import dataclass, field
from functools import partial

from harness.clients import aget, free_port
from harness.floods import MovingPair, run_get, run_moves, usage
from harness.players import LONG_POLL_SECONDS, Board, Mover, keep_board, latencies
from harness.report import percentile, table_header
from harness.seeds import Seeded, seed_boards, seed_pairs
from harness.stack import (
    Stack,
    bench_env,
    django_setup,
    flush_redis,
    gunicorn_config,
    most_files,
    prepare,
    vacuum,
)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_bench_live"
DEFAULT_REDIS = "redis://127.0.0.1:6379/12"


def pct(values: list[float], q: float) -> float:
    """Milliseconds."""
    return percentile(values, q) * 1000


# -- one number of boards --------------------------------------------------------------------------


@dataclass
class Round:
    boards: int
    games: int
    threads_idle: int = 0
    threads_waiting: int = 0
    rss_idle: float = 0.0
    rss_waiting: float = 0.0
    idle_cpu_percent: float = 0.0
    probe_ms: list[float] = field(default_factory=list)
    moves: int = 0
    told: list[float] = field(default_factory=list)
    loaded: list[float] = field(default_factory=list)
    play_cpu_ms_per_board_told: float = 0.0
    herd_moves_s: float = 0.0  # making one move in every game, one after the other
    herd_last_s: float = 0.0
    herd: list[float] = field(default_factory=list)
    errors: int = 0


def current_plies(games: list[str]) -> dict[uuid.UUID, int]:
    from django.db import connection

    from games.models import Game

    try:
        return dict(Game.objects.filter(pk__in=games).values_list("pk", "ply"))
    finally:
        connection.close()


async def run_round(args, seeded: Seeded, n: int, live: int, ports) -> Round:
    live_port, site_port = ports
    games = seeded.games[: max(1, n // args.per_game)]
    result = Round(boards=n, games=len(games))
    before = usage(live)
    result.threads_idle, result.rss_idle = before.threads, before.rss_mib

    stop = asyncio.Event()
    armed = [0]
    all_armed = asyncio.Event()

    def arm():
        armed[0] += 1
        if armed[0] == n:
            all_armed.set()

    plies = await asyncio.to_thread(current_plies, games)
    boards = [
        Board(
            games[i % len(games)],
            seeded.sessions[i % len(seeded.sessions)],
            plies[uuid.UUID(games[i % len(games)])],
        )
        for i in range(n)
    ]
    tasks = [asyncio.ensure_future(keep_board(b, live_port, site_port, stop, arm)) for b in boards]
    await asyncio.wait_for(all_armed.wait(), timeout=120)
    # Until the live process holds every wait (a thread each) and has answered the rest, or its
    # threads stay as they are over a quiet second: the count can stop one short of a thread a
    # board (seen: 10 idle, 15 with 6 boards), which made this wait out its whole 120 s.
    deadline = time.monotonic() + 120
    previous = -1
    while time.monotonic() < deadline:
        before = usage(live)
        await asyncio.sleep(1)
        after = usage(live)
        quiet = after.cpu - before.cpu < 0.1
        if quiet and (after.threads >= result.threads_idle + n or after.threads == previous):
            break
        previous = after.threads

    # Idle: N boards waiting.
    start = usage(live)
    await asyncio.sleep(args.idle_seconds)
    idle = usage(live)
    result.threads_waiting, result.rss_waiting = idle.threads, idle.rss_mib
    result.idle_cpu_percent = (idle.cpu - start.cpu) / args.idle_seconds * 100
    for _ in range(10):
        started = time.perf_counter()
        status, _, _ = await aget(live_port, "/healthz", {})
        result.probe_ms.append((time.perf_counter() - started) * 1000)
        await asyncio.sleep(0.05)

    # Play: moves at a rate on random games, from a thread of their own.
    mover = Mover(site_port, seeded)
    rng = random.Random(n)
    count = int(args.rate * args.seconds)

    def play():
        begin = time.perf_counter()
        for i in range(count):
            delay = begin + i / args.rate - time.perf_counter()
            if delay > 0:
                time.sleep(delay)
            mover.move(rng.choice(games))

    cpu_before = usage(live).cpu
    told_before = sum(len(b.told) for b in boards)
    await asyncio.to_thread(play)
    await asyncio.sleep(2)  # the last moves' boards
    cpu_play = usage(live).cpu - cpu_before
    told_during = sum(len(b.told) for b in boards) - told_before
    result.moves = len(mover.moves)
    result.told = latencies(boards, mover.moves, "told")
    result.loaded = latencies(boards, mover.moves, "loaded")
    result.play_cpu_ms_per_board_told = cpu_play * 1000 / told_during if told_during else 0.0

    # All at once: one move in every game wakes every board; the boards then stop.
    stop.set()
    herd = Mover(site_port, seeded, seed=n + 1)
    herd.views = mover.views
    counts = [len(b.told) for b in boards]
    released = time.perf_counter()
    await asyncio.to_thread(herd.move_each, games)
    herd_done = time.perf_counter()
    await asyncio.wait_for(asyncio.gather(*tasks), timeout=LONG_POLL_SECONDS + 30)
    last = max(
        (b.told[-1][1] for b, c in zip(boards, counts, strict=True) if len(b.told) > c),
        default=released,
    )
    result.herd_moves_s = herd_done - released
    result.herd_last_s = last - released
    result.herd = latencies(boards, herd.moves, "told")
    result.errors = sum(b.errors for b in boards) + mover.errors + herd.errors
    return result


# -- the fallback: ETag polling of the site's synchronous workers ----------------------------------


def poll_cost(site_port: int, site: int, seeded: Seeded, seconds: float):
    """304 answers of the site's workers to `If-None-Match` polls of the live endpoint (what a
    page polls when its server cannot wait): requests a second, latency, CPU per request."""
    game = seeded.games[0]
    cookie = f"sessionid={seeded.sessions[0]}"
    _, headers, _ = asyncio.run(aget(site_port, f"/games/{game}/live/?wait=0", {"Cookie": cookie}))
    path = f"/games/{game}/live/?wait=25"
    heads = {"Cookie": cookie, "If-None-Match": headers["etag"]}
    before = usage(site).cpu
    polls = run_get("polls", site_port, path, heads, 8, seconds, 10**9, ok=304)
    cpu = usage(site).cpu - before
    n, took = len(polls.latencies), sorted(polls.latencies)
    return n / seconds, pct(took, 0.5), pct(took, 0.95), cpu * 1000 / n


# -- the site under ASGI, for the record -----------------------------------------------------------


def site_asgi_comparison(env: dict[str, str], seconds: float) -> list[tuple[str, list]]:
    """bench_web's trivial view and move submission, under the site's synchronous workers and
    under uvicorn workers (same number of workers)."""
    data = seed_pairs(8, games_per_pair=8, long_moves=0)
    rows = []
    for name, app, options in (
        ("synchronous workers (WSGI)", "azul_site.wsgi", ()),
        (
            "uvicorn workers (ASGI)",
            "azul_site.asgi:application",
            ("--worker-class", "uvicorn_worker.UvicornWorker"),
        ),
    ):
        port = free_port()
        with Stack(env, prefix="bench_live_asgi_") as stack:
            stack.site(port, "--log-level", "warning", *options, app=app)
            run_get("warm", port, "/healthz", {}, 8, 2, 400)
            pairs = [
                MovingPair(port, tokens, games, seed=i)
                for i, (tokens, games) in enumerate(data.pairs)
            ]
            scenarios = (
                partial(run_get, "trivial view", port, "/healthz", {}, 8, seconds, 4000),
                partial(run_moves, pairs, seconds, 4000),
            )
            results = []
            for scenario in scenarios:
                before = usage(stack.pid("web")).cpu
                result = scenario()
                result.server_cpu = {"gunicorn": usage(stack.pid("web")).cpu - before}
                results.append(result)
            rows.append((name, results))
        # The next server's pairs start from fresh games.
        data = seed_pairs(8, games_per_pair=8, long_moves=0)
    return rows


# -- main ------------------------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--boards", default="250,1000,2000", help="open boards, per round")
    parser.add_argument("--per-game", type=int, default=4, help="open boards per game")
    parser.add_argument("--rate", type=float, default=5.0, help="moves a second while playing")
    parser.add_argument("--seconds", type=float, default=6.0, help="of play per round")
    parser.add_argument("--idle-seconds", type=float, default=3.0)
    parser.add_argument("--no-site-asgi", action="store_true", help="skip the site under ASGI")
    args = parser.parse_args()
    rounds = [int(n) for n in args.boards.split(",")]

    most_files()  # thousands of sockets

    database_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS)
    flush_redis(redis_url)
    env = bench_env(database_url, redis_url)
    prepare(env, collectstatic=True)
    django_setup(env)

    comparison = [] if args.no_site_asgi else site_asgi_comparison(env, args.seconds)

    most = max(rounds)
    games = -(-most // args.per_game)
    print(f"Seeding {games} games in {database_url} ...", flush=True)
    seeded = seed_boards(games, watchers=50)
    vacuum(database_url)

    site_port, live_port = free_port(), free_port()
    results: list[Round] = []
    with Stack(env, prefix="bench_live_") as stack:
        stack.site(site_port, "--log-level", "warning", wait=False)
        stack.live(live_port, "--log-level", "warning", wait=False)
        stack.wait_healthy("web", site_port)
        stack.wait_healthy("live", live_port)
        for n in rounds:
            print(f"  {n} open boards ...", flush=True)
            ports = (live_port, site_port)
            results.append(asyncio.run(run_round(args, seeded, n, stack.pid("live"), ports)))
        polls = poll_cost(site_port, stack.pid("web"), seeded, seconds=args.seconds)

    report(args, results, polls, comparison)


def report(args: argparse.Namespace, results: list[Round], polls: tuple, comparison: list) -> None:
    config = gunicorn_config()
    print(
        f"\nOne live process (1 uvicorn worker); the site on gunicorn's {config['workers']}"
        f" synchronous workers; {os.cpu_count()} CPUs shared with PostgreSQL, Redis and the load"
        f" generator; boards of {args.per_game} per game; moves at {args.rate:g}/s for"
        f" {args.seconds:g} s.\n"
    )
    header = (
        f"{'open boards':>11} {'threads':>8} {'KiB/board':>9} {'idle CPU':>8} {'probe ms':>8}"
        f" {'moves':>5} {'told p50':>8} {'p95':>6} {'max':>6} {'board p50':>9} {'p95':>6}"
        f" {'max':>6} {'CPU ms/told':>11} {'errors':>6}"
    )
    table_header(header)
    for r in results:
        per_board = (r.rss_waiting - r.rss_idle) * 1024 / r.boards
        probe = sorted(r.probe_ms)[len(r.probe_ms) // 2] if r.probe_ms else float("nan")
        print(
            f"{r.boards:>11} {r.threads_waiting:>8} {per_board:>9.0f} {r.idle_cpu_percent:>7.1f}%"
            f" {probe:>8.1f} {r.moves:>5} {pct(r.told, 0.5):>8.0f} {pct(r.told, 0.95):>6.0f}"
            f" {pct(r.told, 1.0):>6.0f} {pct(r.loaded, 0.5):>9.0f} {pct(r.loaded, 0.95):>6.0f}"
            f" {pct(r.loaded, 1.0):>6.0f} {r.play_cpu_ms_per_board_told:>11.2f} {r.errors:>6}"
        )
    print(
        "\n(threads: the live process's, while the boards wait; KiB/board: its memory per waiting"
        " board; idle CPU: its CPU while they wait; probe: the median of requests to it that do"
        " not wait, meanwhile; told / board: ms from a move's answer to each board of its game"
        " being told, and to the new board loaded from the site; CPU ms/told: the live process's"
        " CPU per board told during play, the board's next long-poll included)"
    )
    header = (
        f"\n{'open boards':>11} {'games':>6} {'moves took':>10} {'told p50':>8} {'p95':>6}"
        f" {'max':>6} {'last told':>9}"
    )
    print(header)
    print("-" * (len(header) - 1))
    for r in results:
        print(
            f"{r.boards:>11} {r.games:>6} {r.herd_moves_s:>9.2f}s {pct(r.herd, 0.5):>8.0f}"
            f" {pct(r.herd, 0.95):>6.0f} {pct(r.herd, 1.0):>6.0f} {r.herd_last_s:>8.2f}s"
        )
    print(
        "\n(all at once: one move in every game, one after the other, which wakes every board;"
        " told: ms from each move's answer to each board of its game being told; last told: s"
        " from the first move to the last board told)"
    )
    rps, p50, p95, cpu = polls
    print(
        f"\nFallback polling (ETag/304 from the site's synchronous workers, 8 clients):"
        f" {rps:.0f} checks/s, p50 {p50:.1f} ms, p95 {p95:.1f} ms, {cpu:.2f} ms of the workers'"
        f" CPU per check: a core of workers answers about {1000 / cpu:.0f} boards polling once"
        " a second."
    )
    if comparison:
        print("\nThe site itself under ASGI (make bench-web's scenarios, same workers):")
        print(
            f"{'server':<28} {'scenario':<24} {'req/s':>7} {'p50 ms':>7} {'p95 ms':>7}"
            f" {'CPU ms':>7}"
        )
        for name, results_ in comparison:
            for r in results_:
                print(
                    f"{name:<28} {r.name:<24} {r.rps:>7.0f} {r.pct(0.5):>7.1f}"
                    f" {r.pct(0.95):>7.1f} {r.cpu_ms('gunicorn'):>7.2f}"
                )
        print("(CPU ms: the server's processes per request, without PostgreSQL's)")


if __name__ == "__main__":
    main()
