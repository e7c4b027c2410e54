"""How far the post-game analysis's loss lies from a search with ten times the budget:
``python -m research.analysis_accuracy`` (figures in ``research/BOTS.md``, "Analysis accuracy").

The positions come from games the computer players play against each other (``greedy`` against
``medium``, two and three players, both walls, seeded deals): every factory-offer decision with
a choice, of which ``--positions`` are drawn at random (seeded). The move played there is the
one the game's computer player made. (The recorded games in ``tests/azul/fixtures`` are random
play, nothing like a person's game.) The gray wall's tiling decisions are left out: the analysis
judges them by their immediate worth, without a search.

Each position is judged as the analysis page does (:func:`azul.ai.judge.judge_position`, the
loss rounded to a tenth of a point) with the page's budget, then again with ``--factor`` times
that budget and another seed: the reference. Printed: the mean and 90th percentile of the
absolute difference between the page's loss and the reference's (points), the mean of each, how
often both pick the same best move, and the rank agreement of the losses (Spearman). With
``--repeats K`` each position is judged K times with the page's budget, each time with its own
seed, against the same reference: the page search's own luck moves the mean distance by about
a tenth of a point from one seed to the next (``research/BOTS.md``), as much as the changes it is
meant to measure. With ``--references M`` each is also judged against M references, each with
its own seed, and each seed's distance is its mean over them: one reference's own luck moves
the figure about as much.

The budget is a number of search iterations (``--iterations``, deterministic and the same on a
busy machine) or seconds (``--seconds``, as the page runs it: ``ANALYSIS_SECONDS_PER_GAME``
shared among the game's positions, at most ``ANALYSIS_MAX_SECONDS_PER_MOVE``).

``--evaluation level`` (the default) judges with the search weights the page uses
(:func:`azul.ai.judge.analysis_weights`: the ``strong`` level's hand-written ones);
``--evaluation hand`` with the default hand-written evaluation; ``--evaluation shipped`` with
the round-end tables shipped for each position's kind of game (``azul/ai/weights``, and the
search knobs they are played with), where some ship, as ``strong`` plays them: the same
positions, before and after; ``--evaluation tables`` with those tables without their margin's
correction (the round-end tables alone), on the page's own weights.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import time
from dataclasses import dataclass, replace

from azul import legal_moves, new_game, play
from azul.ai.bots import choose_move, level_weights, shipped_tables
from azul.ai.evaluation import DEFAULT, Weights
from azul.ai.judge import PLAYED_SHARE, analysis_weights, judge_position
from azul.mechanics import apply_deal, draw, tally
from azul.notation import Move
from azul.state import State

GAMES = [
    (["greedy", "medium"], "colored"),
    (["medium", "greedy"], "colored"),
    (["greedy", "medium"], "gray"),
    (["medium", "greedy", "medium"], "colored"),
]
"""The games' seats and walls, in turn (seat levels of ``azul.ai.bots.LEVELS``)."""

REPEAT_SEED_STEP = 100_003
"""How far apart the page's seeds lie for ``--repeats``, and the references' for
``--references`` (clear of the positions' own seeds)."""


@dataclass(frozen=True)
class Position:
    state: State
    player: int
    played: Move
    label: str


@dataclass(frozen=True)
class Judged:
    position: Position
    page: float
    reference: float
    same_best: bool
    seconds: float


def bot_game(index: int, seed: int) -> list[Position]:
    """Every factory-offer decision with a choice in one seeded game between computer players."""
    bots, variant = GAMES[index % len(GAMES)]
    rng = random.Random(seed * 7919 + index)
    state = new_game(len(bots), variant, first_player=index % len(bots))
    found = []
    ply = 0
    while state.phase != "over":
        if state.phase == "deal":
            state = state.copy()
            apply_deal(state, [tally(f) for f in draw(state, rng)])
            continue
        player = state.to_move[0]
        move = choose_move(state, player, bots[player], seed=rng.randrange(1 << 30))
        if state.phase == "take" and len(legal_moves(state, player)) > 1:
            label = f"game {index} ({'/'.join(bots)}, {variant}) ply {ply}"
            found.append(Position(state, player, move, label))
        state = play(state, move, player)
        ply += 1
    return found


def positions(count: int, seed: int) -> list[Position]:
    """``count`` decisions drawn at random from enough games to hold four times as many."""
    pool: list[Position] = []
    index = 0
    while len(pool) < 4 * count:
        pool += bot_game(index, seed)
        index += 1
    return random.Random(seed).sample(pool, count)


def loss(
    position: Position,
    seed: int,
    iterations: int | None,
    seconds: float | None,
    share: float = PLAYED_SHARE,
    weights: Weights | None = None,
) -> tuple[float, Move]:
    """The judgement of ``position`` with a budget, as the page makes it: (loss rounded to a
    tenth of a point, the best move found). ``weights`` None: the page's."""
    judgement = judge_position(
        position.state,
        position.player,
        position.played,
        seconds=seconds,
        iterations=iterations,
        seed=seed,
        played_share=share,
        weights=weights,
    )
    return round(judgement.loss(position.played), 1), judgement.best[0]


def judge(
    position: Position,
    seed: int,
    iterations: int | None,
    seconds: float | None,
    factor: int,
    share: float = PLAYED_SHARE,
    weights: Weights | None = None,
    repeats: int = 1,
    references: int = 1,
) -> list[Judged]:
    """``position`` judged with the page's budget ``repeats`` times (the first with ``seed``,
    the others with seeds of their own), each against ``references`` references judged with
    ``factor`` times the budget (each with a seed of its own): one :class:`Judged` per page
    seed and reference, page seed first."""
    pages = []
    for repeat in range(repeats):
        start = time.perf_counter()
        page_seed = seed + REPEAT_SEED_STEP * repeat
        page, page_best = loss(position, page_seed, iterations, seconds, share, weights)
        pages.append((page, page_best, time.perf_counter() - start))
    against = [
        loss(
            position,
            seed + 1 + REPEAT_SEED_STEP * k,
            None if iterations is None else iterations * factor,
            None if seconds is None else seconds * factor,
            share,
            weights,
        )
        for k in range(references)
    ]
    return [
        Judged(position, page, reference, best == reference_best, took)
        for page, best, took in pages
        for reference, reference_best in against
    ]


def percentile(values: list[float], share: float) -> float:
    """The ``share`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def ranks(values: list[float]) -> list[float]:
    """Each value's rank (1 = smallest), ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a: list[float], b: list[float]) -> float:
    """Spearman's rank correlation of ``a`` and ``b`` (nan if either is constant)."""
    ra, rb = ranks(a), ranks(b)
    if len(set(ra)) < 2 or len(set(rb)) < 2:
        return math.nan
    return statistics.correlation(ra, rb)


def report(results: list[Judged], budget: str, factor: int) -> str:
    diffs = [abs(r.page - r.reference) for r in results]
    pages = [r.page for r in results]
    references = [r.reference for r in results]
    lines = [
        f"{len(results)} positions; page budget {budget}, reference {factor}x",
        f"|page - reference| loss: mean {statistics.mean(diffs):.2f} points,"
        f" p90 {percentile(diffs, 0.9):.2f}, max {max(diffs):.1f}",
        f"mean loss: page {statistics.mean(pages):.2f}, reference {statistics.mean(references):.2f}"
        f" points; negative losses: {sum(1 for p in pages if p < 0)}",
        f"same best move: {sum(r.same_best for r in results)} of {len(results)};"
        f" rank agreement of the losses (Spearman): {spearman(pages, references):.2f}",
        f"page search: {statistics.mean(r.seconds for r in results):.2f} s a position (mean)",
    ]
    return "\n".join(lines)


def report_repeats(runs: list[list[Judged]], references: int = 1) -> str:
    """The page's distance from the reference with each of its seeds (``--repeats``; with
    ``--references``, each seed's figure is its mean over the references): how much of the
    figure is the page search's own luck."""
    seeds = [runs[k : k + references] for k in range(0, len(runs), references)]
    means = [
        statistics.mean(abs(r.page - r.reference) for run in seed for r in run) for seed in seeds
    ]
    same = [statistics.mean(sum(r.same_best for r in run) for run in seed) for seed in seeds]
    against = f" x {references} references" if references > 1 else ""
    return (
        f"over {len(seeds)} page seeds{against}: |page - reference| mean"
        f" {statistics.mean(means):.2f}"
        f" points (each seed: {', '.join(f'{m:.2f}' for m in means)});"
        f" same best move {statistics.mean(same):.1f} of {len(runs[0])} on average"
    )


def evaluation(name: str, state: State) -> Weights:
    """The search weights ``--evaluation name`` judges ``state`` with."""
    if name == "hand":
        return DEFAULT
    if name == "shipped":
        return level_weights("strong", state, tables=True)
    if name == "tables":
        return _tables_alone(state)
    return analysis_weights(state)


def _tables_alone(state: State) -> Weights:
    """The page's weights with the shipped round-end tables for ``state``'s kind of game but
    without their margin's correction (the page's own where none ship): one object per kind of
    game, as :func:`azul.ai.bots.level_weights` keeps, so that its cached terms are built once."""
    key = (state.players, state.variant)
    if key not in _TABLES_ALONE:
        shipped = shipped_tables(*key)
        page = analysis_weights(state)
        _TABLES_ALONE[key] = (
            page if shipped is None else replace(page, fitted=replace(shipped, residual=None))
        )
    return _TABLES_ALONE[key]


_TABLES_ALONE: dict[tuple[int, str], Weights] = {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=100)
    group = parser.add_mutually_exclusive_group()
    group.add_argument(
        "--iterations", type=int, default=None, help="the page's budget (default 1000)"
    )
    group.add_argument("--seconds", type=float, default=None, help="the page's budget in seconds")
    parser.add_argument("--factor", type=int, default=10, help="the reference's budget multiple")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--played-share",
        type=float,
        default=PLAYED_SHARE,
        help=f"least share of the iterations on the move played (the page's: {PLAYED_SHARE})",
    )
    parser.add_argument(
        "--evaluation",
        choices=("level", "hand", "shipped", "tables"),
        default="level",
        help="the page's search weights (level), the hand-written evaluation (hand), the"
        " shipped round-end tables as strong plays them (shipped) or those tables without"
        " their margin's correction, on the page's weights (tables)",
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="judge each position this many times with the page's budget, each with its own"
        " seed, against the same references (the first run's figures are printed as with 1)",
    )
    parser.add_argument(
        "--references",
        type=int,
        default=1,
        help="judge each position against this many references, each with its own seed (the"
        " distance is averaged over them: one reference's luck moves it by a tenth of a point)",
    )
    parser.add_argument("--verbose", action="store_true", help="one line per position")
    args = parser.parse_args(argv)
    iterations = args.iterations
    if iterations is None and args.seconds is None:
        iterations = 1000
    budget = f"{iterations} iterations" if iterations is not None else f"{args.seconds} s"
    budget += f", at least {args.played_share:.0%} of them on the move played"
    budget += f", evaluation: {args.evaluation}"

    if args.repeats < 1 or args.references < 1:
        parser.error("--repeats and --references must be at least 1")
    chosen = positions(args.positions, args.seed)
    runs: list[list[Judged]] = [[] for _ in range(args.repeats * args.references)]
    for n, position in enumerate(chosen):
        weights = evaluation(args.evaluation, position.state)
        judgements = judge(
            position,
            args.seed * 1000 + n,
            iterations,
            args.seconds,
            args.factor,
            args.played_share,
            weights,
            args.repeats,
            args.references,
        )
        for run, one in zip(runs, judgements, strict=True):
            run.append(one)
        judged = judgements[0]
        if args.verbose:
            print(
                f"{position.label}: played {position.played}: page {judged.page:.1f},"
                f" reference {judged.reference:.1f}{'' if judged.same_best else ' (other best)'}",
                flush=True,
            )
    print(report(runs[0], budget, args.factor))
    if len(runs) > 1:
        print(report_repeats(runs, args.references))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
