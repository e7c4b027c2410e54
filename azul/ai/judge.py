"""Judging a player's moves after the game: the worth of the move played and of the best move
found in the same position, by the search the computer players use, in the game's points.

Pure engine code, like the rest of this package: the site's analysis (``analysis.services``)
calls :func:`judge_position` for each move a person made.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from azul.notation import Move, Take
from azul.state import State

from .bots import level_weights, move_values
from .evaluation import Weights
from .search import search
from .tree import SearchStats, deadline_for

PLAYED_SHARE = 0.2
"""The least share of the search's iterations spent on the move played (``include_share``), so
that its worth rests on as many rollouts as need be, not on the few unlucky ones after which
the search would leave it (see ``research/BOTS.md``, "Analysis accuracy")."""


@dataclass(frozen=True)
class Judgement:
    """The worth of moves in one position, best first, in points of final score margin for the
    player to move (their final score minus the best opponent's, as the search expects it), and
    how many simulated rounds the search played to find them (0: judged by the moves'
    immediate worth in points, as in the gray wall's tiling, where the search does not go)."""

    values: list[tuple[Move, float]]
    rollouts: int

    @property
    def best(self) -> tuple[Move, float]:
        return self.values[0]

    def value_of(self, move: Move) -> float:
        for candidate, value in self.values:
            if candidate == move:
                return value
        raise KeyError(move)

    def loss(self, move: Move) -> float:
        """How many points of final score margin ``move`` gave up against the best move found:
        never negative (a move the search valued above its choice lost nothing), and 0 for the
        best move itself."""
        best, value = self.best
        if move == best:
            return 0.0
        return max(0.0, value - self.value_of(move))


def judge_position(
    state: State,
    player: int,
    played: Move,
    *,
    seconds: float | None = None,
    seed: int,
    iterations: int | None = None,
    played_share: float = PLAYED_SHARE,
    weights: Weights | None = None,
) -> Judgement:
    """The worth of ``played`` and of the best moves ``player`` had in ``state``.

    In the factory offer, the strong search runs for ``seconds`` (or ``iterations``, or
    whichever ends first) with ``played`` among its root moves (searched even if its pruning
    would drop it, and given at least ``played_share`` of the iterations): each move's worth
    is its mean final score margin where the rollouts stopped (``SearchStats.margins``:
    points, not the search's reward, whose own-worth share and win bonus steer the play but
    are no points). The best move is the better, by that worth, of the move played and the
    search's choice among the others (the most visited: the move played, given its share of
    visits, is left out of that choice, which its share alone could win). In the gray wall's
    tiling, the moves' immediate worths are compared. ``weights``: the search's (default: the
    ``strong`` level's hand-written ones, :func:`analysis_weights`)."""
    if state.phase != "take" or not isinstance(played, Take):
        return _immediate(state, player)
    stats = SearchStats()
    deadline = None if seconds is None else deadline_for(time.perf_counter(), seconds)
    search(
        state,
        player,
        random.Random(seed),
        iterations=iterations,
        deadline=deadline,
        stats=stats,
        include=played,
        include_share=played_share,
        weights=analysis_weights(state) if weights is None else weights,
    )
    values = stats.margins
    if not values:
        return Judgement([(played, 0.0)], 0)  # the only move the search would consider
    others = [move for move, _, _ in stats.values if move != played]  # most visited first
    if played not in values or not others:
        # No time to visit both: the immediate worths are all there is to compare.
        return _immediate(state, player)
    rival = others[0]
    best = played if values[played] >= values[rival] else rival
    ranked = [(best, values[best])] + [(m, v) for m, v in values.items() if m != best]
    return Judgement(ranked, stats.iterations)


def analysis_weights(state: State) -> Weights:
    """The search weights a move is judged with: the ``strong`` level's own, without the fitted
    tables it plays 2-player colored games by. Those rank moves better, but their points are
    not yet measured as the analysis's points: they put the mid-round blunder of
    ``tests/azul/test_judge.py`` (9 points at stake) at 20.5 points, the hand-written
    evaluation at 9-13 (BOTS.md, "The levels play by it")."""
    return level_weights("strong", state, tables=False)


def _immediate(state: State, player: int) -> Judgement:
    """The moves judged by their immediate worth, in points (greedy's)."""
    return Judgement([(move, value) for value, move in move_values(state, player)], 0)
