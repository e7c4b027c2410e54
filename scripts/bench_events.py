"""Events played end to end (issue 61): a 64-player Swiss of 2-player tables and a 32-player round
robin of 4-player tables, by computer players through the real move path and the sweep, with the
clock moved forward (time-machine) for the turns that time out.

    python scripts/bench_events.py                  # or: make bench-events
    python scripts/bench_events.py --swiss-players 16 --swiss-rounds 4 --rr-players 8

On PostgreSQL, in a database of its own made for the run (a copy of the migrated template) and
dropped after it (BENCH_EVENTS_DATABASE_URL; `--keep` keeps it); tasks run in-process when sent
(CELERY_TASK_ALWAYS_EAGER, as under `make run` with no Redis), so each task is the one the
site sends and runs where a worker would. For each event: the players' accounts, the event
(`events.services.event_create`), their registrations (`entry_register`: the last one's task
starts the event and seats its first round), then every game played to its end. Each person's
move is the `--level` computer player's choice (`games.services.playing.computer_choice`),
submitted as that player through `games.services.move_submit`. `--absent` players of each
round (for the round robin: of its one round, all its tables at once) never move: once every
other player waits on them, the clock jumps past their turns' deadlines and the minute's sweep
runs (every app's `sweep()`, as `manage.py sweep`), whose tasks move for them; at their third
timeout the computer plays their seat to the end, and the table counts as their loss. The task
that moves one round on (the Swiss's `--lost-round`, the round robin's only round) is dropped,
as a broker restart would lose it: the sweep must find the round over and move it on.

Prints, for each event: the wall-clock time from its creation to its end, the games, the moves
(the persons', the server's at timeouts, the computer's for seats it took over), the rounds, the
sweeps and the days the clock moved, the mean time of a person's move and of seating a round;
then the checks, beside their goals: every game finished; the standings (`events.selectors.
standings_of`) the same as `events.formats.standings` recomputed from the games' logs (each
replayed by the engine for its scores and places, a player with three timeouts placed after
those who played on); the lost round moved on by the sweep; no repeat meeting in the Swiss.
The standings' rules are checked against a worked example in tests/events/test_event_play.py.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import timedelta
from itertools import combinations
from typing import Any
from unittest.mock import patch

from harness.report import goal, say, table_header
from harness.seeds import bulk_users
from harness.stack import base_env, django_setup, recreate_database

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_bench_events"
DAYS_PER_MOVE = 1
# The clock jumps this far past the last deadline waited on: the minute's sweep that finds it.
PAST_DEADLINE = timedelta(minutes=1)


def bench_env(database_url: str) -> dict[str, str]:
    """The site as `make run` has it without Redis: tasks in-process, the cache in memory."""
    return base_env(
        database_url,
        drop=("REDIS_URL", "CELERY_BROKER_URL"),
        REDIS_URL="",
        # Never reached (tasks run when sent); named in full, so that kombu has no host to guess.
        CELERY_BROKER_URL="memory://localhost/",
        CELERY_TASK_ALWAYS_EAGER="1",
    )


PARTS = ("registering", "moves", "choosing", "sweeps", "seating")
"""Where the wall clock goes, each part's own time (a part inside another, such as seating the
next round when a move ends the last game of one, counted in its own part only): the entries
(`entry_register`), the persons' moves (`move_submit`, with what it runs on commit: the
computer's moves for the seats it took over, the notices), the computer's choices of those
moves, the minute's sweeps (with their tasks: the timeouts' moves), and starting the event and
moving its rounds on (`event_start`, `event_advance`, with their notices)."""


class Parts:
    """Each part's own time (less the parts timed inside it), and the longest seating."""

    def __init__(self) -> None:
        self.seconds: Counter = Counter()
        self.longest_seating = 0.0
        self._inside: list[float] = []  # per part being timed: the time of the parts within

    @contextmanager
    def timing(self, name: str) -> Iterator[None]:
        started = time.perf_counter()
        self._inside.append(0.0)
        try:
            yield
        finally:
            took = time.perf_counter() - started
            self.seconds[name] += took - self._inside.pop()
            if self._inside:
                self._inside[-1] += took
            if name == "seating":
                self.longest_seating = max(self.longest_seating, took)


@dataclass
class Played:
    """One event's run: what it took and what came of it."""

    name: str
    fmt: str
    players: int
    wall_seconds: float = 0.0
    cpu_seconds: float = 0.0  # this process's: what a busy machine does not inflate
    parts: Parts = field(default_factory=Parts)
    person_moves: int = 0
    sweeps: int = 0
    clock_days: float = 0.0
    games: int = 0
    unfinished: int = 0
    moves: Counter = field(default_factory=Counter)  # by who made them
    rounds: int = 0
    lost_round: int = 0
    dropped: int = 0  # the advance tasks of the lost round that were dropped
    moved_by_sweep: bool = False
    lost_out: int = 0  # tables at which a player timed out until the computer took over
    standings_agree: bool = False
    disagreements: list[str] = field(default_factory=list)
    repeats: int = 0
    status: str = ""


# -- playing -------------------------------------------------------------------------------------


class Player:
    """Plays an event's games: each person's move the computer's choice, through move_submit."""

    def __init__(self, run: Played, level: str) -> None:
        self.run = run
        self.level = level

    def until_waiting(self, game_id: Any, absent: set[int]) -> bool:
        """Play `game_id` on until it ends or an absent player is to move: whether it is over."""
        from games import selectors, services
        from games.models import Game
        from games.services.playing import computer_choice

        while True:
            game = selectors.game_get(game_id=game_id)
            if game.status != Game.Status.ACTIVE:
                return True
            state = game.started_state()
            seat = next(s for s in game.seat_list if s.position == state.to_move[0])
            if seat.played_by_computer:
                # Its task ran in-process when the move before committed; should it not have
                # moved, play it as the task would.
                services.computer_move_play(game_id=game.id, expected_ply=game.ply)
                continue
            if seat.user_id in absent:
                return False
            with self.run.parts.timing("choosing"):
                move = computer_choice(game, seat, state, self.level)
            with self.run.parts.timing("moves"):
                services.move_submit(
                    game_id=game.id, user=seat.user, move=move, expected_ply=game.ply
                )
            self.run.person_moves += 1

    def round(self, game_ids: list[Any], absent: set[int], clock: Any) -> None:
        """Every game of the round to its end: played while anyone present is to move; when
        only absent players are, the clock past their deadlines and the minute's sweep."""
        from games.models import Game

        going = list(game_ids)
        while going:
            going = [g for g in going if not self.until_waiting(g, absent)]
            if not going:
                return
            from django.utils import timezone

            last = max(Game.objects.filter(pk__in=going).values_list("turn_deadline", flat=True))
            clock.shift(last + PAST_DEADLINE - timezone.now())
            self.sweep()

    def sweep(self) -> dict[str, Any]:
        """The minute's sweep, as `manage.py sweep` runs it: every app's `sweep()`."""
        from django.apps import apps

        with self.run.parts.timing("sweeps"):
            done = {c.label: c.sweep() for c in apps.get_app_configs() if hasattr(c, "sweep")}
        self.run.sweeps += 1
        return done


@contextmanager
def timed_seating(run: Played) -> Iterator[None]:
    """Each start and each move to the next round (the tasks' services) timed."""
    from events import services

    def timed(service: Any) -> Any:
        def wrapper(**kwargs: Any) -> Any:
            with run.parts.timing("seating"):
                return service(**kwargs)

        return wrapper

    with (
        patch.object(services, "event_start", timed(services.event_start)),
        patch.object(services, "event_advance", timed(services.event_advance)),
    ):
        yield


@contextmanager
def advance_tasks_lost(run: Played) -> Iterator[None]:
    """The tasks that would move the event on, lost (as with a broker restart): counted."""
    from core.tasks import send
    from events import services

    def dropping(task: str, args: list, *more: Any, **options: Any) -> bool:
        if task == services.ADVANCE_TASK:
            run.dropped += 1
            return True
        return send(task, args, *more, **options)

    with patch.object(services, "send", dropping):
        yield


def play_event(
    args: argparse.Namespace, *, name: str, fmt: str, players: int, table_size: int
) -> Played:
    import time_machine
    from django.contrib.auth import get_user_model
    from django.utils import timezone

    from events import services
    from events.models import Event, EventTable

    run = Played(name=name, fmt=fmt, players=players)
    rng = random.Random(f"{args.seed}:{fmt}")
    user_model = get_user_model()
    organiser = user_model.objects.get(pk=bulk_users(1, prefix=f"{fmt}_organiser")[0])
    entrants = list(user_model.objects.filter(pk__in=bulk_users(players, prefix=fmt)))
    rounds = args.swiss_rounds if fmt == Event.Format.SWISS else None
    run.lost_round = min(args.lost_round, rounds or 1)
    player = Player(run, args.level)
    with time_machine.travel(timezone.now(), tick=True) as clock, timed_seating(run):
        clock_start = timezone.now()
        started, started_cpu = time.perf_counter(), time.process_time()
        event = services.event_create(
            organiser=organiser,
            settings_=services.EventSettings(
                name=f"Bench {name}",
                format=fmt,
                table_size=table_size,
                max_entrants=players,
                days_per_move=DAYS_PER_MOVE,
                rounds=rounds,
            ),
        )
        for user in entrants:
            with run.parts.timing("registering"):
                services.entry_register(event_id=event.pk, user=user)
        event.refresh_from_db()
        while event.status == Event.Status.RUNNING:
            number = event.current_round
            tables = list(EventTable.objects.filter(event=event, round=number))
            seated = sorted({u for t in tables for u in t.players})
            absent = set(rng.sample(seated, min(args.absent, len(seated))))
            game_ids = [t.game_id for t in tables]
            if number == run.lost_round:
                with advance_tasks_lost(run):
                    player.round(game_ids, absent, clock)
                event.refresh_from_db()
                if event.current_round == number and event.status == Event.Status.RUNNING:
                    # The next minute's sweep (none ran since the round's last game ended).
                    clock.shift(PAST_DEADLINE)
                    player.sweep()
                event.refresh_from_db()
                moved = event.current_round > number or event.status == Event.Status.FINISHED
                run.moved_by_sweep = run.dropped > 0 and moved
            else:
                player.round(game_ids, absent, clock)
            event.refresh_from_db()
            if event.current_round == number and event.status == Event.Status.RUNNING:
                raise SystemExit(f"{name}: round {number} is over but was not moved on")
        run.wall_seconds = time.perf_counter() - started
        run.cpu_seconds = time.process_time() - started_cpu
        run.clock_days = (timezone.now() - clock_start) / timedelta(days=1)
    run.status = event.status
    run.rounds = event.current_round
    check(event, run)
    return run


# -- checking ------------------------------------------------------------------------------------


def recomputed_results(event: Any, run: Played) -> list[Any]:
    """Each table's result as its game's log says: replayed by the engine for the scores and
    places; a player with three timeouts (the computer took their seat) after those who played
    on, as a timeout counts as a loss. Counts the moves and the tables lost by timeouts."""
    import azul
    from events import formats
    from events.models import EventTable
    from games.models import Game, LogEntry, Seat
    from games.services.moves import TIMEOUTS_BEFORE_AUTOPLAY

    tables = list(EventTable.objects.filter(event=event).order_by("round", "number"))
    games = Game.objects.in_bulk([t.game_id for t in tables])
    entries: dict[Any, list[Any]] = {}
    for entry in LogEntry.objects.filter(game_id__in=list(games)).order_by("game", "number"):
        entries.setdefault(entry.game_id, []).append(entry)
    users: dict[Any, dict[int, int]] = {}
    for game_id, position, user_id in Seat.objects.filter(game_id__in=list(games)).values_list(
        "game_id", "position", "user_id"
    ):
        users.setdefault(game_id, {})[position] = user_id
    results = []
    for table in tables:
        game, log = games[table.game_id], entries.get(table.game_id, [])
        run.games += 1
        run.moves.update(e.mover_kind for e in log if e.kind == LogEntry.Kind.MOVE)
        if game.status != Game.Status.FINISHED:
            run.unfinished += 1
            continue
        state = azul.replay(
            [e.data for e in log],
            players=game.num_players,
            variant=game.variant,
            first_player=game.first_player or 0,
        )
        timeouts = Counter(e.player for e in log if e.data.get("timeout"))
        by_user = {users[game.pk][s.player]: s for s in azul.result(state).standings}
        out = {u: timeouts[s.player] >= TIMEOUTS_BEFORE_AUTOPLAY for u, s in by_user.items()}
        run.lost_out += any(out.values())
        keys = {u: (out[u], by_user[u].place) for u in table.players}
        results.append(
            formats.TableResult(
                seats=tuple(table.players),
                placings=tuple(
                    1 + sum(1 for k in keys.values() if k < keys[u]) for u in table.players
                ),
                scores=tuple(by_user[u].score for u in table.players),
            )
        )
    return results


def check(event: Any, run: Played) -> None:
    from events import formats, selectors
    from events.models import Bye, Entry, EventTable

    results = recomputed_results(event, run)
    entrants = [
        formats.Entrant(id=u, rating=r)
        for u, r in Entry.objects.filter(event=event).values_list("user_id", "rating")
    ]
    byes = list(Bye.objects.filter(event=event).values_list("user_id", flat=True))
    expected = [
        (r.rank, r.entrant, r.points, r.opponents_points, r.game_score, r.played)
        for r in formats.standings(entrants, results, byes=byes)
    ]
    shown = [
        (r.rank, r.entrant, r.points, r.opponents_points, r.game_score, r.played)
        for r in (line.row for line in selectors.standings_of(event))
    ]
    run.standings_agree = bool(expected) and expected == shown
    run.disagreements = [f"{a} != {b}" for a, b in zip(expected, shown, strict=False) if a != b]
    met = Counter(
        frozenset(pair)
        for players in EventTable.objects.filter(event=event).values_list("players", flat=True)
        for pair in combinations(players, 2)
    )
    run.repeats = sum(n - 1 for n in met.values())


# -- the report ----------------------------------------------------------------------------------


def report(args: argparse.Namespace, runs: list[Played]) -> bool:
    say(
        f"\nPlayed by the {args.level} computer through move_submit; players absent a round (their"
        f" turns time out): {args.absent}; {DAYS_PER_MOVE} day a move; PostgreSQL, tasks"
        f" in-process; {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n"
    )
    width = max(len(run.name) for run in runs)
    table_header(
        f"{'event':<{width}} {'games':>5} {'rounds':>6} {'person':>7} {'server':>6}"
        f" {'computer':>8} {'sweeps':>6} {'days':>5}"
    )
    for run in runs:
        say(
            f"{run.name:<{width}} {run.games:>5} {run.rounds:>6} {run.moves['person']:>7,}"
            f" {run.moves['server']:>6} {run.moves['computer']:>8,} {run.sweeps:>6}"
            f" {run.clock_days:>5.1f}"
        )
    say(
        "\n(moves by who made them: person, through move_submit; server, at a timeout; computer,"
        " for a seat\nit took over after three timeouts. days: how far the clock moved)\n"
    )
    table_header(
        f"{'event':<{width}} {'wall s':>7} {'cpu s':>6} "
        + " ".join(f"{name + ' s':>{max(len(name) + 2, 7)}}" for name in PARTS)
        + f" {'other s':>7} {'ms/move':>7} {'longest seating s':>17}"
    )
    for run in runs:
        parts = run.parts.seconds
        other = run.wall_seconds - sum(parts.values())
        say(
            f"{run.name:<{width}} {run.wall_seconds:>7.1f} {run.cpu_seconds:>6.1f} "
            + " ".join(f"{parts[name]:>{max(len(name) + 2, 7)}.1f}" for name in PARTS)
            + f" {other:>7.1f} {1000 * parts['moves'] / max(run.person_moves, 1):>7.1f}"
            f" {run.parts.longest_seating:>17.2f}"
        )
    say(
        "\n(cpu: this process's, not PostgreSQL's. Each part's own time: moves, move_submit with"
        " what runs on\ncommit; choosing, the computer's choices; seating, starting the event and"
        " moving its rounds on,\nwith their notices; other: reading the games)\n"
    )
    ok = True
    for run in runs:
        say(f"{run.name}: the whole event in {run.wall_seconds:.1f} s of wall clock (reported)")
        rows = [
            (
                f"{run.name}: {run.games - run.unfinished} of {run.games} games finished,"
                f" event {run.status} (target: all, finished)",
                run.unfinished == 0 and run.status == "finished" and run.games > 0,
            ),
            (
                f"{run.name}: standings the same as recomputed from the games' logs"
                f" (tables lost by timeouts: {run.lost_out})",
                run.standings_agree,
            ),
            (
                f"{run.name}: round {run.lost_round} moved on by the sweep, its tasks lost"
                f" ({run.dropped} dropped)",
                run.moved_by_sweep,
            ),
        ]
        if run.name.startswith("Swiss"):
            rows.append(
                (f"{run.name}: repeat meetings {run.repeats} (target: none)", not run.repeats)
            )
        for what, met in rows:
            say(goal(what, met))
            ok &= met
        for line in run.disagreements[:5]:
            say(f"  {line}")
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        epilog=f"Database: BENCH_EVENTS_DATABASE_URL (default {DEFAULT_DB}), made and dropped.",
    )
    parser.add_argument("--swiss-players", type=int, default=64, help="(%(default)s)")
    parser.add_argument("--swiss-rounds", type=int, default=6, help="(%(default)s)")
    parser.add_argument("--rr-players", type=int, default=32, help="(%(default)s, at most 32)")
    parser.add_argument(
        "--absent", type=int, default=2, help="players of each round who never move (%(default)s)"
    )
    parser.add_argument(
        "--lost-round",
        type=int,
        default=2,
        help="the Swiss round whose task to move on is lost (%(default)s)",
    )
    parser.add_argument(
        "--level", default="greedy", help="the computer player that chooses (%(default)s)"
    )
    parser.add_argument("--seed", type=int, default=61, help="(%(default)s)")
    parser.add_argument("--keep", action="store_true", help="keep the database after the run")
    args = parser.parse_args()

    database_url = os.environ.get("BENCH_EVENTS_DATABASE_URL", DEFAULT_DB)
    env = bench_env(database_url)
    for name in ("REDIS_URL", "CELERY_BROKER_URL"):
        os.environ.pop(name, None)
    recreate_database(database_url, env=env)
    try:
        django_setup(env)
        say(f"Playing on {database_url} ...")
        runs = [
            play_event(
                args,
                name=f"Swiss {args.swiss_players} x {args.swiss_rounds} rounds, 2 a table",
                fmt="swiss",
                players=args.swiss_players,
                table_size=2,
            ),
            play_event(
                args,
                name=f"round robin {args.rr_players}, 4 a table",
                fmt="round_robin",
                players=args.rr_players,
                table_size=4,
            ),
        ]
    finally:
        if not args.keep:
            from django.db import connections

            connections.close_all()
            recreate_database(database_url, drop_only=True)
    return 0 if report(args, runs) else 1


if __name__ == "__main__":
    sys.exit(main())
