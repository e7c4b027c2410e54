"""Judging a player's moves after the game: the worth of the move played and of the best move
found in the same position, by the search the computer players use.

Pure engine code, like the rest of this package: the site's analysis (``analysis.services``)
calls :func:`judge_position` for each move a person made.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass

from azul.notation import Move, Take
from azul.state import State

from .bots import move_values
from .search import search
from .tree import SearchStats, deadline_for


@dataclass(frozen=True)
class Judgement:
    """The worth of moves in one position, in points for the player to move (best first), and
    how many simulated rounds the search played to find them (0: judged by the moves'
    immediate worth, as in the gray wall's tiling, where the search does not go)."""

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


def judge_position(
    state: State, player: int, played: Move, *, seconds: float, seed: int
) -> Judgement:
    """The worth of ``played`` and of the best moves ``player`` had in ``state``.

    In the factory offer, the strong search runs for ``seconds`` with ``played`` among its
    root moves (searched even if its pruning would drop it): each move's worth is its mean
    reward, and the best move is the one the search chose (the most visited). In the gray
    wall's tiling, the moves' immediate worths are compared."""
    if state.phase != "take" or not isinstance(played, Take):
        return Judgement([(move, value) for value, move in move_values(state, player)], 0)
    stats = SearchStats()
    deadline = deadline_for(time.perf_counter(), seconds)
    best = search(
        state, player, random.Random(seed), deadline=deadline, stats=stats, include=played
    )
    values = {move: value for move, value, _visits in stats.values}
    if played not in values:
        # No time for a single visit of it: the immediate worths are all there is to compare.
        return Judgement([(move, value) for value, move in move_values(state, player)], 0)
    ranked = [(best, values[best])] + [(m, v) for m, v in values.items() if m != best]
    return Judgement(ranked, stats.iterations)
