"""Monte Carlo tree search for the ``medium``, ``strong`` and ``master`` computer players.

The search (:func:`search`) builds a UCT tree (:mod:`.tree`) over the rest of the current round.
Each node is a factory-offer decision of the player to move; its moves are pruned and ordered by
their immediate worth (:func:`.policy.options`): a take that only drops tiles on the floor line
is left out when the same tiles fit a pattern line, and each (source, colour) keeps its
``max_lines`` best pattern lines, which also groups the big centre pulls into a few sensible
placements. Progressive widening opens the moves of a node in that order as it gets visits
(``widen_base + widen_rate * sqrt(visits)`` of them). Below the tree a rollout plays the round
out with one cheap policy for *every* player (:func:`.policy.play_round`): the best immediate
worth plus uniform noise (nobody is assumed greedy: the tree decides the searcher's and the
opponents' moves alike, each maximising its own reward). Once the round's tiling is done the
rollout goes on through a sampled deal of the next round (determinisation: the bag's counts are
public, the draw is random) when the tree started late in a round (``extend_below`` tiles or
fewer on offer), so that what a player leaves itself for the next round (pattern lines, the
first-player marker) is played out, not only guessed.

The position where a rollout stops is judged by :func:`.evaluation.evaluate_board`: the score,
each end-of-game bonus weighted by how reachable it still is (rows, columns and colours with few
tiles missing count most), wall adjacency (neighbouring tiles make later tiles score more),
tiles waiting on pattern lines, and the first-player marker. A player's reward
(:func:`.evaluation.rewards`) is its worth minus the best opponent's, plus ``own_weight`` times
its own worth (so that two searchers build their walls instead of only spoiling each other's);
a finished game uses the final scores and a bonus for winning. The reward steers the search;
beside it the search reports, for each root move, its mean *margin* (the searcher's worth minus
the best opponent's, without the reward's own-worth share or win bonus: the final score margin
in points as the evaluation expects it, ``SearchStats.margins``), which the post-game analysis
compares moves by (:mod:`.judge`).

Budgets: ``iterations`` (a fixed number of tree iterations, deterministic for a seed) or
``budget`` (seconds of wall clock, with a safety margin: :func:`.tree.deadline_for`); with both
the search stops at whichever comes first. :class:`.tree.SearchStats` reports what was done.
"""

from __future__ import annotations

import random
import time

from azul.mechanics import apply_deal, draw, take, tally
from azul.notation import Move, Take
from azul.state import State

from .evaluation import DEFAULT, Weights, margin, rewards_of, worths
from .policy import Knowledge, options, play_round
from .tree import Node, SearchStats, most_visited, require_budget

__all__ = ["search"]


def search(
    state: State,
    player: int,
    rng: random.Random,
    *,
    iterations: int | None = None,
    deadline: float | None = None,
    stats: SearchStats | None = None,
    weights: Weights = DEFAULT,
    include: Take | None = None,
    include_share: float = 0.0,
) -> Move:
    """The strong search's move for ``player`` in a factory-offer ``state`` (see the module
    docstring). Stops after ``iterations`` or at ``deadline`` (``time.perf_counter``).

    ``include`` (a legal move) is searched first among the root's moves even if the pruning
    would drop it, so that ``stats`` values it: the post-game analysis judges a move played
    against the best one found. With ``include_share``, at least that share of the iterations
    goes through ``include`` (a move the search drops after a few unlucky rollouts would else
    keep their mean: the analysis wants its worth as well measured as the best move's)."""
    require_budget(iterations, deadline)
    know = Knowledge(state, weights)
    root = Node(player)
    candidates = [m for _, m in options(know, state, player)]
    if include is not None:
        candidates = [include, *(m for m in candidates if m != include)]
    root.expand(candidates)
    if len(root.moves) == 1:
        if stats is not None:
            stats.values = [(root.moves[0], 0.0, 0)]
            stats.margins = {}
        return root.moves[0]
    offered = sum(state.center) + sum(map(sum, state.factories))
    extend = offered <= weights.extend_below
    clock = time.perf_counter
    done = 0
    margins = [0.0] * len(root.moves)
    limit = iterations if iterations is not None else 1 << 62
    # at least one iteration: a process left unscheduled past a tiny budget still searches
    forced = include is not None and include_share > 0
    while done < limit and (not done or deadline is None or clock() < deadline):
        first = 0 if forced and root.counts[0] < include_share * (done + 1) else -1
        _iterate(know, state, root, rng, extend, margins, first)
        done += 1
    move = most_visited(root, done, stats)
    if stats is not None:
        stats.margins = {
            m: margins[i] / root.counts[i] for i, m in enumerate(root.moves) if root.counts[i]
        }
    return move


def _iterate(
    know: Knowledge,
    root_state: State,
    root: Node,
    rng: random.Random,
    extend: bool,
    margins: list[float],
    first: int = -1,
) -> None:
    """One iteration: descend the tree to a new node (through the root's move ``first`` if it
    is not -1), play the round out, back the rewards up, and add the searcher's margin (in
    points) to its root move's in ``margins``."""
    state = root_state.copy()
    path = []
    node = root
    while True:
        i = node.select(know.weights) if first < 0 or node is not root else first
        path.append((node, i))
        move = node.moves[i]
        take(state, node.player, move[0], move[1], move[2])
        if state.phase != "take":
            break
        child = node.children[i]
        if child is None:
            child = node.children[i] = Node(state.current)
            child.expand([m for _, m in options(know, state, state.current)])
            break
        node = child
    play_round(know, state, rng)
    rounds = know.rounds
    if extend and state.phase == "deal":
        apply_deal(state, [tally(f) for f in draw(state, rng)])
        play_round(know, state, rng)
        rounds = max(0, rounds - 1)
    values = worths(state, rounds, know.weights, know.memo)
    reward = rewards_of(state, values, know.weights, root.player, rounds)
    margins[path[0][1]] += margin(values, root.player)
    for node, i in path:
        node.visits += 1
        node.counts[i] += 1
        node.totals[i] += reward[node.player]
