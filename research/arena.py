"""Play computer players against each other and measure their strength.

    python -m research.arena strong uct --games 100 --budget 1.0 --jobs 2
    python -m research.arena strong greedy --players 4 --games 100 --budget 1.0

The bots are the levels of :data:`azul.ai.bots.LEVELS` and ``uct``, a plain UCT tree
search (random rollouts to the end of the round, see :func:`research.uct.uct_search`) kept
here as a textbook yardstick and never offered on the site.

Seats are rotated fairly: each deal seed is played once per rotation of the seats (``--players``
games), so every bot sits in every seat equally often and meets the same deal seeds (the first
round's factories are identical; later rounds draw from the same random stream, but from bags that
differ with the play). When fewer bots than players are named, the last one fills the remaining
seats (``strong greedy --players 4`` is one strong player against three greedy ones).

A game's winners are the players in first place (rulebook: score, then complete rows); a shared
first place is reported as a tie, and the win rate counts it as half a win. Win rates come with a
95% Wilson confidence interval. ``--budget`` is the wall-clock budget per move in seconds of the
time-limited players (``strong``, ``master``, ``uct``; ``medium`` runs its fixed iterations);
without it each level thinks for its own default (strong 1 s, master 4 s, uct 1 s);
``--iterations`` gives them a fixed number of search iterations instead, so that a run is
reproducible whatever the machine's load.

One seat's thinking can be set apart from the others' (:class:`Seat`): ``strong@4000`` searches
4,000 iterations a move, ``strong@4s`` four seconds, whatever ``--budget`` or ``--iterations``
says, and ``strong:c_uct=10:max_lines=2`` changes that seat's search weights. ``strong@1000
strong@4000`` measures what four times the search is worth, on the same deals, without the
machine's load in the result. ``strong:fitted=PATH`` judges the rollouts' ends by fitted tables
(``python -m research.learn.roundend fit --out PATH``) instead of its level's own (the shipped
tables for the game and the search knobs they are played with, where the level uses them;
:func:`azul.ai.bots.level_weights`), and ``strong:fitted=none`` by the hand-written weights:
either leaves out the shipped file's knobs (``win_spread``), which the seat may name itself.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import random
import sys
import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from azul import deal, mechanics, new_game, play, play_out, result
from azul.ai.bots import LEVELS, choose_move_with_stats, level_weights
from azul.ai.evaluation import DEFAULT, RoundEndTables, Weights, load_round_end_tables
from azul.ai.tree import SearchStats, deadline_for
from research.uct import uct_search

YARDSTICKS = ("uct",)
"""Arena-only players (not site levels)."""
BOTS = (*LEVELS, *YARDSTICKS)
TIMED = ("strong", "master", "uct")
"""Players whose thinking is bounded by ``--budget``."""


@dataclass
class SeatResult:
    bot: str
    score: int
    place: int
    shared: bool
    moves: int
    seconds: float
    max_seconds: float
    max_cpu: float
    rollouts: int
    search_seconds: float


@dataclass
class GameResult:
    game: int
    seats: list[SeatResult]
    rounds: int


@dataclass(frozen=True)
class Seat:
    """An arena player as named on the command line: ``LEVEL[@THINKING][:NAME=VALUE...]``.

    ``@4000`` searches 4,000 iterations a move, ``@4s`` four seconds (either overrides
    ``--budget`` and ``--iterations`` for this seat); each ``:NAME=VALUE`` changes one of the
    seat's search weights on top of ``--weights``."""

    level: str
    budget: float | None = None
    iterations: int | None = None
    weights: str = ""

    @property
    def searches(self) -> bool:
        return self.level in YARDSTICKS or LEVELS[self.level].searches


def parse_bot(name: str) -> Seat:
    """The :class:`Seat` named ``name``; ValueError with what is wrong if it is malformed."""
    head, *changes = name.split(":")
    level, at, thinking = head.partition("@")
    if level not in BOTS:
        raise ValueError(f"{name!r}: unknown player, expected one of {', '.join(BOTS)}")
    seat = Seat(level, weights=",".join(changes))
    if (at or changes) and not seat.searches:
        raise ValueError(f"{name!r}: {level} does not search, it takes no @ budget or weights")
    if changes:
        if level in YARDSTICKS:
            raise ValueError(f"{name!r}: {level} has no search weights")
        parse_weights(seat.weights)  # raises with the bad part named
    if not at:
        return seat
    try:
        if thinking.endswith("s"):
            seconds = float(thinking[:-1])
            if not 0 < seconds <= 600:
                raise ValueError
            return dataclasses.replace(seat, budget=seconds)
        count = int(thinking)
        if count < 1:
            raise ValueError
        return dataclasses.replace(seat, iterations=count)
    except ValueError:
        raise ValueError(
            f"{name!r}: expected {level}@ITERATIONS (a whole number above 0) or {level}@SECONDSs"
        ) from None


def bot_move(
    bot: str,
    state,
    player: int,
    *,
    seed: int,
    budget: float | None,
    iterations: int | None,
    weights: str = "",
) -> tuple:
    """(move, stats) of arena player ``bot`` (see :func:`parse_bot`); ``budget`` None: the
    level's own (``uct``: 1 s). ``weights`` (``"name=value,..."``) changes the search weights
    of ``medium``, ``strong`` and ``master``, on top of their level's own."""
    seat = parse_bot(bot)
    bot = seat.level
    if seat.budget is not None or seat.iterations is not None:
        budget, iterations = seat.budget, seat.iterations
    changes = ",".join(filter(None, (weights, seat.weights)))
    base = DEFAULT
    if bot in LEVELS:  # with fitted=..., the level as it plays where no tables ship
        base = level_weights(bot, state, tables=False if _sets_tables(changes) else None)
    weights_used = parse_weights(changes, base) if changes else base
    if budget is None:
        budget = LEVELS[bot].budget if bot in LEVELS else 1.0
    if bot in YARDSTICKS:
        start = time.perf_counter()
        cpu = time.process_time()
        stats = SearchStats(budget=budget)
        rng = random.Random(seed)
        # a yardstick's budget is never None here (its own is 1 s)
        deadline = None if iterations is not None or budget is None else deadline_for(start, budget)
        if state.phase == "tile":  # the yardstick searches the factory offer only
            move, _ = choose_move_with_stats(state, player, "greedy", seed=seed)
        else:
            move = uct_search(
                state, player, rng, iterations=iterations, deadline=deadline, stats=stats
            )
        stats.seconds = time.perf_counter() - start
        stats.cpu_seconds = time.process_time() - cpu
        return move, stats
    if bot in TIMED or seat.budget is not None or seat.iterations is not None:
        if iterations is not None:  # fixed work only: the run must not depend on the load
            budget = None
        return choose_move_with_stats(
            state,
            player,
            bot,
            seed=seed,
            budget=budget,
            iterations=iterations,
            weights=weights_used,
        )
    return choose_move_with_stats(state, player, bot, seed=seed, weights=weights_used)


def play_game(
    bots: list[str],
    *,
    variant: str,
    deal_seed: int,
    budget: float | None,
    game: int = 0,
    iterations: int | None = None,
    weights: str = "",
) -> GameResult:
    """One game, seat ``i`` played by ``bots[i]`` (see :func:`parse_bot`); deals come from
    ``deal_seed``; ``weights`` as in :func:`bot_move`."""
    players = len(bots)
    state = new_game(players, variant)
    deal_rng = random.Random(deal_seed)
    seats = [SeatResult(bot, 0, 0, False, 0, 0.0, 0.0, 0.0, 0, 0.0) for bot in bots]
    ply = 0
    while state.phase != "over":
        if state.phase == "deal":
            state = state.copy()
            mechanics.apply_deal(
                state, [mechanics.tally(f) for f in mechanics.draw(state, deal_rng)]
            )
            continue
        player = state.to_move[0]
        seat = seats[player]
        seed = (deal_seed * 1_000_003 + ply * 101 + player) & 0x7FFFFFFF
        move, stats = bot_move(
            seat.bot,
            state,
            player,
            seed=seed,
            budget=budget,
            iterations=iterations,
            weights=weights,
        )
        state = play(state, move, player)
        ply += 1
        seat.moves += 1
        seat.seconds += stats.seconds
        seat.max_seconds = max(seat.max_seconds, stats.seconds)
        seat.max_cpu = max(seat.max_cpu, stats.cpu_seconds)
        if stats.iterations:
            seat.rollouts += stats.iterations
            seat.search_seconds += stats.seconds
    final = result(state)
    for standing in final.standings:
        seat = seats[standing.player]
        seat.score = standing.score
        seat.place = standing.place
        seat.shared = standing.place == 1 and len(final.winners) > 1
    return GameResult(game, seats, state.round)


def measure_speed(players: int, variant: str, seconds: float = 0.5) -> tuple[float, float]:
    """Engine speed on this machine now: (random playouts of whole games per second, the strong
    search's iterations per second from a round's first move)."""
    rng = random.Random(0)
    start = time.perf_counter()
    games = 0
    while time.perf_counter() - start < seconds:
        play_out(new_game(players, variant), rng)
        games += 1
    playouts = games / (time.perf_counter() - start)
    fresh = deal(new_game(players, variant), rng=rng)
    _, stats = choose_move_with_stats(fresh, 0, "strong", budget=seconds)
    return playouts, stats.iterations / max(stats.seconds, 1e-9)


def _task(args: tuple) -> GameResult:
    bots, variant, deal_seed, budget, game, iterations, weights = args
    return play_game(
        bots,
        variant=variant,
        deal_seed=deal_seed,
        budget=budget,
        game=game,
        iterations=iterations,
        weights=weights,
    )


def parse_weights(text: str, base: Weights = DEFAULT) -> Weights:
    """``base`` with the changes of ``"name=value,..."`` (the others keep their values)."""
    known: dict[str, Any] = {
        f.name: float if getattr(DEFAULT, f.name) is None else type(getattr(DEFAULT, f.name))
        for f in dataclasses.fields(Weights)
    }
    known["fitted"] = _fitted_tables
    changes: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        name, sep, value = part.partition("=")
        name = name.strip()
        if not sep or name not in known:
            raise ValueError(f"{part!r}: expected name=value, names: {', '.join(sorted(known))}")
        try:
            changes[name] = known[name](value)
        except ValueError:
            raise ValueError(f"{part!r}: {name} takes a {known[name].__name__}") from None
    return dataclasses.replace(base, **changes)


def _sets_tables(changes: str) -> bool:
    """Whether ``"name=value,..."`` names the tables (``fitted``)."""
    return any(part.partition("=")[0].strip() == "fitted" for part in changes.split(","))


def _fitted_tables(path: str) -> RoundEndTables | None:
    """``fitted=PATH``: the round-end tables of a ``research.learn.roundend fit --out`` file;
    ``fitted=none``: the hand-written evaluation (a level's play before it took tables)."""
    if path.strip().lower() == "none":
        return None
    try:
        return load_round_end_tables(path)
    except (OSError, KeyError, TypeError, ValueError) as error:
        raise ValueError(f"cannot read fitted tables: {error}") from None


_fitted_tables.__name__ = "JSON file of fitted tables (research.learn.roundend)"


def wilson(successes: float, n: int, z: float = 1.96) -> tuple[float, float]:
    """95% Wilson score interval for a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Tally:
    games: int = 0
    wins: int = 0
    ties: int = 0
    losses: int = 0
    score: int = 0
    moves: int = 0
    seconds: float = 0.0
    max_seconds: float = 0.0
    max_cpu: float = 0.0
    rollouts: int = 0
    search_seconds: float = 0.0
    scores: list[int] = field(default_factory=list)


def tally(results: list[GameResult]) -> dict[str, Tally]:
    """Per bot name: seat-games, wins (sole first place), ties (shared first), losses, scores.

    A bot holding several seats in one game (``strong,greedy`` with 4 players) counts each seat.
    """
    out: dict[str, Tally] = defaultdict(Tally)
    for game in results:
        for seat in game.seats:
            t = out[seat.bot]
            t.games += 1
            if seat.place == 1:
                if seat.shared:
                    t.ties += 1
                else:
                    t.wins += 1
            else:
                t.losses += 1
            t.score += seat.score
            t.scores.append(seat.score)
            t.moves += seat.moves
            t.seconds += seat.seconds
            t.max_seconds = max(t.max_seconds, seat.max_seconds)
            t.max_cpu = max(t.max_cpu, seat.max_cpu)
            t.rollouts += seat.rollouts
            t.search_seconds += seat.search_seconds
    return out


def _line(name: str, t: Tally) -> str:
    rate = (t.wins + 0.5 * t.ties) / t.games if t.games else 0.0
    low, high = wilson(t.wins + 0.5 * t.ties, t.games)
    avg_move = t.seconds / t.moves if t.moves else 0.0
    speed = f" rollouts/s {t.rollouts / t.search_seconds:7.0f}" if t.search_seconds > 0 else ""
    return (
        f"  {name:<11} seats {t.games:4d}  W {t.wins:4d} T {t.ties:3d} L {t.losses:4d}"
        f"  win rate {100 * rate:5.1f}% [{100 * low:5.1f}, {100 * high:5.1f}]"
        f"  avg score {t.score / max(1, t.games):5.1f}"
        f"  move avg {avg_move * 1000:6.1f} ms max {t.max_seconds * 1000:7.1f} ms"
        f" (cpu max {t.max_cpu * 1000:6.1f} ms){speed}"
    )


def _by_seat(results: list[GameResult]) -> list[str]:
    """Each bot's win rate from each seat (seat 1 moves first in the first round), when the
    bots are not all one: a gain that holds from one seat only is not a gain."""
    counts: dict[tuple[str, int], list[int]] = defaultdict(lambda: [0, 0, 0])  # W, T, games
    for game in results:
        for index, seat in enumerate(game.seats):
            entry = counts[(seat.bot, index)]
            entry[2] += 1
            if seat.place == 1:
                entry[1 if seat.shared else 0] += 1
    if len({bot for bot, _ in counts}) < 2:
        return []
    lines = []
    for bot in sorted({bot for bot, _ in counts}):
        parts = []
        for (name, index), (wins, ties, games) in sorted(counts.items()):
            if name == bot:
                low, high = wilson(wins + 0.5 * ties, games)
                rate = (wins + 0.5 * ties) / games
                parts.append(
                    f"seat {index + 1} {100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"
                    f" of {games}"
                )
        lines.append(f"  {bot:<11} by seat: " + "; ".join(parts))
    return lines


def report(results: list[GameResult], header: str) -> str:
    lines = [header]
    sole_first: defaultdict[str, int] = defaultdict(int)
    for game in results:
        winners = [s for s in game.seats if s.place == 1]
        names = {s.bot for s in winners}
        if len(names) == 1:
            sole_first[next(iter(names))] += 1
        else:
            sole_first["(shared)"] += 1
    for name, t in sorted(tally(results).items()):
        lines.append(_line(name, t))
    lines.extend(_by_seat(results))
    n = len(results)
    if n:
        parts = []
        for name, count in sorted(sole_first.items()):
            low, high = wilson(count, n)
            parts.append(
                f"{name} {count}/{n} = {100 * count / n:.1f}% [{100 * low:.1f}, {100 * high:.1f}]"
            )
        lines.append("  games won by: " + "; ".join(parts))
        rounds = sum(g.rounds for g in results) / n
        lines.append(f"  average rounds per game: {rounds:.2f}")
    return "\n".join(lines)


def schedule(
    bots: list[str], players: int, games: int, seed: int
) -> list[tuple[list[str], int, int]]:
    """(seating, deal seed, game number) for each game: every rotation of every deal seed."""
    lineup = list(bots) + [bots[-1]] * (players - len(bots))
    tasks = []
    deal_seeds = random.Random(seed)
    game = 0
    while game < games:
        deal_seed = deal_seeds.randrange(2**31)
        for rotation in range(players):
            if game >= games:
                break
            seating = [lineup[(seat + rotation) % players] for seat in range(players)]
            tasks.append((seating, deal_seed, game))
            game += 1
    return tasks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m research.arena",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "players_",
        nargs="*",
        metavar="BOT",
        help=f"players: {', '.join(BOTS)}; LEVEL@N, LEVEL@Ts, LEVEL:NAME=VALUE (see above)",
    )
    parser.add_argument("--bots", help="the same as BOT..., comma-separated")
    parser.add_argument("--players", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument(
        "--budget",
        type=float,
        help="seconds per move of strong, master and uct (default: each level's own; uct 1 s)",
    )
    parser.add_argument(
        "--iterations", type=int, help="fixed search iterations per move instead of --budget"
    )
    parser.add_argument("--variant", default="colored", choices=("colored", "gray"))
    parser.add_argument("--jobs", type=int, default=1, help="games in parallel processes")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--every", type=int, default=10, help="progress summary every N games")
    parser.add_argument("--quiet", action="store_true", help="no line per game")
    parser.add_argument(
        "--weights",
        default="",
        metavar="NAME=VALUE,...",
        help="search weights of medium, strong and master (azul.ai.evaluation.Weights), for"
        " tuning: changes on top of each level's own",
    )
    args = parser.parse_args(argv)
    try:
        weights = parse_weights(args.weights)
    except ValueError as error:
        parser.error(f"--weights {error}")

    names = list(args.players_)
    if args.bots:
        names += args.bots.split(",")
    bots = [b.strip() for b in names if b.strip()] or ["strong", "greedy"]
    for name in bots:
        try:
            parse_bot(name)
        except ValueError as error:
            parser.error(str(error))
    if len(bots) > args.players:
        parser.error(f"bots: 1-{args.players} of {', '.join(BOTS)}; got {bots!r}")
    tasks = [
        (seating, args.variant, deal_seed, args.budget, game, args.iterations, args.weights)
        for seating, deal_seed, game in schedule(bots, args.players, args.games, args.seed)
    ]
    if args.iterations:
        thinking = f"{args.iterations} iterations/move"
    elif args.budget is not None:
        thinking = f"budget {args.budget}s/move"
    else:
        thinking = "each level's own budget"
    header = (
        f"arena: bots {','.join(bots)}  players {args.players}  variant {args.variant}"
        f"  games {len(tasks)}  {thinking}  jobs {args.jobs}  seed {args.seed}"
    )
    if weights != DEFAULT:
        changed = [
            f"{f.name}={getattr(weights, f.name)}"
            for f in dataclasses.fields(Weights)
            if getattr(weights, f.name) != getattr(DEFAULT, f.name)
        ]
        header += "  weights " + ",".join(changed)
    print(header, flush=True)
    playouts, iterations = measure_speed(args.players, args.variant)
    print(
        f"engine speed now: {playouts:.0f} random whole-game playouts/s,"
        f" {iterations:.0f} strong search iterations/s (first move of round 1)",
        flush=True,
    )
    started = time.time()
    results: list[GameResult] = []

    def progress(game: GameResult) -> None:
        results.append(game)
        if not args.quiet:
            scores = " ".join(f"{s.bot}:{s.score}" for s in game.seats)
            print(f"game {game.game:4d} ({len(results)} done)  {scores}", flush=True)
        if len(results) % args.every == 0 and len(results) < len(tasks):
            elapsed = time.time() - started
            print(report(results, f"-- after {len(results)} games, {elapsed:.0f}s"), flush=True)

    if args.jobs > 1:
        import multiprocessing

        with multiprocessing.Pool(args.jobs) as pool:
            for game in pool.imap_unordered(_task, tasks):
                progress(game)
    else:
        for task in tasks:
            progress(_task(task))
    elapsed = time.time() - started
    print(report(results, f"== final after {len(results)} games, {elapsed:.0f}s"), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
