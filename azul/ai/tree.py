"""The search tree's parts: a node's statistics and its choice of child (UCT with progressive
widening), the budget a search is given, and what it reports (:class:`SearchStats`).

Shared by the search (:mod:`.search`) and the arena's plain UCT yardstick (``research/uct.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from azul.notation import Move, Take

from .evaluation import Weights


class Node:
    """A factory-offer decision of ``player`` in the tree: its moves in the order they are
    opened, a child node per move once visited, and each move's visits (``counts``) and summed
    rewards."""

    __slots__ = ("player", "moves", "children", "visits", "counts", "totals")

    def __init__(self, player: int) -> None:
        self.player = player
        self.moves: list[Take] = []
        self.children: list[Node | None] = []
        self.visits = 0
        self.counts: list[int] = []
        self.totals: list[float] = []

    def expand(self, moves: list[Take]) -> None:
        self.moves = moves
        self.children = [None] * len(moves)
        self.counts = [0] * len(moves)
        self.totals = [0.0] * len(moves)

    def select(self, weights: Weights) -> int:
        """The move to try next: an unvisited one among the ``widen_base + widen_rate *
        sqrt(visits)`` first, else the best by UCT (mean reward plus ``c_uct`` exploration)."""
        counts, totals = self.counts, self.totals
        width = weights.widen_base + int(weights.widen_rate * math.sqrt(self.visits))
        if width > len(counts):
            width = len(counts)
        log_n = math.log(self.visits + 1)
        c = weights.c_uct
        best, choice = -1e18, 0
        for i in range(width):
            n = counts[i]
            if not n:
                return i
            value = totals[i] / n + c * math.sqrt(log_n / n)
            if value > best:
                best, choice = value, i
        return choice


@dataclass
class SearchStats:
    """What a search did: the move, tree iterations (each ends in one rollout), time, the
    root moves it tried with their mean reward (points for the mover) and visits, most visited
    first, and (the strong search's, :func:`.search.search`) each tried root move's mean final
    score margin in points (``margins``: the mover's worth minus the best opponent's where the
    rollouts stopped)."""

    move: Move | None = None
    iterations: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    budget: float | None = None
    values: list[tuple[Move, float, int]] = field(default_factory=list)
    margins: dict[Move, float] = field(default_factory=dict)

    @property
    def rollouts(self) -> int:
        return self.iterations


def deadline_for(start: float, budget: float) -> float:
    """When a search given ``budget`` seconds stops: 8% + 10 ms earlier (at most a quarter of
    the budget earlier), leaving time to choose the move, return it and finish the odd slow
    iteration."""
    return start + budget - min(budget * 0.08 + 0.01, budget * 0.25)


def require_budget(iterations: int | None, deadline: float | None) -> None:
    """Refuse a search with neither an iteration count nor a deadline."""
    if iterations is None and deadline is None:
        raise ValueError("a search needs iterations, a time budget, or both")


def most_visited(root: Node, iterations: int, stats: SearchStats | None) -> Take:
    """The root's most visited move (the first in the root's order on a tie), and what the
    search did in ``stats``."""
    order = sorted(range(len(root.moves)), key=lambda i: (-root.counts[i], i))
    if stats is not None:
        stats.iterations = iterations
        stats.values = [
            (root.moves[i], root.totals[i] / root.counts[i], root.counts[i])
            for i in order
            if root.counts[i]
        ]
    return root.moves[order[0]]
