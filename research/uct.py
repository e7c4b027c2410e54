"""Plain UCT, the arena's textbook yardstick (never a site level): every legal take, one node
added per iteration, uniformly random rollouts to the end of the round (random gray-wall
columns), and the reward the score difference to the best opponent there, scaled to [-1, 1] (a
finished game: +1 for a win, -1 for a loss). The arena (``research/arena.py``) and the engine
benchmark (``research/bench.py``) measure the computer players against it.
"""

from __future__ import annotations

import random
import time

from azul.ai.evaluation import Weights
from azul.ai.tree import Node, SearchStats, most_visited, require_budget
from azul.mechanics import random_take, take, take_moves
from azul.notation import Move
from azul.state import TILING_DONE, State
from azul.tiling import free_columns, place

UCT_C = 0.7
"""The yardstick's exploration constant; its rewards are in [-1, 1]."""
_UCT = Weights(c_uct=UCT_C, widen_base=1 << 30, widen_rate=0.0)
""":meth:`Node.select` without progressive widening: plain UCT over every legal take."""


def uct_search(
    state: State,
    player: int,
    rng: random.Random,
    *,
    iterations: int | None = None,
    deadline: float | None = None,
    stats: SearchStats | None = None,
) -> Move:
    """The yardstick's move for ``player`` in a factory-offer ``state`` (see the module
    docstring). Stops after ``iterations`` or at ``deadline`` (``time.perf_counter``)."""
    require_budget(iterations, deadline)
    root = Node(player)
    root.expand(take_moves(state, player))
    if len(root.moves) == 1:
        return root.moves[0]
    clock = time.perf_counter
    done = 0
    limit = iterations if iterations is not None else 1 << 62
    # at least one iteration: a process left unscheduled past a tiny budget still searches
    while done < limit and (not done or deadline is None or clock() < deadline):
        s = state.copy()
        path = []
        node = root
        while True:
            i = node.select(_UCT)
            path.append((node, i))
            move = node.moves[i]
            take(s, node.player, move[0], move[1], move[2])
            if s.phase != "take":
                break
            child = node.children[i]
            if child is None:
                child = node.children[i] = Node(s.current)
                child.expand(take_moves(s, s.current))
                break
            node = child
        while s.phase == "take":
            random_take(s, rng)
        while s.phase == "tile":
            for p, board in enumerate(s.boards):
                if board.tiling != TILING_DONE:
                    columns = free_columns(board, board.tiling, board.line_color[board.tiling])
                    place(s, p, board.tiling, columns[int(rng.random() * len(columns))])
                    break
        scores = [b.score for b in s.boards]
        over = s.phase == "over"
        rewards = []
        for p, mine in enumerate(scores):
            diff = mine - max(x for q, x in enumerate(scores) if q != p)
            if over:
                rewards.append(1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0))
            else:
                rewards.append(max(-1.0, min(1.0, diff / 20.0)))
        for node, i in path:
            node.visits += 1
            node.counts[i] += 1
            node.totals[i] += rewards[node.player]
        done += 1
    return most_visited(root, done, stats)
