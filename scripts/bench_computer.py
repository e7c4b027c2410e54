"""Computer-player latency: a person's move to the computer's answer, by a real Celery worker.

The time from a person's move to the computer's answer in the game's log, with a worker
subprocess on a real Redis broker.

    python scripts/bench_computer.py                       # or: make bench-computer
    python scripts/bench_computer.py --level greedy --pool solo --moves 100

Creates (if needed) and migrates a dedicated database (`azul_bench_computer`, or
BENCH_COMPUTER_DATABASE_URL) and empties its games; empties a Redis database of its own
(redis://127.0.0.1:6379/11, or BENCH_COMPUTER_REDIS_URL), the broker and the cache. The site is
configured as in production: DEBUG=0, tasks sent to the broker (CELERY_TASK_ALWAYS_EAGER=0),
REDIS_URL for the cache and the broker, mail to a dummy backend. It starts a worker with the
command of `make worker` (`celery -A azul_site worker --loglevel=INFO`, with `--pool` prefork by
default, as there, or solo, and `--without-gossip --without-mingle --without-heartbeat`), waits
for "ready." in its log, and stops it at the end.

A person then plays games against the computer (`--level`, default `random`: its thinking is
short, so the figure is the site's own delay) through the service layer in this process
(`games.services.move_submit`, random legal moves). For each of the person's moves after which
the computer is to move, it measures the time from the person's move committed (its COMMIT
returned; the computer's task is sent right after) to the computer's move seen in the log table,
which this process polls every `--poll-ms` (5 ms) meanwhile: the figure is thus at most that much
(plus one small query) later than the computer's commit. The first `--warmup` answers (the
worker's processes connecting to the database) are shown apart, not counted.

Printed: p50, p95 and max of that latency over `--moves` moves; the same from the log's own
timestamps (the computer's entry's `created_at` minus the person's, both stamped by the writing
process just before its INSERT); the computer's thinking time (`azul.ai.bots.choose_move`
timed in this process, for the same positions and seeds as the worker's); and the latency
beyond the thinking time, move by move.

Target (the issue): p50 under 1 second beyond the computer's thinking time.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
import zlib
from dataclasses import dataclass
from unittest.mock import patch

from harness.report import percentile, table_header, verdict
from harness.stack import Stack, base_env, django_setup, flush_redis, prepare

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_bench_computer"
DEFAULT_REDIS = "redis://127.0.0.1:6379/11"
LEVELS = ("random", "greedy", "medium", "strong", "master")  # azul.ai.bots.LEVELS
PERSON, COMPUTER = 0, 1  # seats: the person creates the game, the computer sits at seat 1


def site_env(database_url: str, redis_url: str) -> dict[str, str]:
    """The environment of this process and of the worker: production's settings."""
    return base_env(
        database_url,
        drop=("CELERY_BROKER_URL",),  # the broker is REDIS_URL's, as in production
        REDIS_URL=redis_url,
        LOG_LEVEL="INFO",  # the worker's "ready." line is logged at INFO
    )


# -- playing -----------------------------------------------------------------------------------


@dataclass
class Answer:
    latency: float  # the person's COMMIT returned -> the computer's entry seen in the log
    logged: float  # the computer's entry's created_at - the person's
    thinking: float  # choose_move for the same position and seed, in this process
    send: float  # sending the computer's task, after the person's commit


class Timeout(Exception):
    pass


def poll(read, poll_seconds: float, timeout: float, what: str):
    """Call `read()` every `poll_seconds` until it returns something; that."""
    deadline = time.perf_counter() + timeout
    while True:
        found = read()
        if found is not None:
            return found
        if time.perf_counter() > deadline:
            raise Timeout(f"no {what} within {timeout:.0f} s")
        time.sleep(poll_seconds)


class Person:
    """A person playing random legal moves against the computer, one game after another."""

    def __init__(self, level: str, poll_seconds: float, timeout: float, seed: int) -> None:
        from django.contrib.auth import get_user_model

        self.user, _ = get_user_model().objects.get_or_create(
            username="bench_person", defaults={"email": "bench_person@bench.test"}
        )
        self.level, self.poll_seconds, self.timeout = level, poll_seconds, timeout
        self.rng = random.Random(seed)
        self.game_id = None
        self.games = 0

    def _new_game(self) -> None:
        from games import services

        game = services.game_create(
            creator=self.user,
            num_players=2,
            variant="colored",
            days_per_move=3,
            seats=[services.SeatSpec(kind="computer", level=self.level)],
        )
        self.game_id, self.games = game.id, self.games + 1

    def _my_turn(self):
        """The game once the person is to move in it (after any computer moves), or None when
        it is over."""
        from games.models import Game

        def read():
            game = Game.objects.get(pk=self.game_id)
            if game.status != Game.Status.ACTIVE:
                return (None,)
            return (game,) if PERSON in game.engine_state().to_move else None

        return poll(read, self.poll_seconds, self.timeout, "turn for the person")[0]

    def move(self) -> Answer | None:
        """Play one move; the computer's answer to it, or None if the computer is not to move
        next (the person moves again, or the game ended)."""
        from django.db import connection

        import azul
        import core.tasks
        from azul.ai.bots import choose_move
        from games import services
        from games.models import LogEntry

        game = self._my_turn() if self.game_id else None
        while game is None:
            self._new_game()
            game = self._my_turn()
        move = azul.random_move(game.engine_state(), self.rng, PERSON)

        committed, sent = [], []
        commit, send = connection.commit, core.tasks.send

        def timed_commit() -> None:
            commit()
            committed.append(time.perf_counter())

        def timed_send(task, args, countdown=None, queue=None):
            started = time.perf_counter()
            try:
                return send(task, args, countdown, queue)
            finally:
                sent.append(time.perf_counter() - started)

        with (
            patch.object(connection, "commit", timed_commit),
            patch.object(core.tasks, "send", timed_send),
        ):
            game = services.move_submit(
                game_id=game.id, user=self.user, move=str(move), expected_ply=game.ply
            )
        state = game.engine_state()
        if game.status != game.Status.ACTIVE or COMPUTER not in state.to_move:
            return None
        answer_number = game.ply  # the computer's move is the log's next entry

        def read():
            found = LogEntry.objects.filter(game_id=game.id, number=answer_number).values_list(
                "created_at", "data"
            )
            return found.first()

        answered_at, data = poll(read, self.poll_seconds, self.timeout, "computer's move")
        seen = time.perf_counter()
        # The person's entry: the last of the move's entries that is a move (a deal may follow).
        person_at = (
            LogEntry.objects.filter(game_id=game.id, number__lt=answer_number, kind="move")
            .order_by("-number")
            .values_list("created_at", flat=True)
            .first()
        )
        # As services.playing.computer_choice: the seed is the game and ply the computer moves at.
        seed = zlib.crc32(f"{game.id}:{answer_number}".encode())
        started = time.perf_counter()
        chosen = choose_move(state, COMPUTER, self.level, seed=seed)
        thinking = time.perf_counter() - started
        if self.level in ("random", "greedy") and str(chosen) != data["move"]:
            print(
                f"  note: the worker played {data['move']!r}, this process chose {str(chosen)!r}",
                file=sys.stderr,
            )
        return Answer(
            latency=seen - committed[-1],
            logged=(answered_at - person_at).total_seconds(),
            thinking=thinking,
            send=sum(sent),
        )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog=f"Database: BENCH_COMPUTER_DATABASE_URL (default {DEFAULT_DB}); Redis:"
        f" BENCH_COMPUTER_REDIS_URL (default {DEFAULT_REDIS}, emptied at the start and the end).",
    )
    parser.add_argument("--moves", type=int, default=50, help="answers measured (%(default)s)")
    parser.add_argument("--level", choices=LEVELS, default="random", help="(%(default)s)")
    parser.add_argument(
        "--pool",
        choices=("prefork", "solo"),
        default="prefork",
        help="the worker's pool (%(default)s, as `make worker`)",
    )
    parser.add_argument(
        "--concurrency", type=int, help="the worker's processes (default: Celery's, the CPUs)"
    )
    parser.add_argument(
        "--warmup", type=int, default=4, help="first answers not counted (%(default)s)"
    )
    parser.add_argument(
        "--poll-ms", type=float, default=5.0, help="pause between polls of the log (%(default)s)"
    )
    parser.add_argument("--timeout", type=float, default=30.0, help="per answer, seconds")
    parser.add_argument("--seed", type=int, default=1, help="the person's moves (%(default)s)")
    args = parser.parse_args()

    started = time.perf_counter()
    database_url = os.environ.get("BENCH_COMPUTER_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_COMPUTER_REDIS_URL", DEFAULT_REDIS)
    flush_redis(redis_url)
    env = site_env(database_url, redis_url)
    os.environ.pop("CELERY_BROKER_URL", None)
    prepare(env)
    django_setup(env, LOG_LEVEL="WARNING")  # this process: only what goes wrong
    from games.models import Game

    Game.objects.all().delete()
    person = Person(args.level, args.poll_ms / 1000, args.timeout, args.seed)

    stack = Stack(env, prefix="bench_computer_")
    options = [f"--pool={args.pool}"]
    options += ["--concurrency", str(args.concurrency)] if args.concurrency else []
    options += ["--without-gossip", "--without-mingle", "--without-heartbeat"]
    warmup: list[Answer] = []
    answers: list[Answer] = []
    try:
        stack.worker("worker", *options, timeout=60)
        while len(answers) < args.moves:
            answer = person.move()
            if answer is not None:
                (warmup if len(warmup) < args.warmup else answers).append(answer)
    except Timeout as exc:
        tail = "\n".join(stack.log("worker").splitlines()[-30:])
        raise SystemExit(f"{exc}; the worker's log ends:\n{tail}") from None
    finally:
        stack.stop()  # a warm shutdown: the worker finishes its task and stops its processes
        flush_redis(redis_url)
    command = stack.commands["worker"][0]

    processes = {"solo": "1 process"}.get(
        args.pool, f"{args.concurrency or os.cpu_count()} processes"
    )
    print(
        f"\n{len(answers)} answers by the `{args.level}` computer to a person's moves"
        f" (services.move_submit in this process), in {person.games} game(s);"
        f" worker: {' '.join(['celery', *command[1:]])} ({args.pool}, {processes});"
        f" broker and cache {redis_url}; PostgreSQL; DEBUG=0; {os.cpu_count()} CPUs."
    )
    print(
        f"The log polled every {args.poll_ms:g} ms while waiting (so 'seen' is up to that much"
        f" after the computer's commit); the first {len(warmup)} answers not counted"
        f" ({', '.join(f'{a.latency * 1000:.0f}' for a in warmup)} ms).\n"
    )
    rows = [
        ("person's move committed -> computer's move seen", [a.latency for a in answers]),
        ("  the same by the log's timestamps", [a.logged for a in answers]),
        ("computer's thinking (choose_move, same positions)", [a.thinking for a in answers]),
        ("latency beyond the thinking, move by move", [a.latency - a.thinking for a in answers]),
        ("sending the task (after the person's commit)", [a.send for a in answers]),
    ]
    header = f"{'':<52} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}"
    table_header(header)
    for name, values in rows:
        print(
            f"{name:<52} {percentile(values, 0.5) * 1000:>8.2f}"
            f" {percentile(values, 0.95) * 1000:>8.2f} {max(values) * 1000:>8.2f}"
        )
    beyond = statistics.median(a.latency - a.thinking for a in answers)
    print(
        f"\np50 beyond the computer's thinking time: {beyond * 1000:.0f} ms"
        f" (target < 1000 ms: {verdict(beyond < 1)})"
    )
    log = stack.log_path("worker")
    print(f"Took {time.perf_counter() - started:.1f} s in all; the worker's log: {log}")


if __name__ == "__main__":
    main()
