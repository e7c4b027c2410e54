"""How the computer players judge a position: the one evaluator that greedy's immediate worths,
the search's move ordering, its rollout policy and the end of its rollouts all use.

- :func:`placement_gain`: what a tile reaching a wall space is worth now: its points
  (:func:`azul.wall_points`) plus its progress toward the row, column and colour bonuses, each
  bonus weighted by how reachable it still is (:func:`bonus_potential`, :func:`rounds_left`).
- :func:`placement_worths`: what a take is worth: that gain if the tiles fill their pattern
  line (else a little per tile waiting), less the floor penalty the overflow and the marker cost.
- :func:`evaluate_board` and :func:`rewards`: what a board is worth between rounds, and each
  player's reward where a rollout stopped (its worth against the best opponent's); the
  :func:`margin` alone, in points, is what the post-game analysis reports.

The numbers come from :class:`Weights` (tuned in ``research/BOTS.md``); greedy's are its own
(:mod:`.bots`). ``Weights.fitted`` (None by default) swaps the evaluation where a rollout stops
for :class:`RoundEndTables`, the same terms with weights fitted to self-play data per rounds
left (``research/learn/roundend.py``), which a level can play by in the kinds of game that have
shipped tables (:func:`azul.ai.bots.level_weights`: ``strong`` and ``master`` in 2-player
colored games). Tables may carry a :class:`MarginResidual`, a small network's correction to two
players' margin (``research/learn/residual.py``), as the 2-player ones the levels play by do.

Walls are bitmasks here: bit ``row * 5 + column`` is set when that space holds a
tile (:attr:`azul.state.Board.filled`).
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from azul.notation import FLOOR
from azul.state import FLOOR_PENALTY_TOTAL, FLOOR_SIZE, Board, State
from azul.tiling import COLOR_BONUS, COLUMN_BONUS, ROW_BONUS, wall_points

COLUMN_CELLS = [sum(1 << (5 * r + c) for r in range(5)) for c in range(5)]
"""The wall spaces (bits) of each column."""
COLOR_CELLS = [sum(1 << (5 * r + (c + r) % 5) for r in range(5)) for c in range(5)]
"""Colored wall: the spaces (bits) where each colour goes."""
NOT_LAST_COLUMN = sum(15 << (5 * r) for r in range(5))


def bonus_potential(chance: float) -> list[list[float]]:
    """``table[rounds][need]``: the share of a bonus counted when ``need`` tiles are missing and
    about ``rounds`` rounds remain (at most one tile per wall row and round), with ``chance`` the
    rough chance of adding each further tile before the game ends."""
    return [
        [1.0 if need == 0 else (chance**need if need <= rounds else 0.0) for need in range(6)]
        for rounds in range(6)
    ]


ROUND_END_TERMS = ("score", "base", "adjacency", "partial_line", "near_line", "marker")
"""The scalar terms of :class:`RoundEndTables`, one value per rounds left (see there)."""
BONUS_KINDS = ("row", "column", "colour")
"""The bonus tables of :class:`RoundEndTables`: one share per (rounds left, tiles missing)."""
BONUS_NEEDS = {"row": range(1, 5), "column": range(0, 5), "colour": range(0, 5)}
"""The tiles-missing counts each bonus kind has a feature for in :data:`ROUND_END_FEATURES`.
Missing 5 (nothing yet) is the reference that an intercept absorbs (the counts of a kind
always add up to 5); a complete row ends the game, so no round end a rollout stops at has one."""
ROUND_END_FEATURES: tuple[str, ...] = (
    "score",
    *(f"{kind}{need}" for kind in BONUS_KINDS for need in BONUS_NEEDS[kind]),
    "adjacency",
    "partial_line",
    "near_line",
    "marker",
    "line_points",
    "line_room",
)
"""A board's terms at a round end (:func:`board_vector`): what :class:`RoundEndTables` weigh
and :class:`MarginResidual` reads."""
CONTEXT_FEATURES: tuple[str, ...] = ("contested", "scarcity", "ready_rows")
"""What a board's terms cannot see of the game around it (:func:`context_terms`), which a
:class:`MarginResidual` may also read."""


class MarginResidual:
    """A small network's correction to the margin that :class:`RoundEndTables` give two
    players where a rollout stopped: the terms are linear per rounds left and per board, and
    cannot see how one board's prospects bear on the other's (a rival's nearly full row ends
    the game before one's own bonuses come). ``r(a, b) = g(a, b) - g(b, a)``, with ``g`` one
    hidden tanh layer over both boards' :data:`ROUND_END_FEATURES` (the player's first) and
    the rounds left (one-hot, 1-4); so the correction to one player's margin is minus the
    other's. Fitted by ``research/learn/residual.py`` to what the tables' margin missed of the
    final margin; numpy alone. Compared by identity (a table of arrays)."""

    __slots__ = ("hidden_t", "bias", "out", "context", "both", "by_rounds")

    def __init__(
        self, hidden: Sequence[Sequence[float]], bias: Sequence[float], out: Sequence[float]
    ):
        self.hidden_t: npt.NDArray[np.float64] = np.ascontiguousarray(
            np.asarray(hidden, dtype=np.float64).T
        )
        self.bias = np.asarray(bias, dtype=np.float64)
        self.out = np.asarray(out, dtype=np.float64)
        terms = len(ROUND_END_FEATURES)
        # whether it also reads each board's CONTEXT_FEATURES (after its terms)
        self.context = self.hidden_t.shape[0] == 2 * (terms + len(CONTEXT_FEATURES)) + 4
        if self.context:
            terms += len(CONTEXT_FEATURES)
        if (
            self.hidden_t.shape != (2 * terms + 4, len(self.bias))
            or self.out.shape != self.bias.shape
        ):
            raise ValueError(
                f"a margin residual needs hidden ({len(self.bias)} x {2 * terms + 4}), bias and"
                f" out of one size; got hidden {self.hidden_t.T.shape}, out {self.out.shape}"
            )
        # One product of both boards' terms with the weights of either place, and the rounds'
        # one-hot folded into the bias: a third of the time of the plain layer, per call.
        self.both = np.ascontiguousarray(
            np.hstack([self.hidden_t[:terms], self.hidden_t[terms : 2 * terms]])
        )
        self.by_rounds = [
            self.bias + self.hidden_t[2 * terms + min(max(r, 1), 4) - 1] for r in range(6)
        ]

    def __call__(self, mine: list[float], theirs: list[float], rounds: int) -> float:
        """The correction to the margin of the player whose terms are ``mine``."""
        return self.from_products(np.array((mine, theirs)) @ self.both, rounds)

    def from_products(self, products: npt.NDArray[np.float64], rounds: int) -> float:
        """The correction from both boards' terms (the mine row first) times :attr:`both`,
        whose columns may go on beyond it (:attr:`RoundEndTables.corrected`)."""
        size = len(self.bias)
        hidden = np.tanh(
            products[:, :size] + products[::-1, size : 2 * size] + self.by_rounds[rounds]
        )
        values = hidden @ self.out
        return float(values[0] - values[1])

    def __repr__(self) -> str:
        return f"MarginResidual(hidden={len(self.bias)})"


@dataclass(frozen=True, repr=False)
class RoundEndTables:
    """Weights fitted to self-play data for the evaluation where a rollout stops: the terms of
    :func:`evaluate_board`, each with its own weight per rounds left (``[rounds]``, 0-5).

    A board's worth is ``score[r] * score + base[r]``, plus ``row[r][need]`` for each wall row
    missing ``need`` tiles (likewise ``column`` and ``colour``: these replace the hand-written
    ``bonus * chance**need``, bonus included), plus ``adjacency[r]`` a pair of neighbouring wall
    tiles, ``partial_line[r]`` a tile waiting on an unfinished pattern line, ``near_line[r]`` a
    line missing one tile, and ``marker[r]`` for the player who starts the next round; where
    the tables have them, ``line_points[r]`` and ``line_room[r]`` weigh :func:`line_terms`. The
    worth is in points of final score: with tables fitted to final scores, a board's expected
    final score. The same additions as the hand-written evaluation, so the same cost."""

    source: str
    score: tuple[float, ...]
    base: tuple[float, ...]
    adjacency: tuple[float, ...]
    partial_line: tuple[float, ...]
    near_line: tuple[float, ...]
    marker: tuple[float, ...]
    row: tuple[tuple[float, ...], ...]
    column: tuple[tuple[float, ...], ...]
    colour: tuple[tuple[float, ...], ...]
    line_points: tuple[float, ...] = (0.0,) * 6
    line_room: tuple[float, ...] = (0.0,) * 6
    residual: MarginResidual | None = None
    """With 2 players, a correction to their margin (:class:`MarginResidual`); None: none."""
    search: tuple[tuple[str, float], ...] = ()
    """The search knobs (:class:`Weights` fields, e.g. ``win_spread``) a level plays these
    tables with (the file's ``search``: they were measured together); :func:`azul.ai.bots.
    level_weights` applies them, an arena seat's ``fitted=PATH`` does not."""

    @functools.cached_property
    def vectors(self) -> tuple[tuple[float, ...], ...]:
        """Per rounds left, the weights of :data:`ROUND_END_FEATURES` (:func:`board_vector`):
        a board's worth is ``base[rounds]`` plus their products."""
        out = []
        for r in range(6):
            named = {
                "score": self.score[r],
                "adjacency": self.adjacency[r],
                "partial_line": self.partial_line[r],
                "near_line": self.near_line[r],
                "marker": self.marker[r],
                "line_points": self.line_points[r],
                "line_room": self.line_room[r],
            }
            for kind in BONUS_KINDS:
                for need in BONUS_NEEDS[kind]:
                    named[f"{kind}{need}"] = getattr(self, kind)[r][need]
            out.append(tuple(named[name] for name in ROUND_END_FEATURES))
        return tuple(out)

    @functools.cached_property
    def corrected(self) -> npt.NDArray[np.float64]:
        """With a :class:`MarginResidual`, the one matrix a rollout's end multiplies both
        boards' terms by: the network's first layer, then :attr:`vectors` as one column per
        rounds left (0 for the context terms), so that the tables' sums cost no Python loop."""
        assert self.residual is not None
        net = self.residual.both
        linear = np.zeros((net.shape[0], 6))
        linear[: len(ROUND_END_FEATURES)] = np.array(self.vectors).T
        return np.ascontiguousarray(np.hstack([net, linear]))

    def __repr__(self) -> str:  # the arena prints the weights it changes: the file, not 200 numbers
        return f"RoundEndTables({self.source!r})"

    @classmethod
    def from_buckets(
        cls,
        buckets: Mapping[int, Mapping[str, Any]],
        source: str,
        residual: MarginResidual | None = None,
        search: Mapping[str, float] | None = None,
    ) -> RoundEndTables:
        """Tables from fitted ``buckets`` (rounds left -> each term of :data:`ROUND_END_TERMS`
        a number, each of :data:`BONUS_KINDS` six numbers, tiles missing 0-5). A number of
        rounds left without a bucket takes the nearest fitted one's."""
        if not buckets:
            raise ValueError(f"{source}: no fitted buckets")
        fitted = sorted(buckets)

        def nearest(rounds: int) -> Mapping[str, Any]:
            return buckets[min(fitted, key=lambda b: (abs(b - rounds), b))]

        by_rounds = [nearest(rounds) for rounds in range(6)]

        def scalar(term: str) -> tuple[float, ...]:
            return tuple(float(bucket[term]) for bucket in by_rounds)

        def optional(term: str) -> tuple[float, ...]:
            return tuple(float(bucket.get(term, 0.0)) for bucket in by_rounds)

        def bonus(kind: str) -> tuple[tuple[float, ...], ...]:
            rows = tuple(tuple(float(v) for v in bucket[kind]) for bucket in by_rounds)
            if any(len(r) != 6 for r in rows):
                raise ValueError(f"{source}: {kind} needs six values (tiles missing 0-5)")
            return rows

        return cls(
            source=source,
            score=scalar("score"),
            base=scalar("base"),
            adjacency=scalar("adjacency"),
            partial_line=scalar("partial_line"),
            near_line=scalar("near_line"),
            marker=scalar("marker"),
            row=bonus("row"),
            column=bonus("column"),
            colour=bonus("colour"),
            line_points=optional("line_points"),
            line_room=optional("line_room"),
            residual=residual,
            search=tuple(sorted((name, float(v)) for name, v in (search or {}).items())),
        )


@functools.lru_cache(maxsize=8)
def load_round_end_tables(path: str) -> RoundEndTables:
    """:class:`RoundEndTables` from a JSON file written by ``research/learn/roundend.py`` (its
    ``buckets``: rounds left -> the terms; ``residual``, ``research/learn/residual.py``'s
    correction, and ``search``, the knobs they are played with, where it has them), read once
    per process."""
    data = json.loads(Path(path).read_text())
    buckets = {int(rounds): terms for rounds, terms in data["buckets"].items()}
    net = data.get("residual")
    residual = None if net is None else MarginResidual(net["hidden"], net["bias"], net["out"])
    search = data.get("search", {})
    knobs = {f.name for f in fields(Weights)} - {"fitted"}  # the tables are the file itself
    unknown = set(search) - knobs
    if unknown:
        raise ValueError(f"{path}: not search knobs of Weights: {sorted(unknown)}")
    return RoundEndTables.from_buckets(buckets, Path(path).name, residual, search)


@dataclass(frozen=True)
class Weights:
    """The search's knobs and the evaluation's weights (points unless said otherwise)."""

    c_uct: float = 20.0
    """Exploration constant, in points (rewards are point differences): about the spread of
    the rewards, so that a one-second search keeps testing the opponents' replies."""
    widen_base: int = 3
    widen_rate: float = 1.5
    """Progressive widening: a node with ``n`` visits considers its ``widen_base + widen_rate *
    sqrt(n)`` best moves by immediate worth."""
    max_lines: int = 3
    """Pattern lines kept per (source, colour) in the tree (the best by immediate worth)."""
    noise: float = 3.0
    """Rollout policy: uniform noise added to each take's immediate worth."""
    extend_below: int = 12
    """Rollouts go on through a sampled next round when the root offers at most this many
    tiles (0: never); 12 is about the second half of a 2-player round (see BOTS.md)."""
    own_weight: float = 1.5
    """Share of a player's own worth added to its reward (worth minus the best opponent's):
    above 1 so that two searchers build rather than starve each other (see BOTS.md)."""
    rival_own_weight: float | None = None
    """``own_weight`` of the searcher's opponents as it models them (None: the same as its
    own); 0 models them as playing for the difference alone."""
    win_bonus: float = 25.0
    """Reward for winning a game that ends in the rollout (on top of the score difference):
    large enough that in the last round no gain in points outweighs the win."""
    win_spread: float = 0.0
    """Where a rollout stops before the game ends, also reward the chance of winning it: add
    ``win_bonus * erf(lead / (sigma * sqrt 2))``, the expected win bonus if the final margin
    is the expected one (``lead``) give or take a normal spread ``sigma = win_spread *
    sqrt((rounds + 1) / 2)`` points (``rounds``: left after the current one). 0: no such term,
    only a game that ends in the rollout is worth ``win_bonus``."""
    partial_line: float = 0.45
    """Worth of a tile waiting on an unfinished pattern line at the end of a round."""
    near_line: float = 0.6
    """Extra worth of an unfinished pattern line missing a single tile."""
    adjacency: float = 0.25
    """Worth of each pair of neighbouring wall tiles (later tiles next to them score more)."""
    marker: float = 2.0
    """Worth of starting the next round."""
    chance: float = 0.55
    """Rough chance of adding each further tile a bonus still needs before the game ends."""
    fitted: RoundEndTables | None = None
    """Fitted tables for the evaluation where a rollout stops (:func:`worths`) instead of the
    hand-written weights above (None: those). The rollout policy's immediate worths keep
    ``chance``. Made by ``research/learn/roundend.py``; a level with ``fitted`` takes the shipped
    ones for the kinds of game they were fitted for (:func:`azul.ai.bots.level_weights`)."""

    @functools.cached_property
    def potential(self) -> list[list[float]]:
        """:func:`bonus_potential` for these weights' ``chance``."""
        return bonus_potential(self.chance)


DEFAULT = Weights()


def rounds_left(state: State) -> int:
    """About how many rounds follow the current one (complete pattern lines counted as tiled):
    the fullest wall row completes within about that many."""
    most = 0
    for board in state.boards:
        filled = board.filled
        line_count = board.line_count
        for line in range(5):
            n = ((filled >> (5 * line)) & 31).bit_count()
            if line_count[line] == line + 1:
                n += 1
            if n > most:
                most = n
    return 0 if most >= 5 else 5 - most


def wall_after_tiling(board: Board, gray: bool) -> int:
    """The wall's tiles (bits) once this round's complete pattern lines are tiled. On the colored
    wall their spaces are known; on the gray wall they are chosen then: the wall as it stands."""
    filled = board.filled
    if not gray:
        line_count, line_color = board.line_count, board.line_color
        for line in range(5):
            if line_count[line] == line + 1:
                filled |= 1 << (5 * line + (line_color[line] + line) % 5)
    return filled


def tiles_of_color(board: Board, filled: int, color: int, gray: bool) -> int:
    """How many tiles of ``color`` a wall holds: ``filled`` (colored wall) or ``board``'s."""
    if gray:
        have = 0
        for mask in board.col_mask:
            have += mask >> color & 1
        return have
    return (filled & COLOR_CELLS[color]).bit_count()


def placement_gain(
    filled: int, line: int, column: int, same_color: int, potential: Sequence[float]
) -> float:
    """Points plus bonus progress for a tile at (``line``, ``column``) of a wall whose tiles are
    the bits of ``filled`` and which holds ``same_color`` tiles of its colour; ``potential`` is
    a row of :func:`bonus_potential` for the rounds left."""
    rows = ((filled >> (5 * line)) & 31).bit_count()
    columns = (filled & COLUMN_CELLS[column]).bit_count()
    return (
        wall_points(filled, line, column)
        + ROW_BONUS * (potential[4 - rows] - potential[5 - rows])
        + COLUMN_BONUS * (potential[4 - columns] - potential[5 - columns])
        + COLOR_BONUS * (potential[4 - same_color] - potential[5 - same_color])
    )


def placement_worths(
    lines: Sequence[tuple[int, int, float]], count: int, floor: int, marker: int, partial: float
) -> list[tuple[float, int]]:
    """(worth, line) of each placement of ``count`` tiles, with the starting player marker if
    ``marker`` is 1, on a board whose floor line holds ``floor`` tiles: on each pattern line of
    ``lines``, given as (line, spaces left, :func:`placement_gain` of completing it), or on the
    floor line if ``lines`` is empty. A line the tiles fill is worth its gain, else ``partial``
    a tile waiting; less, either way, the floor penalty the overflow and the marker add."""
    base = FLOOR_PENALTY_TOTAL[floor]
    out = []
    for line, room, gain in lines:
        if count >= room:
            after = floor + count - room + marker
        else:
            gain = partial * count
            after = floor + marker
        if after > FLOOR_SIZE:
            after = FLOOR_SIZE
        out.append((gain - (FLOOR_PENALTY_TOTAL[after] - base), line))
    if not out:
        after = floor + count + marker
        if after > FLOOR_SIZE:
            after = FLOOR_SIZE
        out.append((float(base - FLOOR_PENALTY_TOTAL[after]), FLOOR))
    return out


def evaluate_board(board: Board, rounds: int, gray: bool, weights: Weights = DEFAULT) -> float:
    """Worth of a board between rounds when about ``rounds`` more rounds will be played: the
    score, each end-of-game bonus weighted by how reachable it still is, wall adjacency and the
    tiles waiting on pattern lines."""
    potential = weights.potential[rounds]
    filled = board.filled
    value = float(board.score)
    for r in range(5):
        value += ROW_BONUS * potential[5 - ((filled >> (5 * r)) & 31).bit_count()]
    for c in range(5):
        value += COLUMN_BONUS * potential[5 - (filled & COLUMN_CELLS[c]).bit_count()]
    if gray:
        col_mask = board.col_mask
        for c in range(5):
            have = 0
            for m in col_mask:
                have += m >> c & 1
            value += COLOR_BONUS * potential[5 - have]
    else:
        for c in range(5):
            value += COLOR_BONUS * potential[5 - (filled & COLOR_CELLS[c]).bit_count()]
    if rounds:
        value += weights.adjacency * (
            (filled & (filled >> 1) & NOT_LAST_COLUMN).bit_count()
            + (filled & (filled >> 5)).bit_count()
        )
        line_count = board.line_count
        for line in range(1, 5):
            n = line_count[line]
            if n:
                value += weights.partial_line * n
                if n == line:
                    value += weights.near_line
    return value


BoardMemo = dict[tuple[int, ...], list[float]]
"""A search's record of each board's :func:`board_vector` (:func:`fitted_worths`' ``memo``)."""

MEMO_LIMIT = 10_000
"""Most boards a search's ``memo`` keeps (:func:`fitted_worths`); past it, it starts again."""


def worths(
    state: State, rounds: int, weights: Weights, memo: BoardMemo | None = None
) -> list[float]:
    """Every player's worth where a rollout stopped: the final scores once the game is over.
    ``memo`` (a search's own dictionary) keeps what the fitted evaluation read of each board
    (:func:`fitted_worths`)."""
    if state.phase == "over":
        return [float(b.score) for b in state.boards]
    if weights.fitted is not None:
        return fitted_worths(state, weights.fitted, memo)
    gray = state.gray
    values = [evaluate_board(b, rounds, gray, weights) for b in state.boards]
    starter = state.marker_holder if state.marker_holder >= 0 else state.first_player
    if rounds:
        values[starter] += weights.marker
    return values


def board_terms(board: Board, gray: bool) -> tuple[list[int], list[int], list[int], int, int, int]:
    """The counts the round-end evaluation weighs on one board: for rows, columns and colours,
    how many of each miss 0-5 tiles; the pairs of neighbouring wall tiles; the tiles waiting on
    unfinished pattern lines; the lines missing one tile."""
    filled = board.filled
    rows = [0] * 6
    columns = [0] * 6
    colours = [0] * 6
    for r in range(5):
        rows[5 - ((filled >> (5 * r)) & 31).bit_count()] += 1
    for c in range(5):
        columns[5 - (filled & COLUMN_CELLS[c]).bit_count()] += 1
    for c in range(5):
        colours[5 - tiles_of_color(board, filled, c, gray)] += 1
    pairs = (filled & (filled >> 1) & NOT_LAST_COLUMN).bit_count() + (
        filled & (filled >> 5)
    ).bit_count()
    waiting = near = 0
    line_count = board.line_count
    for line in range(1, 5):
        n = line_count[line]
        if n:
            waiting += n
            if n == line:
                near += 1
    return rows, columns, colours, pairs, waiting, near


def board_vector(board: Board, gray: bool, starts: bool) -> list[float]:
    """:data:`ROUND_END_FEATURES` of ``board`` at a round end (``starts``: its player takes
    the first-player marker's place and starts the next round)."""
    # Counted here rather than through board_terms' lists and a dictionary: the margin residual
    # reads two boards at every rollout's end (BOTS.md, "Cheaper terms").
    filled = board.filled
    vector = [0.0] * len(ROUND_END_FEATURES)
    vector[0] = float(board.score)
    for r in range(5):
        need = 5 - ((filled >> (5 * r)) & 31).bit_count()
        if 0 < need < 5:
            vector[need] += 1.0  # row1..row4: 1-4
    for c in range(5):
        need = 5 - (filled & COLUMN_CELLS[c]).bit_count()
        if need < 5:
            vector[5 + need] += 1.0  # column0..column4: 5-9
    for c in range(5):
        have = tiles_of_color(board, filled, c, gray)
        if have:
            vector[15 - have] += 1.0  # colour0..colour4: 10-14
    pairs = (filled & (filled >> 1) & NOT_LAST_COLUMN).bit_count()
    vector[15] = float(pairs + (filled & (filled >> 5)).bit_count())
    line_count = board.line_count
    waiting = near = 0
    for line in range(1, 5):
        n = line_count[line]
        if n:
            waiting += n
            if n == line:
                near += 1
    vector[16] = float(waiting)
    vector[17] = float(near)
    vector[18] = 1.0 if starts else 0.0
    points, room = line_terms(board, gray)
    vector[19] = points
    vector[20] = float(room)
    return vector


def line_terms(board: Board, gray: bool) -> tuple[float, int]:
    """The unfinished pattern lines' prospects at a round end, beyond how many tiles wait:
    the wall points each line's tile would score if placed now (on the gray wall, in the best
    space its colour may take), weighted by the share of the line filled, summed; and the
    tiles those lines still need (what they hold the player to in the rounds to come)."""
    line_count, line_color = board.line_count, board.line_color
    points = 0.0
    room = 0
    for line in range(1, 5):
        n = line_count[line]
        if n:
            points += line_points(board, line, line_color[line], gray) * n / (line + 1)
            room += line + 1 - n
    return points, room


def line_points(board: Board, line: int, colour: int, gray: bool) -> int:
    """The wall points a tile of ``colour`` from pattern line ``line`` would score now."""
    filled = board.filled
    if not gray:
        return wall_points(filled, line, (colour + line) % 5)
    best = 0
    col_mask = board.col_mask
    for column in range(5):
        if not (filled >> (5 * line + column)) & 1 and not (col_mask[column] >> colour) & 1:
            best = max(best, wall_points(filled, line, column))
    return best


def evaluate_board_fitted(board: Board, rounds: int, gray: bool, tables: RoundEndTables) -> float:
    """:func:`evaluate_board` with :class:`RoundEndTables` (``rounds``: 0-5): the same terms,
    the fitted weights, the marker left out (:func:`fitted_worths` adds it)."""
    row, column, colour = tables.row[rounds], tables.column[rounds], tables.colour[rounds]
    filled = board.filled
    value = tables.score[rounds] * board.score + tables.base[rounds]
    for r in range(5):
        value += row[5 - ((filled >> (5 * r)) & 31).bit_count()]
    for c in range(5):
        value += column[5 - (filled & COLUMN_CELLS[c]).bit_count()]
    if gray:
        col_mask = board.col_mask
        for c in range(5):
            have = 0
            for m in col_mask:
                have += m >> c & 1
            value += colour[5 - have]
    else:
        for c in range(5):
            value += colour[5 - (filled & COLOR_CELLS[c]).bit_count()]
    value += tables.adjacency[rounds] * (
        (filled & (filled >> 1) & NOT_LAST_COLUMN).bit_count()
        + (filled & (filled >> 5)).bit_count()
    )
    line_count = board.line_count
    partial, near = tables.partial_line[rounds], tables.near_line[rounds]
    for line in range(1, 5):
        n = line_count[line]
        if n:
            value += partial * n
            if n == line:
                value += near
    if tables.line_points[rounds] or tables.line_room[rounds]:
        points, room = line_terms(board, gray)
        value += tables.line_points[rounds] * points + tables.line_room[rounds] * room
    return value


def fitted_worths(
    state: State, tables: RoundEndTables, memo: BoardMemo | None = None
) -> list[float]:
    """Every player's worth where a rollout stopped by :class:`RoundEndTables`, for a game not
    over. The rounds left are the stopped position's own (:func:`rounds_left`), not the
    search root's estimate that :func:`worths` is given: the tables were fitted to positions
    bucketed that way, and a rollout may have filled a row further than the root foresaw.

    ``memo``: a dictionary kept for one search, where the 2-player correction keeps each
    board's terms (rollouts of one search end on the same boards again and
    again: about three times in five over 3,000 iterations)."""
    if tables.residual is not None and state.players == 2:
        return _corrected_worths(state, tables, tables.residual, memo)
    rounds = rounds_left(state)
    gray = state.gray
    values = [evaluate_board_fitted(b, rounds, gray, tables) for b in state.boards]
    starter = state.marker_holder if state.marker_holder >= 0 else state.first_player
    values[starter] += tables.marker[rounds]
    return values


def _corrected_worths(
    state: State,
    tables: RoundEndTables,
    residual: MarginResidual,
    memo: BoardMemo | None = None,
) -> list[float]:
    """:func:`fitted_worths` of a 2-player game with the tables' :class:`MarginResidual`: each
    board's terms are read once (:func:`board_vector`), for the tables and the network."""
    rounds = rounds_left(state)
    gray = state.gray
    starter = state.marker_holder if state.marker_holder >= 0 else state.first_player
    first, second = (_board_terms(b, gray, p == starter, memo) for p, b in enumerate(state.boards))
    if residual.context:  # new lists: a memo's stay the board's own terms
        first = first + context_terms(state, 0)
        second = second + context_terms(state, 1)
    # the network's first layer and the tables' sums in one product (RoundEndTables.corrected;
    # both rows at once: a row at a time would round differently, and rarely move differently)
    products = np.array((first, second)) @ tables.corrected
    half = 0.5 * residual.from_products(products, rounds)
    base = tables.base[rounds]
    column = 2 * len(residual.bias) + rounds
    return [base + float(products[0, column]) + half, base + float(products[1, column]) - half]


def _board_terms(board: Board, gray: bool, starts: bool, memo: BoardMemo | None) -> list[float]:
    """:func:`board_vector`, from ``memo`` where the search has read this board before."""
    if memo is None:
        return board_vector(board, gray, starts)
    key = (board.filled, board.score, *board.line_color, *board.line_count, starts)
    terms = memo.get(key)
    if terms is None:
        if len(memo) >= MEMO_LIMIT:
            memo.clear()
        terms = memo[key] = board_vector(board, gray, starts)
    return terms


def context_terms(state: State, player: int) -> list[float]:
    """:data:`CONTEXT_FEATURES` of ``player``'s board at a round end: the tiles its unfinished
    pattern lines still need of colours an opponent's unfinished lines also wait for; those
    lines' needs against the tiles of their colour left to draw (bag and lid), summed; and its
    wall rows missing one tile whose pattern line already holds that tile's colour (the game
    likely ends with the next round)."""
    board = state.boards[player]
    line_count, line_color = board.line_count, board.line_color
    wanted = 0
    for q, other in enumerate(state.boards):
        if q != player:
            for line in range(1, 5):
                if other.line_count[line]:
                    wanted |= 1 << other.line_color[line]
    bag, lid = state.bag, state.lid
    contested = 0
    scarcity = 0.0
    for line in range(1, 5):
        n = line_count[line]
        if n:
            colour = line_color[line]
            need = line + 1 - n
            if wanted >> colour & 1:
                contested += need
            scarcity += need / max(bag[colour] + lid[colour], 1)
    ready = 0
    filled = board.filled
    for row in range(5):
        if ((filled >> (5 * row)) & 31).bit_count() == 4 and line_count[row]:
            column = (~filled >> (5 * row) & 31).bit_length() - 1
            colour = line_color[row]
            if (state.gray and not (board.col_mask[column] >> colour) & 1) or (
                not state.gray and (colour + row) % 5 == column
            ):
                ready += 1
    return [float(contested), scarcity, float(ready)]


def margin(values: Sequence[float], player: int) -> float:
    """``player``'s worth minus the best opponent's (:func:`worths`): the final score margin,
    in points, that the evaluation expects where a rollout stopped (the margin itself once the
    game is over). The post-game analysis judges moves by it (:mod:`.judge`)."""
    return values[player] - max(w for q, w in enumerate(values) if q != player)


def rewards(state: State, rounds: int, weights: Weights, searcher: int = -1) -> list[float]:
    """Every player's reward where a rollout stopped: its worth minus the best opponent's, plus
    its share of its own worth (``own_weight``, or ``rival_own_weight`` for the ``searcher``'s
    opponents), plus or minus ``win_bonus`` in a finished game (and its expected share in one
    not finished, with ``win_spread``)."""
    return rewards_of(state, worths(state, rounds, weights), weights, searcher, rounds)


def rewards_of(
    state: State, values: list[float], weights: Weights, searcher: int = -1, rounds: int = 0
) -> list[float]:
    """:func:`rewards` from the players' :func:`worths` ``values``, already computed."""
    over = state.phase == "over"
    spread = 0.0  # sigma * sqrt 2 (Weights.win_spread)
    if weights.win_spread and not over:
        spread = weights.win_spread * math.sqrt(max(rounds, 1) + 1)
    keys: list[float] = []
    if over:  # equal scores: the most complete rows wins (rulebook), worth a fraction of a point
        keys = [w + 0.01 * b.complete_rows() for w, b in zip(values, state.boards, strict=True)]
    own = weights.own_weight
    rival = own if weights.rival_own_weight is None else weights.rival_own_weight
    out = []
    for p, mine in enumerate(values):
        best_other = max(w for q, w in enumerate(values) if q != p)
        reward = mine - best_other
        if over:
            lead = keys[p] - max(k for q, k in enumerate(keys) if q != p)
            if lead:
                reward += weights.win_bonus if lead > 0 else -weights.win_bonus
        elif spread:
            reward += weights.win_bonus * math.erf((mine - best_other) / spread)
        share = own if p == searcher or searcher < 0 else rival
        out.append(reward + share * mine)
    return out
