"""A pure-Python Azul rules engine: no Django, no I/O, no hidden randomness.

>>> import random
>>> from azul import new_game, deal, legal_moves, play
>>> state = deal(new_game(2), rng=random.Random(1))
>>> state.phase, state.to_move
('take', [0])
>>> state.factory_tiles()[0]
['blue', 'blue', 'black', 'white']
>>> state = play(state, "F1 blue 2")
>>> state.to_dict()["boards"][0]["pattern_lines"][1]
['blue', 2]
>>> state.to_move, len(legal_moves(state))
([1], 102)

A game is a log of entries: each round's deal (the tiles drawn into the factories) and each move.
:func:`replay` folds a log back into a state without any random generator.

The modules, in reading order:

- :mod:`azul.notation`: colours, moves (:class:`Take`, :class:`Place`) and their text notation;
  :mod:`azul.errors`: :class:`IllegalMove` and :class:`InvalidNotation`, reasons a player reads.
- :mod:`azul.state`: the :class:`State`, plain data that round-trips through JSON.
- :mod:`azul.rules`: :func:`new_game`, :func:`deal`, :func:`legal_moves`, :func:`play`, each
  checked, each returning a new state; the readings of the rulebook where it is silent.
- :mod:`azul.mechanics` (the deal, the factory offer) and :mod:`azul.tiling` (wall tiling,
  scoring, the end of the game): the same steps in place and unchecked, for the computer players.
- :mod:`azul.log`: log entries and :func:`replay`; :mod:`azul.results`: :func:`result`.
- :mod:`azul.fairness`: deals anyone can check, drawn from a committed seed and the players'
  contributions; ``python -m azul.verify export.json`` (:mod:`azul.verify`) checks a game's.
- :mod:`azul.ai`: the computer players.
"""

from .errors import EngineError, IllegalMove, InvalidNotation
from .log import LogEntry, apply_entry, deal_entry, move_entry, replay
from .notation import CENTER, COLORS, FLOOR, Move, Place, Take, parse_move
from .results import Result, Standing, result
from .rules import deal, draw_tiles, legal_moves, new_game, play, play_out, random_move
from .state import FACTORY_COUNT, FLOOR_PENALTY, State
from .tiling import wall_points

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
    "wall_points",
]
