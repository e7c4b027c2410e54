"""The post-game judge: the move played is valued beside the best move found, even a move the
search's pruning would drop, and the best move is a legal one."""

import random

from azul import FLOOR, deal, legal_moves, new_game
from azul.ai.judge import judge_position


def opening(players: int = 2, seed: int = 3):
    return deal(new_game(players), rng=random.Random(seed))


def test_a_floor_move_is_judged_and_costs_points():
    state = opening()
    player = state.to_move[0]
    floor = next(m for m in legal_moves(state, player) if m.line == FLOOR)
    judgement = judge_position(state, player, floor, seconds=0.3, seed=1)
    best, best_value = judgement.best
    assert best in legal_moves(state, player)
    assert judgement.rollouts > 0
    # Dumping a whole factory on the floor at the first move is never the best move.
    assert best != floor
    assert best_value - judgement.value_of(floor) > 0
