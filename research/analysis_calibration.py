"""Are the analysis's points points? ``python -m research.analysis_calibration`` (figures in
``research/BOTS.md``, "Analysis accuracy").

The analysis says what a move cost in points of final score margin. This plays the game out
instead: from the position after the move played, and after each judge's best move, with the
same deals and the same seeds for the same playout (paired, so that the luck of the draw falls
alike on both), every seat played by ``--playout-level`` (``medium``: a sensible player that
answers quickly). A move's cost by the playouts is the mean final margin after the best move
minus the mean after the move played; each judge's claim (:func:`azul.ai.judge.judge_position`
with ``--iterations``) is set beside it.

The positions are the 2-player colored ones of ``research.analysis_accuracy`` (where the shipped
round-end tables apply, so where the evaluations differ), those where some judge found a loss,
at most ``--positions`` of them. Judges, as ``research.analysis_accuracy --evaluation`` names them:
``level`` (the page's), ``shipped`` (the tables and their margin's correction, as ``strong``
plays) and ``tables`` (the tables alone). Printed per judge: the mean absolute difference
between its claim and the playouts' cost, both means, and their difference (the claims' bias).
The playouts' own spread is printed too: a position's cost rests on ``--pairs`` playouts.
"""

from __future__ import annotations

import argparse
import random
import statistics
from multiprocessing import Pool

from azul import deal, play
from azul.ai.bots import choose_move
from azul.notation import Move
from azul.state import State

from .analysis_accuracy import Position, evaluation, loss, positions

JUDGES = ("level", "shipped", "tables")


def final_margin(state: State, player: int, seed: int, level: str) -> int:
    """``player``'s final score minus the opponent's, the game played out from ``state`` by
    ``level`` for every seat (seeded: the same seed draws the same deals from the same bag)."""
    rng = random.Random(seed)
    while state.phase != "over":
        if state.phase == "deal":
            state = deal(state, rng)
            continue
        mover = state.to_move[0]
        state = play(state, choose_move(state, mover, level, seed=rng.randrange(1 << 30)), mover)
    scores = [board.score for board in state.boards]
    return scores[player] - max(s for p, s in enumerate(scores) if p != player)


def claims(args: tuple[Position, int, int]) -> dict[str, tuple[Move, float]]:
    """Each judge's best move and its loss for the move played (as the page rounds it)."""
    position, seed, iterations = args
    out = {}
    for name in JUDGES:
        weights = evaluation(name, position.state)
        lost, best = loss(position, seed, iterations, None, weights=weights)
        out[name] = (best, lost)
    return out


def playout(args: tuple[Position, Move, int, str]) -> int:
    position, move, seed, level = args
    after = play(position.state, move, position.player)
    return final_margin(after, position.player, seed, level)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=20, help="at most this many positions")
    parser.add_argument("--pairs", type=int, default=20, help="playouts per move")
    parser.add_argument("--iterations", type=int, default=3000, help="the judges' budget")
    parser.add_argument("--playout-level", default="medium")
    parser.add_argument("--seed", type=int, default=1, help="the positions' (as analysis_accuracy)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args(argv)
    if args.positions < 1 or args.pairs < 2 or args.iterations < 1 or args.jobs < 1:
        parser.error("--positions, --iterations and --jobs must be at least 1, --pairs at least 2")

    pool_positions = [
        p
        for p in positions(100, args.seed)
        if p.state.players == 2 and p.state.variant == "colored"
    ]
    with Pool(args.jobs) as pool:
        judged = pool.map(
            claims, [(p, 7 + i, args.iterations) for i, p in enumerate(pool_positions)]
        )
        # (index among the 2-player colored positions: the playouts' seeds, position, claims)
        chosen = [
            (i, p, j)
            for i, (p, j) in enumerate(zip(pool_positions, judged, strict=True))
            if any(best != p.played for best, _ in j.values())
        ][: args.positions]
        keys = [
            (i, move, s)
            for i, p, j in chosen
            for move in sorted({p.played, *(best for best, _ in j.values())})
            for s in range(args.pairs)
        ]
        jobs = [(pool_positions[i], move, 1000 * i + s, args.playout_level) for i, move, s in keys]
        margins = dict(zip(keys, pool.map(playout, jobs), strict=True))

    print(
        f"{len(chosen)} positions (2 players, colored wall) where a judge at {args.iterations}"
        f" iterations found a loss; {args.pairs} paired playouts a move by {args.playout_level}"
    )
    spreads = []
    for name in JUDGES:
        errors, said, seen = [], [], []
        for i, p, j in chosen:
            best, claimed = j[name]
            costs = [margins[(i, best, s)] - margins[(i, p.played, s)] for s in range(args.pairs)]
            spreads.append(statistics.stdev(costs) / args.pairs**0.5)
            cost = statistics.mean(costs)
            errors.append(abs(claimed - cost))
            said.append(claimed)
            seen.append(cost)
        print(
            f"{name}: mean |claim - playouts| {statistics.mean(errors):.2f} points; mean claim"
            f" {statistics.mean(said):.2f}, by the playouts {statistics.mean(seen):.2f}"
            f" (bias {statistics.mean(said) - statistics.mean(seen):+.2f})"
        )
    print(
        f"a position's cost by the playouts: standard error {statistics.mean(spreads):.2f} (mean)"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
