"""A measurement, not a level: the learned evaluator at a search's leaves against the rollouts.

    python -m research.learn.leaves --games 200 --budget 0.1 --seed 1

Two players on the colored wall, each move searched for the same wall-clock ``--budget``
(single process, so each side gets the same CPU): ``rollout`` is the ``strong`` search by the
hand-written evaluation (:func:`azul.ai.search.search`, its level's weights without the
fitted tables, which the learned side does not use either; rollouts to the end of the round or,
late in a round, through a sampled next round); ``learned`` is the same tree (the same move
pruning, ordering, progressive widening and UCT, :mod:`azul.ai.tree`) whose new leaves are
judged by the learned evaluator (:mod:`research.learn.evaluator`) instead of a rollout. A leaf
where the round ended inside the tree is played out and judged as the rollout search judges it. The
learned side's reward is a player's expected margin alone (no own-worth share, no win bonus:
the evaluator already predicts the final margin).

Each deal seed is played twice, seats swapped. Nothing here changes a level: the levels do not
use the learned evaluator (issue #36's first step only).
"""

from __future__ import annotations

import argparse
import random
import sys
import time

from azul import new_game, play, result
from azul.ai.bots import LEVELS, choose_move_with_stats
from azul.ai.evaluation import margin, worths
from azul.ai.policy import Knowledge, options, play_round
from azul.ai.tree import Node, deadline_for, most_visited
from azul.mechanics import apply_deal, draw, take, tally
from azul.notation import Move
from azul.state import State
from research.arena import wilson
from research.learn.evaluator import LearnedEvaluator, load


def learned_search(
    state: State,
    player: int,
    rng: random.Random,
    evaluator: LearnedEvaluator,
    *,
    deadline: float | None = None,
    iterations: int | None = None,
) -> tuple[Move, int]:
    """The strong search's tree with learned leaves: (move, iterations)."""
    weights = LEVELS["strong"].weights
    know = Knowledge(state, weights)
    root = Node(player)
    root.expand([m for _, m in options(know, state, player)])
    if len(root.moves) == 1:
        return root.moves[0], 0
    clock = time.perf_counter
    limit = iterations if iterations is not None else 1 << 62
    done = 0
    while done < limit and (not done or deadline is None or clock() < deadline):
        work = state.copy()
        path = []
        node = root
        while True:
            i = node.select(weights)
            path.append((node, i))
            move = node.moves[i]
            take(work, node.player, move[0], move[1], move[2])
            if work.phase != "take":
                break
            child = node.children[i]
            if child is None:
                child = node.children[i] = Node(work.current)
                child.expand([m for _, m in options(know, work, work.current)])
                break
            node = child
        if work.phase == "take":
            reward = evaluator.margins(work)
        else:  # the round ended in the tree: tile it and judge it as the rollouts do
            play_round(know, work, rng)
            values = worths(work, know.rounds, weights)
            reward = [margin(values, p) for p in range(len(values))]
        for node, i in path:
            node.visits += 1
            node.counts[i] += 1
            node.totals[i] += reward[node.player]
        done += 1
    return most_visited(root, done, None), done


def play_game(
    learned_seat: int, deal_seed: int, budget: float, evaluator: LearnedEvaluator
) -> tuple[list[int], dict[str, list[int]]]:
    """One 2-player game: (final scores, iterations a move per side)."""
    state = new_game(2)
    rng = random.Random(deal_seed)
    iterations: dict[str, list[int]] = {"learned": [], "rollout": []}
    ply = 0
    while state.phase != "over":
        if state.phase == "deal":
            state = state.copy()
            apply_deal(state, [tally(f) for f in draw(state, rng)])
            continue
        player = state.to_move[0]
        seed = (deal_seed * 1_000_003 + ply * 101 + player) & 0x7FFFFFFF
        start = time.perf_counter()
        if state.phase == "take" and player == learned_seat:
            move, done = learned_search(
                state,
                player,
                random.Random(seed),
                evaluator,
                deadline=deadline_for(start, budget),
            )
            iterations["learned"].append(done)
        else:
            move, stats = choose_move_with_stats(
                state,
                player,
                "strong",
                seed=seed,
                budget=budget,
                weights=LEVELS["strong"].weights,  # as the learned side: no tables
            )
            if state.phase == "take":
                iterations["rollout"].append(stats.iterations)
        state = play(state, move, player)
        ply += 1
    return [s.score for s in sorted(result(state).standings, key=lambda s: s.player)], iterations


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200, help="even: each deal both ways")
    parser.add_argument("--budget", type=float, default=0.1, help="seconds a move, each side")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--quiet", action="store_true")
    args = parser.parse_args(argv)
    evaluator = load(2)
    print("python -m research.learn.leaves " + " ".join(sys.argv[1:] if argv is None else argv))
    wins = ties = 0.0
    margins: list[int] = []
    its: dict[str, list[int]] = {"learned": [], "rollout": []}
    started = time.perf_counter()
    for game in range(args.games):
        deal_seed = args.seed * 100_000 + game // 2
        seat = game % 2
        scores, done = play_game(seat, deal_seed, args.budget, evaluator)
        for side, values in done.items():
            its[side].extend(values)
        mine, theirs = scores[seat], scores[1 - seat]
        margins.append(mine - theirs)
        if mine > theirs:
            wins += 1
        elif mine == theirs:
            ties += 1
        if not args.quiet:
            print(f"game {game + 1}: learned (seat {seat}) {mine} - rollout {theirs}", flush=True)
    n = len(margins)
    rate = (wins + ties / 2) / n
    low, high = wilson(wins + ties / 2, n)
    mean = sum(margins) / n
    spread = (sum((m - mean) ** 2 for m in margins) / max(1, n - 1)) ** 0.5 / n**0.5
    print(
        f"learned leaves: {wins:.0f} won, {ties:.0f} shared, {n - wins - ties:.0f} lost of {n}:"
        f" {100 * rate:.1f}% [{100 * low:.1f}, {100 * high:.1f}];"
        f" margin {mean:+.1f} +- {spread:.1f} a game"
    )
    for side, values in its.items():
        avg = sum(values) / max(1, len(values))
        print(f"{side}: {avg:.0f} iterations a searched move ({len(values)} moves)")
    print(f"{time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
