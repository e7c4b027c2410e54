"""Sweep benchmark: the cost of one minute's sweep of games (`games.sweeps.sweep()`, and the
reminders of `notifications.sweeps`) over many active games, on PostgreSQL.

    python scripts/bench_sweep.py                  # or: make bench-sweep
    python scripts/bench_sweep.py --with-index     # the same, with a partial index on the deadline

Creates (if needed) and migrates a dedicated database (`azul_bench_sweep`, or
BENCH_SWEEP_DATABASE_URL), empties it, and seeds it with bulk inserts (no services, no log
entries): `--users` players with their profiles, and `--games` active two-player games whose
state is one of a few real started states built with the engine (a seeded deal), each with its
two seats. Of the games:

- `--due` have their turn deadline in the past (up to 6 hours ago): the timeouts to find;
- the others have a turn that started some time within its pace (1 to 14 days per move), so
  their deadlines spread from an hour to 14 days ahead, and about a fifth of them are in their
  reminder window (the last 20% of the turn). Those have been reminded already at their ply (a
  sent reminder row, as earlier sweeps would have written), except `--new-reminders` of them,
  the ones that entered the window last: the reminders to write;
- `--computer-share` are against a computer, the person to move, except `--stalled` whose
  computer turn has waited more than a minute: the computer turns to find again.

No deadline is within an hour of now or of a reminder window's start, so the counts stay put
while the benchmark runs. Then `VACUUM ANALYZE`, and the sweep runs `--runs` times with task
sending stubbed out (`games.sweeps.send`, and `notifications.services.send`, which sends each
reminder's email task): what is measured is the sweep's own cost, its queries and the reminder
rows it writes. The reminders it wrote are deleted between runs (and the table vacuumed), so
every run finds the same work.

Prints the time of one sweep (min and median of the runs), what it found against what was
seeded, the time of each of its three parts (`timeouts_dispatch`, `reminders_send`,
`computer_turns_dispatch`) with their queries, and the key lines of EXPLAIN (ANALYZE, BUFFERS)
of each part's main query (does the timeouts query use an index?). `--with-index` creates
`CREATE INDEX ... ON games_game (turn_deadline) WHERE status = 'active'` before measuring and
drops it at the end, to compare.

Target (the issue): one sweep over 100,000 active games of which 1,000 are due, under 1 second.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import time
from collections import Counter
from contextlib import ExitStack
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from unittest.mock import patch

from harness.queries import (
    KEY_PLAN_LINE,
    QueryLog,
    create_index,
    drop_index,
    explain,
    table_facts,
)
from harness.report import table_header, verdict
from harness.seeds import BATCH, bulk_users, empty_tables, start_states, times_as_given
from harness.stack import base_env, django_setup, prepare, vacuum

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_bench_sweep"
INDEX_NAME = "bench_game_active_deadline_idx"
# No deadline is this close to now, or to the start of its reminder window, when seeded: the
# benchmark's counts do not change while it runs (well under an hour).
MARGIN = timedelta(hours=1)
# How often each pace is chosen (days per move: weight); 3 days is the site's default.
PACE_WEIGHTS = {1: 10, 2: 15, 3: 35, 5: 15, 7: 15, 14: 10}
PARTS = ("timeouts_dispatch", "reminders_send", "computer_turns_dispatch")


def bench_env(database_url: str) -> dict[str, str]:
    return base_env(
        database_url,
        drop=("REDIS_URL",),
        # Sends are stubbed; should one slip through, it goes to an in-memory broker, never runs
        # in this process.
        CELERY_BROKER_URL="memory://",
    )


# -- seeding ---------------------------------------------------------------------------------------


@dataclass
class Seeded:
    games: int = 0
    due: int = 0
    in_window: int = 0
    new_reminders: int = 0
    computer_games: int = 0
    stalled: int = 0
    seconds: float = 0.0
    vacuum_seconds: float = 0.0
    # The reminder rows the seed wrote end here: rows above it were written by a sweep.
    last_seeded_notification: int = 0


def seed(args: argparse.Namespace) -> Seeded:
    from django.db import transaction
    from django.utils import timezone

    from games.models import Game, Seat
    from notifications.models import Notification
    from notifications.sweeps import REMINDER_AT

    started = time.perf_counter()
    rng = random.Random(args.seed)
    empty_tables()
    user_ids = bulk_users(args.users)

    states = start_states(8, args.seed)
    now = timezone.now()
    paces, weights = list(PACE_WEIGHTS), list(PACE_WEIGHTS.values())

    # Which games are which: shuffled, so that the table holds them mixed as a live one would.
    kinds = ["due"] * args.due + ["stalled"] * args.stalled
    computer = round((args.games - args.due) * args.computer_share)
    kinds += ["computer"] * max(0, computer - args.stalled)
    kinds += ["people"] * (args.games - len(kinds))
    rng.shuffle(kinds)

    def remaining(days: int) -> timedelta:
        """A turn that started at some time within its `days`: what is left of it, never within
        MARGIN of now or of the start of its reminder window."""
        turn = timedelta(days=days)
        window = turn * (1 - REMINDER_AT)
        while True:
            left = turn * rng.random()
            if left >= MARGIN and abs(left - window) >= MARGIN:
                return left

    result = Seeded(games=args.games, due=args.due, stalled=args.stalled)
    # (time since the window started, game id, recipient): games whose person is to move, in
    # their reminder window; all but the last --new-reminders to enter it have had their reminder.
    in_window: list[tuple[timedelta, Any, int]] = []
    for offset in range(0, args.games, BATCH):
        games, seats = [], []
        for kind in kinds[offset : offset + BATCH]:
            days = rng.choices(paces, weights)[0]
            turn = timedelta(days=days)
            if kind == "due":
                deadline = now - timedelta(minutes=1) - (timedelta(hours=6) * rng.random())
                last_write = deadline - turn
            elif kind == "stalled":
                last_write = now - timedelta(minutes=5) - timedelta(minutes=55) * rng.random()
                deadline = last_write + turn
            else:
                deadline = now + remaining(days)
                last_write = deadline - turn
            to_move = 1 if kind == "stalled" else (0 if kind == "computer" else rng.randrange(2))
            created = last_write - timedelta(days=30) * rng.random()
            state = rng.choice(states[to_move])
            first, second = rng.sample(user_ids, 2)
            game = Game(
                variant=state["variant"],
                num_players=2,
                status=Game.Status.ACTIVE,
                days_per_move=days,
                created_by_id=first,
                created_at=created,
                started_at=created,
                updated_at=last_write,
                state=state,
                ply=1,
                turn_deadline=deadline,
                first_player=to_move,
            )
            games.append(game)
            seats.append(Seat(game=game, position=0, user_id=first))
            if kind in ("computer", "stalled"):
                level = rng.choice([Seat.BotLevel.RANDOM, Seat.BotLevel.GREEDY])
                seats.append(Seat(game=game, position=1, kind=Seat.Kind.COMPUTER, bot_level=level))
                result.computer_games += 1
            else:
                seats.append(Seat(game=game, position=1, user_id=second))
            window_start = deadline - turn * (1 - REMINDER_AT)
            if kind != "stalled" and now >= window_start and deadline > now:
                in_window.append((now - window_start, game.id, (first, second)[to_move]))
        with transaction.atomic(), times_as_given():
            Game.objects.bulk_create(games, batch_size=BATCH)
            Seat.objects.bulk_create(seats, batch_size=BATCH)

    in_window.sort(key=lambda entry: entry[0])
    result.in_window = len(in_window)
    result.new_reminders = min(args.new_reminders, len(in_window))
    Notification.objects.bulk_create(
        [
            Notification(
                recipient_id=recipient,
                kind=Notification.Kind.REMINDER,
                game_id=game_id,
                ply=1,
                status=Notification.Status.SENT,
                send_after=now - since,
                sent_at=now - since,
            )
            for since, game_id, recipient in in_window[result.new_reminders :]
        ],
        batch_size=BATCH,
    )
    result.last_seeded_notification = (
        Notification.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    )
    result.seconds = time.perf_counter() - started
    return result


# -- measuring -------------------------------------------------------------------------------------


@dataclass
class Run:
    seconds: float
    timeouts: int
    reminded: int
    computer_turns: int
    log: QueryLog  # the queries, by part
    sent: Counter


def sweep_once() -> Run:
    """One `sweep()` with task sending stubbed (counted), each part timed and each query
    recorded with the part that ran it."""
    from django.utils import timezone

    from games import sweeps
    from notifications import sweeps as notification_sweeps

    sent: Counter = Counter()
    log = QueryLog()

    def fake_send(
        task: str, args: list, countdown: float | None = None, queue: str | None = None
    ) -> bool:
        sent[task] += 1
        return True

    with ExitStack() as stack:
        stack.enter_context(patch("games.sweeps.send", fake_send))
        stack.enter_context(patch("notifications.services.send", fake_send))
        for name in PARTS:
            module = notification_sweeps if name == "reminders_send" else sweeps
            stack.enter_context(patch.object(module, name, log.timed(name, getattr(module, name))))
        stack.enter_context(log.recording())
        started = time.perf_counter()
        now = timezone.now()
        found = sweeps.sweep(now)
        reminded = notification_sweeps.reminders_send(now)
        seconds = time.perf_counter() - started
    return Run(seconds, found.timeouts, reminded, found.computer_turns, log, sent)


def reset_reminders(last_seeded: int) -> int:
    """Delete the reminder rows a sweep wrote (not the seeded ones), and vacuum the table, so the
    next sweep finds the same work; how many."""
    from django.db import connection

    from notifications.models import Notification

    deleted, _ = Notification.objects.filter(
        kind=Notification.Kind.REMINDER, pk__gt=last_seeded
    ).delete()
    with connection.cursor() as cursor:
        cursor.execute(f"VACUUM {Notification._meta.db_table}")
    return deleted


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def report(args, seeded: Seeded, runs: list[Run], plans: dict[str, list[str]], facts: str):
    from games import sweeps

    expected = {
        "timeouts": min(seeded.due, sweeps.BATCH),
        "reminders written": min(seeded.new_reminders, sweeps.BATCH),
        "computer turns": min(seeded.stalled, sweeps.BATCH),
    }
    index = f"with the partial index {INDEX_NAME}" if args.with_index else "no index on deadlines"
    print(f"\n{facts}")
    print(
        f"Seeded {seeded.games:,} active games in {seeded.seconds:.1f} s"
        f" (+ VACUUM ANALYZE {seeded.vacuum_seconds:.1f} s): {seeded.due:,} past their deadline,"
        f" {seeded.in_window:,} in their reminder window ({seeded.new_reminders:,} not reminded"
        f" yet), {seeded.computer_games:,} against the computer ({seeded.stalled:,} with a"
        f" stalled computer turn); {args.users:,} players."
    )
    print(f"Sweeps: {len(runs)} runs, {index}, task sending stubbed (counted).\n")

    header = f"{'run':>3} {'sweep ms':>9} {'timeouts':>8} {'reminders':>9} {'computer':>8}  "
    header += "".join(f"{name + ' ms':>28}" for name in PARTS)
    table_header(header)
    for number, run in enumerate(runs, 1):
        print(
            f"{number:>3} {ms(run.seconds):>9} {run.timeouts:>8} {run.reminded:>9}"
            f" {run.computer_turns:>8}  "
            + "".join(f"{ms(run.log.part_seconds[name]):>28}" for name in PARTS)
        )

    times = [run.seconds for run in runs]
    median = statistics.median(times)
    print(
        f"\nOne sweep: min {ms(min(times))} ms, median {ms(median)} ms"
        f" (target < 1000 ms: {verdict(median < 1)})"
    )
    last = runs[-1]
    for name, attr in (
        ("timeouts", "timeouts"),
        ("reminders written", "reminded"),
        ("computer turns", "computer_turns"),
    ):
        every_run = all(getattr(run, attr) == expected[name] for run in runs)
        print(
            f"  {name}: {getattr(last, attr):,} (seeded: {expected[name]:,};"
            f" {'every run found as many' if every_run else 'MISMATCH in some run'})"
        )
    print(
        "  tasks that would have been sent: "
        + ", ".join(f"{task} x{count:,}" for task, count in sorted(last.sent.items()))
    )

    print(
        "\nEach part, median of the runs (SQL: time in cursor.execute; main: its first query;"
        " commits: transactions it committed):"
    )
    header = f"{'part':<26} {'ms':>8} {'queries':>8} {'SQL ms':>8} {'main ms':>8}"
    header += f" {'commits':>8} {'commit ms':>9} {'Python ms':>9}"
    table_header(header)
    for name in PARTS:
        per_run = [run.log.part(name) for run in runs]
        total, queries, in_sql, main, commits, in_commits = (
            statistics.median(column) for column in zip(*per_run, strict=True)
        )
        print(
            f"{name:<26} {ms(total):>8} {queries:>8.0f} {ms(in_sql):>8} {ms(main):>8}"
            f" {commits:>8.0f} {ms(in_commits):>9} {ms(total - in_sql - in_commits):>9}"
        )

    print("\nEXPLAIN (ANALYZE, BUFFERS) of each part's main query, key lines:")
    for name in PARTS:
        print(f"  {name}:")
        for line in plans[name]:
            if not (args.plans or KEY_PLAN_LINE.search(line)):
                continue
            print(f"    {line}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog="Database: BENCH_SWEEP_DATABASE_URL (default " + DEFAULT_DB + ").",
    )
    parser.add_argument("--games", type=int, default=100_000, help="active games (%(default)s)")
    parser.add_argument(
        "--due", type=int, default=1_000, help="of them past their deadline (%(default)s)"
    )
    parser.add_argument(
        "--new-reminders",
        type=int,
        default=1_000,
        help="games in their reminder window not reminded yet (%(default)s)",
    )
    parser.add_argument(
        "--computer-share",
        type=float,
        default=0.1,
        help="share of the games against the computer (%(default)s)",
    )
    parser.add_argument(
        "--stalled",
        type=int,
        default=10,
        help="computer turns waiting for more than a minute (%(default)s)",
    )
    parser.add_argument("--users", type=int, default=5_000, help="players (%(default)s)")
    parser.add_argument("--runs", type=int, default=5, help="sweeps measured (%(default)s)")
    parser.add_argument(
        "--with-index",
        action="store_true",
        help="create a partial index on games_game (turn_deadline) WHERE status = 'active'"
        " before measuring (dropped at the end)",
    )
    parser.add_argument("--plans", action="store_true", help="print the whole query plans")
    parser.add_argument("--seed", type=int, default=1, help="random seed (%(default)s)")
    args = parser.parse_args()
    if args.due + args.stalled > args.games:
        parser.error("--due and --stalled are more than --games")

    database_url = os.environ.get("BENCH_SWEEP_DATABASE_URL", DEFAULT_DB)
    env = bench_env(database_url)
    os.environ.pop("REDIS_URL", None)
    prepare(env)
    django_setup(env)

    print(f"Seeding {database_url} ...", flush=True)
    drop_index(INDEX_NAME)  # left by an interrupted run
    seeded = seed(args)
    started = time.perf_counter()
    vacuum(database_url)
    seeded.vacuum_seconds = time.perf_counter() - started

    if args.with_index:
        took = create_index(INDEX_NAME, "games_game", "(turn_deadline) WHERE status = 'active'")
        print(f"Created {INDEX_NAME} in {took:.1f} s", flush=True)
    try:
        runs: list[Run] = []
        for _ in range(args.runs):
            runs.append(sweep_once())
            reset_reminders(seeded.last_seeded_notification)
        # With the reminders reset, the database is as each run found it.
        plans = {name: explain(runs[-1].log.of(name)[0]) for name in PARTS}
        facts = table_facts("games_game")
    finally:
        if args.with_index:
            drop_index(INDEX_NAME)
    report(args, seeded, runs, plans, facts)


if __name__ == "__main__":
    main()
