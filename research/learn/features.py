"""Features of an Azul position from one player's view, for the learned evaluator.

:func:`features` turns a state and a player into a vector of floats: a block shared by every
view (what is on offer, the bag, the round), then one block per board, the viewer's first and
the opponents' after it in seat order (the player after the viewer next). Its length is
``SHARED_FEATURES + BOARD_FEATURES * players`` (:func:`feature_count`): 92 with 2 players,
128 with 3, 164 with 4. The names, in order, are :func:`feature_names`.

Only what every player sees is used: the factories and the centre are face up, the bag and the
lid are public counts. The features are meant for factory-offer positions (``phase == "take"``,
where the search's leaves are); any phase is accepted.

Per board (``BOARD_FEATURES``, 36):

- ``score``; ``projected``: the score once this round's complete pattern lines are tiled
  (their wall points: the best free column on the gray wall), less the floor line's penalty,
  never below 0; ``bonus_now``: the end-of-game bonuses the wall (with those lines) already
  holds (rows 2, columns 7, colours 10);
- ``fill_0``..``fill_4``: each pattern line's tiles over its length; ``full_0``..``full_4``:
  1 if the line is complete (it will be tiled this round);
- ``row_0``..``row_4``, ``col_0``..``col_4``, ``color_0``..``color_4``: the tiles each wall row,
  column and colour holds once the complete lines are tiled (colored wall: their spaces are
  known; gray wall: the wall as it stands), over 5;
- ``rows_4``, ``cols_4``, ``colors_4``: how many rows, columns and colours miss one tile;
- ``adjacency``: pairs of neighbouring wall tiles;
- ``floor``: tiles on the floor line (the marker counted), ``floor_penalty``: what they cost;
- ``marker``: 1 if this player holds the starting player marker (starts the next round);
- ``to_move``: 1 if this player takes next.

The wall's 25 spaces are left out on purpose: the counts above carry what a small model can use
of them, and a 25-bit block per board would triple the inputs for little.

Shared (``SHARED_FEATURES``, 20): ``offer_0``..``offer_4`` (tiles of each colour on offer, in
the factories and the centre), ``center_0``..``center_4`` (in the centre), ``bag_0``..``bag_4``
(in the bag and the lid: what later rounds draw from), ``offered`` (tiles on offer),
``factories`` (factories not yet taken), ``marker_in_center``, ``round``, ``rounds_left``
(:func:`azul.ai.evaluation.rounds_left`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from azul.ai.evaluation import (
    COLOR_CELLS,
    COLUMN_CELLS,
    NOT_LAST_COLUMN,
    rounds_left,
    tiles_of_color,
    wall_after_tiling,
)
from azul.state import FLOOR_PENALTY_TOTAL, FLOOR_SIZE, Board, State
from azul.tiling import free_columns, wall_points

__all__ = [
    "BOARD_FEATURES",
    "SHARED_FEATURES",
    "board_features",
    "feature_count",
    "feature_names",
    "features",
]

_BOARD_NAMES: tuple[str, ...] = (
    "score",
    "projected",
    "bonus_now",
    *(f"fill_{i}" for i in range(5)),
    *(f"full_{i}" for i in range(5)),
    *(f"row_{i}" for i in range(5)),
    *(f"col_{i}" for i in range(5)),
    *(f"color_{i}" for i in range(5)),
    "rows_4",
    "cols_4",
    "colors_4",
    "adjacency",
    "floor",
    "floor_penalty",
    "marker",
    "to_move",
)
_SHARED_NAMES: tuple[str, ...] = (
    *(f"offer_{c}" for c in range(5)),
    *(f"center_{c}" for c in range(5)),
    *(f"bag_{c}" for c in range(5)),
    "offered",
    "factories",
    "marker_in_center",
    "round",
    "rounds_left",
)

BOARD_FEATURES = len(_BOARD_NAMES)
"""Features per board (36)."""
SHARED_FEATURES = len(_SHARED_NAMES)
"""Features shared by every view (20)."""


def feature_count(players: int) -> int:
    """Length of :func:`features` for a game of ``players`` players (2-4)."""
    return SHARED_FEATURES + BOARD_FEATURES * players


def feature_names(players: int) -> list[str]:
    """The name of each feature, in :func:`features`' order (board blocks: ``me.``, ``opp1.``
    the next player, ``opp2.``, ``opp3.``)."""
    names = list(_SHARED_NAMES)
    for k in range(players):
        prefix = "me." if k == 0 else f"opp{k}."
        names.extend(prefix + name for name in _BOARD_NAMES)
    return names


def board_features(board: Board, gray: bool, marker: bool, to_move: bool) -> list[float]:
    """The ``BOARD_FEATURES`` features of one board (see the module docstring)."""
    filled = wall_after_tiling(board, gray)
    line_count, line_color = board.line_count, board.line_color
    # projected score: the complete lines tiled in order, then the floor line's penalty
    projected = board.score
    work = board.filled
    fill = []
    full = []
    for line in range(5):
        n = line_count[line]
        fill.append(n / (line + 1))
        complete = n == line + 1
        full.append(1.0 if complete else 0.0)
        if complete:
            color = line_color[line]
            if gray:
                best, where = 0, -1
                for column in free_columns(board, line, color):
                    points = wall_points(work | 1 << (5 * line + column), line, column)
                    if points > best:
                        best, where = points, column
                if where >= 0:
                    work |= 1 << (5 * line + where)
                    projected += best
            else:
                column = (color + line) % 5
                work |= 1 << (5 * line + column)
                projected += wall_points(work, line, column)
    floor = len(board.floor)
    penalty = FLOOR_PENALTY_TOTAL[min(floor, FLOOR_SIZE)]
    projected = max(0, projected - penalty)
    rows = [((filled >> (5 * r)) & 31).bit_count() for r in range(5)]
    cols = [(filled & COLUMN_CELLS[c]).bit_count() for c in range(5)]
    if gray:
        colors = [tiles_of_color(board, filled, c, gray) for c in range(5)]
    else:
        colors = [(filled & COLOR_CELLS[c]).bit_count() for c in range(5)]
    bonus = 2 * rows.count(5) + 7 * cols.count(5) + 10 * colors.count(5)
    adjacency = (filled & (filled >> 1) & NOT_LAST_COLUMN).bit_count() + (
        filled & (filled >> 5)
    ).bit_count()
    return [
        float(board.score),
        float(projected),
        float(bonus),
        *fill,
        *full,
        *(n / 5 for n in rows),
        *(n / 5 for n in cols),
        *(n / 5 for n in colors),
        float(rows.count(4)),
        float(cols.count(4)),
        float(colors.count(4)),
        float(adjacency),
        float(floor),
        float(penalty),
        1.0 if marker else 0.0,
        1.0 if to_move else 0.0,
    ]


def shared_features(state: State) -> list[float]:
    """The ``SHARED_FEATURES`` features every view shares (see the module docstring)."""
    center = state.center
    offer = center[:]
    factories = 0
    for f in state.factories:
        if any(f):
            factories += 1
            for c in range(5):
                offer[c] += f[c]
    bag = [state.bag[c] + state.lid[c] for c in range(5)]
    marker_in_center = state.phase == "take" and state.marker_holder < 0
    return [
        *map(float, offer),
        *map(float, center),
        *map(float, bag),
        float(sum(offer)),
        float(factories),
        1.0 if marker_in_center else 0.0,
        float(state.round),
        float(rounds_left(state)),
    ]


def features(state: State, player: int) -> npt.NDArray[np.float64]:
    """``state`` from ``player``'s view: :func:`feature_count` floats (see the module
    docstring). The state is not changed."""
    return np.array(feature_rows(state, (player,))[0], dtype=np.float64)


def feature_rows(state: State, players: tuple[int, ...] | None = None) -> list[list[float]]:
    """:func:`features` of several views (default: every player's) as lists, each board's block
    computed once: what the evaluator stacks into one matrix."""
    count = state.players
    holder = state.marker_holder
    to_move = set(state.to_move)
    blocks = [
        board_features(b, state.gray, holder == p, p in to_move) for p, b in enumerate(state.boards)
    ]
    shared = shared_features(state)
    rows = []
    for player in range(count) if players is None else players:
        row = shared[:]
        for k in range(count):
            row.extend(blocks[(player + k) % count])
        rows.append(row)
    return rows
