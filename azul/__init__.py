"""A pure-Python Azul rules engine: no Django, no I/O, no hidden randomness.

>>> import random
>>> from azul import new_game, deal, legal_moves, play
>>> state = deal(new_game(2), rng=random.Random(1))
>>> state.phase, state.to_move
('take', [0])
>>> state = play(state, legal_moves(state)[0])
>>> state.to_move
[1]

A game is a log of entries: each round's deal (the tiles drawn into the factories) and each move.
:func:`replay` folds a log back into a state without any random generator. See ``rules.py`` for
the readings of the rulebook where it leaves a case open.
"""

from .moves import (
    CENTER,
    COLORS,
    FLOOR,
    EngineError,
    IllegalMove,
    InvalidNotation,
    Move,
    Place,
    Take,
    parse_move,
)
from .rules import (
    LogEntry,
    Result,
    Standing,
    apply_entry,
    deal,
    deal_entry,
    draw_tiles,
    legal_moves,
    move_entry,
    new_game,
    play,
    play_out,
    random_move,
    replay,
    result,
)
from .state import FACTORY_COUNT, FLOOR_PENALTY, State

__all__ = [
    "CENTER",
    "COLORS",
    "FACTORY_COUNT",
    "EngineError",
    "FLOOR",
    "FLOOR_PENALTY",
    "IllegalMove",
    "InvalidNotation",
    "LogEntry",
    "Move",
    "Place",
    "Result",
    "Standing",
    "State",
    "Take",
    "apply_entry",
    "deal",
    "deal_entry",
    "draw_tiles",
    "legal_moves",
    "move_entry",
    "new_game",
    "parse_move",
    "play",
    "play_out",
    "random_move",
    "replay",
    "result",
]
