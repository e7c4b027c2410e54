"""The learned evaluator's inference cost per position: ``python -m research.learn.bench``.

For each player count with weights (:func:`research.learn.evaluator.available`), over
factory-offer positions collected from games ``greedy`` plays against itself (single process,
CPU time): the features of every player's view (:func:`research.learn.features.feature_rows`),
the whole evaluation of a position (every player's margin: features, the array and the model), the
hand-written evaluation it would replace at a leaf (:func:`azul.ai.evaluation.worths`), and one
rollout of the strong search's policy to the end of the round and its evaluation, the work one
search iteration does below its tree (its caches warm, as within a search; the rollout does not
go on into a next round, as ``strong``'s do late in a round and ``master``'s always).
"""

from __future__ import annotations

import argparse
import random
import time
from collections.abc import Callable

from azul import new_game, play
from azul.ai.bots import choose_move
from azul.ai.evaluation import DEFAULT, rounds_left, worths
from azul.ai.policy import Knowledge, play_round
from azul.mechanics import apply_deal, draw, tally
from azul.state import State
from research.learn.evaluator import available, load
from research.learn.features import feature_rows


def positions(players: int, count: int, seed: int) -> list[State]:
    """``count`` factory-offer positions from greedy self-play games."""
    rng = random.Random(seed)
    out: list[State] = []
    while len(out) < count:
        state = new_game(players)
        while state.phase != "over" and len(out) < count:
            if state.phase == "deal":
                state = state.copy()
                apply_deal(state, [tally(f) for f in draw(state, rng)])
                continue
            player = state.to_move[0]
            if state.phase == "take":
                out.append(state)
            state = play(
                state, choose_move(state, player, "greedy", seed=rng.randrange(99)), player
            )
    return out


def per_call(work: Callable[[State], object], states: list[State], repeat: int) -> float:
    """CPU microseconds per call of ``work`` over ``states``."""
    start = time.process_time()
    for _ in range(repeat):
        for state in states:
            work(state)
    return (time.process_time() - start) / (repeat * len(states)) * 1e6


def rollout_of(states: list[State], rng: random.Random) -> Callable[[State], object]:
    """One rollout from a position of ``states`` and its evaluation, with one
    :class:`~azul.ai.policy.Knowledge` per position whose caches are kept across calls, as
    within a search."""
    knows = {id(s): Knowledge(s, DEFAULT) for s in states}

    def rollout(state: State) -> object:
        copy = state.copy()
        know = knows[id(state)]
        play_round(know, copy, rng)
        return worths(copy, know.rounds, DEFAULT)

    return rollout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=300)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print("CPU microseconds per position (single process)")
    print(
        f"{'players':>7} {'model':>12} {'features':>9} {'learned':>8} {'hand':>6} "
        f"{'rollout':>8}  learned/rollout"
    )
    for players in available():
        evaluator = load(players)
        states = positions(players, args.positions, args.seed)
        rollout = rollout_of(states, random.Random(args.seed))
        feats = per_call(feature_rows, states, args.repeat)
        learned = per_call(evaluator.margins, states, args.repeat)
        hand = per_call(lambda s: worths(s, rounds_left(s), DEFAULT), states, args.repeat)
        rolled = per_call(rollout, states, args.repeat)
        model = f"{evaluator.kind} {evaluator.weight_count}"
        print(
            f"{players:>7} {model:>12} {feats:>9.1f} {learned:>8.1f} {hand:>6.1f} "
            f"{rolled:>8.1f}  {learned / rolled:.2f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
