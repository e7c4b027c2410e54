"""What the search knows of moves: the tree's candidate moves, pruned and ordered by immediate
worth (:func:`options`), and the cheap policy every player follows in a rollout
(:func:`play_round`).

A take's immediate worth is :func:`~.evaluation.placement_worths` of the pattern line it fills,
with the line's :func:`~.evaluation.placement_gain`. A per-board table of each colour's pattern
lines and their gains (:func:`_lines_table`, cached across the search by wall bitmask) makes a
rollout decision cheap: each (colour, count, marker) is judged once, with uniform noise. Both
the table and those judgements are kept across the search for each board they were made on
(with the floor line's length for the judgements): about 15% more iterations a second.
"""

from __future__ import annotations

import random

from azul.mechanics import take
from azul.notation import CENTER, FLOOR, Take
from azul.state import ABSENT_COLORS, FLOOR_PENALTY_TOTAL, FLOOR_SIZE, TILING_DONE, Board, State
from azul.tiling import COLOR_BONUS, COLUMN_BONUS, ROW_BONUS, free_columns, place, wall_points

from .evaluation import (
    COLOR_CELLS,
    COLUMN_CELLS,
    BoardMemo,
    Weights,
    placement_gain,
    placement_worths,
    rounds_left,
    wall_after_tiling,
)

_PEN = FLOOR_PENALTY_TOTAL

LinesTable = list[list[tuple[int, int, float]]]
"""Per colour, (line, room, completion gain) of every pattern line that takes it."""

CACHE_LIMIT = 10_000
"""Most boards each of a search's caches keeps (:class:`Knowledge`): past it one is emptied
and starts again. A second's search meets a few thousand boards, and a master's or the
analysis's long one tens of thousands: unbounded, their caches would take hundreds of MB."""


class Knowledge:
    """Per-search constants and caches: the weights, the wall, the rounds left and the bonus
    potential they give, the rollout's noise, the completion gains found so far, and what was
    worked out of each board met (its pattern lines' table, each take's best line on it, the
    evaluation's terms of it: ``memo``), kept because the same boards recur in many rollouts.
    All are pure functions of what they are keyed by, so they change no move (tested with the
    caches emptied every few boards)."""

    __slots__ = (
        "weights",
        "gray",
        "rounds",
        "potential",
        "partial",
        "noise",
        "gains",
        "tables",
        "tops",
        "memo",
    )

    def __init__(self, state: State, weights: Weights) -> None:
        self.weights = weights
        self.gray = state.gray
        self.rounds = rounds_left(state)
        self.potential = weights.potential[self.rounds]
        self.partial = weights.partial_line if self.rounds else 0.0
        self.noise = weights.noise
        self.gains: dict[object, float] = {}
        self.tables: dict[tuple[int, ...], LinesTable] = {}
        self.tops: dict[tuple[int, ...], tuple[dict[int, tuple[float, int]], LinesTable]] = {}
        self.memo: BoardMemo = {}  # the evaluation's (evaluation.worths)


def _colored_gain(know: Knowledge, filled: int, line: int, color: int) -> float:
    """Colored wall: :func:`placement_gain` of a tile of ``color`` on wall row ``line`` of a wall
    whose tiles are the bits of ``filled`` (cached in ``know.gains``)."""
    gain = know.gains[(filled * 5 + line) * 5 + color] = placement_gain(
        filled, line, (color + line) % 5, (filled & COLOR_CELLS[color]).bit_count(), know.potential
    )
    return gain


def _completion_gain(know: Knowledge, board: Board, line: int, color: int) -> float:
    """Gray wall: points plus bonus progress for completing pattern ``line`` with ``color``."""
    key = (board.filled, *board.col_mask, line, color)
    gain = know.gains.get(key)
    if gain is None:
        gain = know.gains[key] = _gray_gain(know, board, line, color)[0]
    return gain


def _gray_gain(know: Knowledge, board: Board, line: int, color: int) -> tuple[float, int]:
    """Gray wall: the best column for ``color`` on ``line`` and its gain; (penalty, -1) if the
    tile has no space (the whole line would fall to the floor).

    The same value as :func:`placement_gain` for each column, but with the row and colour parts
    added once per line rather than per column: faster, and in another order of additions, so
    that using :func:`placement_gain` here would move the last bits of these gains and with
    them, rarely, the search's move."""
    potential = know.potential
    filled = board.filled
    rows = ((filled >> (5 * line)) & 31).bit_count()
    have = 0
    for m in board.col_mask:
        have += m >> color & 1
    base = ROW_BONUS * (potential[4 - rows] - potential[5 - rows]) + COLOR_BONUS * (
        potential[4 - have] - potential[5 - have]
    )
    best, where = -2.0 * (line + 1), -1
    for column in free_columns(board, line, color):
        columns = (filled & COLUMN_CELLS[column]).bit_count()
        gain = (
            base
            + wall_points(filled, line, column)
            + COLUMN_BONUS * (potential[4 - columns] - potential[5 - columns])
        )
        if where < 0 or gain > best:
            best, where = gain, column
    return best, where


def _board_key(know: Knowledge, board: Board) -> tuple[int, ...]:
    """What :func:`_lines_table` of ``board`` depends on (the gray wall's masks as well: its
    colours may go in more than one column)."""
    if know.gray:
        return (
            board.filled,
            *board.row_mask,
            *board.col_mask,
            *board.line_color,
            *board.line_count,
        )
    return (board.filled, *board.line_color, *board.line_count)


def _lines_table(know: Knowledge, board: Board) -> LinesTable:
    """For each colour, (line, room, completion gain) of every pattern line that takes it
    (cached across the search: the same boards recur in many rollouts)."""
    key = _board_key(know, board)
    table = know.tables.get(key)
    if table is None:
        if len(know.tables) >= CACHE_LIMIT:
            know.tables.clear()
        table = know.tables[key] = _build_lines_table(know, board)
    return table


def _build_lines_table(know: Knowledge, board: Board) -> LinesTable:
    line_color, line_count, row_mask = board.line_color, board.line_count, board.row_mask
    table: LinesTable = [[], [], [], [], []]
    gains = know.gains
    if know.gray:
        for line in range(5):
            color = line_color[line]
            room = line + 1 - line_count[line]
            if color < 0:
                for c in ABSENT_COLORS[row_mask[line]]:
                    table[c].append((line, room, _completion_gain(know, board, line, c)))
            elif room:
                table[color].append((line, room, _completion_gain(know, board, line, color)))
        return table
    filled = wall_after_tiling(board, False)  # complete lines tile this round: count them tiled
    key_base = filled * 25
    for line in range(5):
        color = line_color[line]
        room = line + 1 - line_count[line]
        if color < 0:
            for c in ABSENT_COLORS[row_mask[line]]:
                gain = gains.get(key_base + line * 5 + c)
                if gain is None:
                    gain = _colored_gain(know, filled, line, c)
                table[c].append((line, room, gain))
        elif room:
            gain = gains.get(key_base + line * 5 + color)
            if gain is None:
                gain = _colored_gain(know, filled, line, color)
            table[color].append((line, room, gain))
    return table


def options(know: Knowledge, state: State, player: int) -> list[tuple[float, Take]]:
    """The tree's moves for ``player``, best first by immediate worth: a take that only drops
    tiles on the floor line is left out when the same tiles fit a pattern line, and each
    (source, colour) keeps its ``max_lines`` best pattern lines."""
    board = state.boards[player]
    table = _lines_table(know, board)
    floor = len(board.floor)
    marker = 1 if state.marker_holder < 0 else 0
    most = know.weights.max_lines
    out: list[tuple[float, Take]] = []
    new = tuple.__new__
    for source in range(len(state.factories) + 1):
        counts = state.center if source == CENTER else state.factories[source - 1]
        for color in range(5):
            count = counts[color]
            if count:
                placements = placement_worths(
                    table[color], count, floor, marker if source == 0 else 0, know.partial
                )
                if len(placements) > most:
                    placements.sort(reverse=True)
                    del placements[most:]
                for value, line in placements:
                    out.append((value, new(Take, (source, color, line))))
    out.sort(key=lambda item: -item[0])
    return out


def _policy_take(know: Knowledge, state: State, rng: random.Random) -> None:
    """The rollout policy, in place: the take with the best immediate worth plus uniform noise,
    for whoever is to move.

    :func:`placement_worths` written out inline (the best line only, and in its own order of
    additions): this loop is where the search spends most of its time."""
    player = state.current
    board = state.boards[player]
    floor = len(board.floor)
    # each (colour, count, marker)'s best line and worth on this board with this floor, kept
    # across the search: the same boards recur in many rollouts
    key = (*_board_key(know, board), floor)
    cached = know.tops.get(key)
    if cached is None:
        if len(know.tops) >= CACHE_LIMIT:
            know.tops.clear()
        cached = know.tops[key] = ({}, _lines_table(know, board))
    seen, table = cached
    base = _PEN[floor]
    partial = know.partial
    marker = 1 if state.marker_holder < 0 else 0
    rand = rng.random
    noise = know.noise
    best = -1e9
    choice_source = choice_color = 0
    choice_line = FLOOR
    source = -1
    for counts in (state.center, *state.factories):
        source += 1
        with_marker = marker if source == 0 else 0
        if not any(counts):
            continue
        color = -1
        for count in counts:
            color += 1
            if not count:
                continue
            offer = (color * 32 + count) * 2 + with_marker
            top = seen.get(offer)
            if top is None:
                top_value, top_line = -1e9, FLOOR
                for line, room, gain in table[color]:
                    if count >= room:
                        after = floor + count - room + with_marker
                    else:
                        gain = partial * count
                        after = floor + with_marker
                    if after > FLOOR_SIZE:
                        after = FLOOR_SIZE
                    value = gain - _PEN[after] + base
                    if value > top_value:
                        top_value, top_line = value, line
                if top_line == FLOOR:
                    after = floor + count + with_marker
                    top_value = base - _PEN[after if after < FLOOR_SIZE else FLOOR_SIZE]
                top = seen[offer] = (top_value, top_line)
            value = top[0] + noise * rand()
            if value > best:
                best = value
                choice_source, choice_color, choice_line = source, color, top[1]
    take(state, player, choice_source, choice_color, choice_line)


def _finish_tiling(know: Knowledge, state: State) -> None:
    """Gray wall: every pending tiling choice made by the best immediate gain, in place."""
    while state.phase == "tile":
        for player, board in enumerate(state.boards):
            if board.tiling != TILING_DONE:
                line = board.tiling
                column = _gray_gain(know, board, line, board.line_color[line])[1]
                place(state, player, line, column)
                break


def play_round(know: Knowledge, state: State, rng: random.Random) -> None:
    """Play the rest of the round with the rollout policy, in place."""
    while state.phase == "take":
        _policy_take(know, state, rng)
    if state.phase == "tile":
        _finish_tiling(know, state)
