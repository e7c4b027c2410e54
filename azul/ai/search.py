"""Monte Carlo tree search for the ``medium``, ``strong`` and ``master`` computer players, and
the plain UCT yardstick of the arena.

The search (:func:`search`) builds a UCT tree over the rest of the current round. Each node is a
factory-offer decision of the player to move; its moves are pruned and ordered by their immediate
worth (:func:`_options`): a take that only drops tiles on the floor line is left out when the same
tiles fit a pattern line, and each (source, colour) keeps its ``max_lines`` best pattern
lines, which also groups the big centre pulls into a few sensible placements. Progressive
widening opens the moves of a node in that order as it gets visits (``widen_base + widen_rate *
sqrt(visits)`` of them). Below the tree a rollout plays the round out with one cheap policy for
*every* player: the best immediate worth plus uniform noise (nobody is assumed greedy: the tree
decides the searcher's and the opponents' moves alike, each maximising its own reward). Once
the round's tiling is done the rollout goes on through a sampled deal of the next round
(determinisation: the bag's counts are public, the draw is random) when the tree started late in
a round (``extend_below`` tiles or fewer on offer), so that what a player leaves itself
for the next round (pattern lines, the first-player marker) is played out, not only guessed.

The position where a rollout stops is judged by :func:`evaluate_board`: the score, each
end-of-game bonus weighted by how reachable it still is (rows, columns and colours with few
tiles missing count most), wall adjacency (neighbouring tiles make later tiles score more),
tiles waiting on pattern lines, and the first-player marker. A player's reward is its worth
minus the best opponent's, plus ``own_weight`` times its own worth (so that two searchers
build their walls instead of only spoiling each other's); a finished game uses the final scores
and a bonus for winning.

Budgets: ``iterations`` (a fixed number of tree iterations, deterministic for a seed) or
``budget`` (seconds of wall clock, with a safety margin: :func:`deadline_for`); with both the
search stops at whichever comes first. :class:`SearchStats` reports what was done.
"""

from __future__ import annotations

import functools
import math
import random
import time
from dataclasses import dataclass, field

from azul.moves import CENTER, FLOOR, Move, Take
from azul.rules import (
    COLOR_BONUS,
    COLUMN_BONUS,
    ROW_BONUS,
    _apply_deal,
    _draw,
    _free_columns,
    _place,
    _random_take,
    _take,
    _tally,
    _wall_points,
)
from azul.state import FLOOR_PENALTY_TOTAL, FLOOR_SIZE, TILING_DONE, State

__all__ = [
    "DEFAULT",
    "SearchStats",
    "Weights",
    "deadline_for",
    "evaluate_board",
    "search",
    "uct_search",
]

# -- tuned weights (see BOTS.md for how) ----------------------------------------------------------


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

    @functools.cached_property
    def potential(self) -> list[list[float]]:
        """``potential[rounds][need]``: share of a bonus counted when ``need`` tiles are missing
        and about ``rounds`` rounds remain (at most one tile per wall row and round)."""
        return [
            [
                1.0 if need == 0 else (self.chance**need if need <= rounds else 0.0)
                for need in range(6)
            ]
            for rounds in range(6)
        ]


DEFAULT = Weights()

_PEN = FLOOR_PENALTY_TOTAL
_ROW_MASK = [31 << (5 * r) for r in range(5)]
_COLUMN_MASK = [sum(1 << (5 * r + c) for r in range(5)) for c in range(5)]
_COLOR_MASK = [sum(1 << (5 * r + (c + r) % 5) for r in range(5)) for c in range(5)]
"""Colored wall: the cells where each colour goes."""
_NOT_LAST_COLUMN = sum(15 << (5 * r) for r in range(5))


def _popcount(n: int) -> int:
    return n.bit_count()


# -- position knowledge ----------------------------------------------------------------------------


def _rounds_left(state: State) -> int:
    """About how many rounds follow the current one (complete pattern lines counted as tiled)."""
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


def evaluate_board(board, rounds: int, gray: bool, weights: Weights = DEFAULT) -> float:
    """Worth of a board between rounds when about ``rounds`` more rounds will be played."""
    potential = weights.potential[rounds]
    filled = board.filled
    value = float(board.score)
    for r in range(5):
        value += ROW_BONUS * potential[5 - ((filled >> (5 * r)) & 31).bit_count()]
    for c in range(5):
        value += COLUMN_BONUS * potential[5 - (filled & _COLUMN_MASK[c]).bit_count()]
    if gray:
        col_mask = board.col_mask
        for c in range(5):
            have = 0
            for m in col_mask:
                have += m >> c & 1
            value += COLOR_BONUS * potential[5 - have]
    else:
        for c in range(5):
            value += COLOR_BONUS * potential[5 - (filled & _COLOR_MASK[c]).bit_count()]
    if rounds:
        value += weights.adjacency * (
            (filled & (filled >> 1) & _NOT_LAST_COLUMN).bit_count()
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


def _worths(state: State, rounds: int, weights: Weights) -> list[float]:
    """Every player's worth where a rollout stopped."""
    if state.phase == "over":
        return [float(b.score) for b in state.boards]
    gray = state.gray
    worths = [evaluate_board(b, rounds, gray, weights) for b in state.boards]
    starter = state.marker_holder if state.marker_holder >= 0 else state.first_player
    if rounds:
        worths[starter] += weights.marker
    return worths


def _rewards(state: State, rounds: int, weights: Weights, searcher: int = -1) -> list[float]:
    worths = _worths(state, rounds, weights)
    over = state.phase == "over"
    if over:  # equal scores: the most complete rows wins (rulebook), worth a fraction of a point
        keys = [w + 0.01 * b.complete_rows() for w, b in zip(worths, state.boards, strict=True)]
    own = weights.own_weight
    rival = own if weights.rival_own_weight is None else weights.rival_own_weight
    rewards = []
    for p, mine in enumerate(worths):
        best_other = max(w for q, w in enumerate(worths) if q != p)
        reward = mine - best_other
        if over:
            lead = keys[p] - max(k for q, k in enumerate(keys) if q != p)
            if lead:
                reward += weights.win_bonus if lead > 0 else -weights.win_bonus
        share = own if p == searcher or searcher < 0 else rival
        rewards.append(reward + share * mine)
    return rewards


# -- immediate worth of takes ----------------------------------------------------------------------


class _Knowledge:
    """Per-search constants and caches."""

    __slots__ = ("weights", "gray", "rounds", "potential", "partial", "noise", "gains")

    def __init__(self, state: State, weights: Weights) -> None:
        self.weights = weights
        self.gray = state.gray
        self.rounds = _rounds_left(state)
        self.potential = weights.potential[self.rounds]
        self.partial = weights.partial_line if self.rounds else 0.0
        self.noise = weights.noise
        self.gains: dict = {}


def _colored_gain(know: _Knowledge, filled: int, line: int, color: int) -> float:
    """Colored wall: points plus bonus progress for a tile of ``color`` on wall row ``line`` of a
    wall whose tiles are the bits of ``filled`` (cached in ``know.gains``)."""
    potential = know.potential
    column = (color + line) % 5
    rows = ((filled >> (5 * line)) & 31).bit_count()
    columns = (filled & _COLUMN_MASK[column]).bit_count()
    colors = (filled & _COLOR_MASK[color]).bit_count()
    gain = know.gains[(filled * 5 + line) * 5 + color] = (
        _wall_points(filled, line, column)
        + ROW_BONUS * (potential[4 - rows] - potential[5 - rows])
        + COLUMN_BONUS * (potential[4 - columns] - potential[5 - columns])
        + COLOR_BONUS * (potential[4 - colors] - potential[5 - colors])
    )
    return gain


def _completion_gain(know: _Knowledge, board, line: int, color: int) -> float:
    """Gray wall: points plus bonus progress for completing pattern ``line`` with ``color``."""
    key = (board.filled, *board.col_mask, line, color)
    gain = know.gains.get(key)
    if gain is None:
        gain = know.gains[key] = _gray_gain(know, board, line, color)[0]
    return gain


def _gray_gain(know: _Knowledge, board, line: int, color: int) -> tuple[float, int]:
    """Gray wall: the best column for ``color`` on ``line`` and its gain; (penalty, -1) if the
    tile has no space (the whole line would fall to the floor)."""
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
    for column in _free_columns(board, line, color):
        columns = (filled & _COLUMN_MASK[column]).bit_count()
        gain = (
            base
            + _wall_points(filled, line, column)
            + COLUMN_BONUS * (potential[4 - columns] - potential[5 - columns])
        )
        if where < 0 or gain > best:
            best, where = gain, column
    return best, where


_ABSENT = tuple(tuple(c for c in range(5) if not mask >> c & 1) for mask in range(32))
"""For a wall row's colour mask, the colours an empty pattern line of that row may take."""


def _lines_table(know: _Knowledge, board) -> list[list[tuple[int, int, float]]]:
    """For each colour, (line, room, completion gain) of every pattern line that takes it."""
    line_color, line_count, row_mask = board.line_color, board.line_count, board.row_mask
    table: list[list[tuple[int, int, float]]] = [[], [], [], [], []]
    gains = know.gains
    if know.gray:
        for line in range(5):
            color = line_color[line]
            room = line + 1 - line_count[line]
            if color < 0:
                for c in _ABSENT[row_mask[line]]:
                    table[c].append((line, room, _completion_gain(know, board, line, c)))
            elif room:
                table[color].append((line, room, _completion_gain(know, board, line, color)))
        return table
    filled = board.filled
    for line in range(5):  # complete lines tile this round: count them as tiled
        if line_count[line] == line + 1:
            filled |= 1 << (5 * line + (line_color[line] + line) % 5)
    key_base = filled * 25
    for line in range(5):
        color = line_color[line]
        room = line + 1 - line_count[line]
        if color < 0:
            for c in _ABSENT[row_mask[line]]:
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


def _placements(
    know: _Knowledge, floor: int, lines: list[tuple[int, int, float]], count: int, marker: int
) -> list[tuple[float, int]]:
    """(worth, line) of each placement of ``count`` tiles (with the marker if ``marker``) on a
    board whose floor line holds ``floor`` tiles: every pattern line of ``lines`` (from
    :func:`_lines_table`), or the floor line if there is none."""
    base = _PEN[floor]
    out = []
    for line, room, gain in lines:
        if count >= room:
            after = floor + count - room + marker
        else:
            gain = know.partial * count
            after = floor + marker
        if after > FLOOR_SIZE:
            after = FLOOR_SIZE
        out.append((gain - (_PEN[after] - base), line))
    if not out:
        after = floor + count + marker
        if after > FLOOR_SIZE:
            after = FLOOR_SIZE
        out.append((base - _PEN[after], FLOOR))
    return out


def _options(know: _Knowledge, state: State, player: int) -> list[tuple[float, Move]]:
    """The tree's moves for ``player``: pruned (see the module docstring), best first."""
    board = state.boards[player]
    table = _lines_table(know, board)
    floor = len(board.floor)
    marker = 1 if state.marker_holder < 0 else 0
    most = know.weights.max_lines
    out = []
    new = tuple.__new__
    for source in range(len(state.factories) + 1):
        counts = state.center if source == CENTER else state.factories[source - 1]
        for color in range(5):
            count = counts[color]
            if count:
                placements = _placements(
                    know, floor, table[color], count, marker if source == 0 else 0
                )
                if len(placements) > most:
                    placements.sort(reverse=True)
                    del placements[most:]
                for value, line in placements:
                    out.append((value, new(Take, (source, color, line))))
    out.sort(key=lambda item: -item[0])
    return out


def _policy_take(know: _Knowledge, state: State, rng: random.Random) -> None:
    """The rollout policy, in place: the take with the best immediate worth plus uniform noise,
    for whoever is to move."""
    player = state.current
    board = state.boards[player]
    table = _lines_table(know, board)
    floor = len(board.floor)
    base = _PEN[floor]
    partial = know.partial
    marker = 1 if state.marker_holder < 0 else 0
    rand = rng.random
    noise = know.noise
    best = -1e9
    choice_source = choice_color = 0
    choice_line = FLOOR
    seen: dict[int, tuple[float, int]] = {}
    source = -1
    for counts in (state.center, *state.factories):
        source += 1
        with_marker = marker if source == 0 else 0
        for color in range(5):
            count = counts[color]
            if not count:
                continue
            key = (color * 32 + count) * 2 + with_marker
            top = seen.get(key)
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
                top = seen[key] = (top_value, top_line)
            value = top[0] + noise * rand()
            if value > best:
                best = value
                choice_source, choice_color, choice_line = source, color, top[1]
    _take(state, player, choice_source, choice_color, choice_line)


def _finish_tiling(know: _Knowledge, state: State) -> None:
    """Gray wall: every pending tiling choice made by the best immediate gain, in place."""
    while state.phase == "tile":
        for player, board in enumerate(state.boards):
            if board.tiling != TILING_DONE:
                line = board.tiling
                column = _gray_gain(know, board, line, board.line_color[line])[1]
                _place(state, player, line, column)
                break


def _play_round(know: _Knowledge, state: State, rng: random.Random) -> None:
    """Play the rest of the round with the rollout policy, in place."""
    while state.phase == "take":
        _policy_take(know, state, rng)
    if state.phase == "tile":
        _finish_tiling(know, state)


# -- the tree --------------------------------------------------------------------------------------


class _Node:
    __slots__ = ("player", "moves", "children", "visits", "counts", "totals")

    def __init__(self, player: int) -> None:
        self.player = player
        self.moves: list[Move] | None = None
        self.children: list[_Node | None] = []
        self.visits = 0
        self.counts: list[int] = []
        self.totals: list[float] = []

    def expand(self, moves: list[Move]) -> None:
        self.moves = moves
        self.children = [None] * len(moves)
        self.counts = [0] * len(moves)
        self.totals = [0.0] * len(moves)

    def select(self, weights: Weights) -> int:
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
    """What a search did: the move, tree iterations (each ends in one rollout), time, and the
    root moves it tried with their mean reward (points for the mover) and visits, most visited
    first."""

    move: Move | None = None
    iterations: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    budget: float | None = None
    values: list[tuple[Move, float, int]] = field(default_factory=list)

    @property
    def rollouts(self) -> int:
        return self.iterations


def deadline_for(start: float, budget: float) -> float:
    """When a search given ``budget`` seconds stops: 8% + 10 ms earlier (at most a quarter of
    the budget earlier), leaving time to choose the move, return it and finish the odd slow
    iteration."""
    return start + budget - min(budget * 0.08 + 0.01, budget * 0.25)


def _clock_check(iterations: int | None, deadline: float | None):
    if iterations is None and deadline is None:
        raise ValueError("a search needs iterations, a time budget, or both")


def search(
    state: State,
    player: int,
    rng: random.Random,
    *,
    iterations: int | None = None,
    deadline: float | None = None,
    stats: SearchStats | None = None,
    weights: Weights = DEFAULT,
    include: Move | None = None,
) -> Move:
    """The strong search's move for ``player`` in a factory-offer ``state`` (see the module
    docstring). Stops after ``iterations`` or at ``deadline`` (``time.perf_counter``).

    ``include`` (a legal move) is searched first among the root's moves even if the pruning
    would drop it, so that ``stats`` values it: the post-game analysis judges a move played
    against the best one found."""
    _clock_check(iterations, deadline)
    know = _Knowledge(state, weights)
    root = _Node(player)
    options = [m for _, m in _options(know, state, player)]
    if include is not None:
        options = [include, *(m for m in options if m != include)]
    root.expand(options)
    if len(root.moves) == 1:
        if stats is not None:
            stats.values = [(root.moves[0], 0.0, 0)]
        return root.moves[0]
    offered = sum(state.center) + sum(map(sum, state.factories))
    extend = offered <= weights.extend_below
    clock = time.perf_counter
    done = 0
    limit = iterations if iterations is not None else 1 << 62
    # at least one iteration: a process left unscheduled past a tiny budget still searches
    while done < limit and (not done or deadline is None or clock() < deadline):
        _iterate(know, state, root, rng, extend)
        done += 1
    return _most_visited(root, done, stats)


def _most_visited(root: _Node, iterations: int, stats: SearchStats | None) -> Move:
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


def _iterate(know: _Knowledge, root_state: State, root: _Node, rng, extend: bool) -> None:
    state = root_state.copy()
    path = []
    node = root
    while True:
        i = node.select(know.weights)
        path.append((node, i))
        move = node.moves[i]
        _take(state, node.player, move[0], move[1], move[2])
        if state.phase != "take":
            break
        child = node.children[i]
        if child is None:
            child = node.children[i] = _Node(state.current)
            child.expand([m for _, m in _options(know, state, state.current)])
            break
        node = child
    _play_round(know, state, rng)
    rounds = know.rounds
    if extend and state.phase == "deal":
        _apply_deal(state, [_tally(f) for f in _draw(state, rng)])
        _play_round(know, state, rng)
        rounds = max(0, rounds - 1)
    rewards = _rewards(state, rounds, know.weights, root.player)
    for node, i in path:
        node.visits += 1
        node.counts[i] += 1
        node.totals[i] += rewards[node.player]


# -- the yardstick ---------------------------------------------------------------------------------


UCT_C = 0.7
"""The yardstick's exploration constant; its rewards are in [-1, 1]."""


def uct_search(
    state: State,
    player: int,
    rng: random.Random,
    *,
    iterations: int | None = None,
    deadline: float | None = None,
    stats: SearchStats | None = None,
) -> Move:
    """Plain UCT, the arena's textbook yardstick: every legal take, one node added per iteration,
    uniformly random rollouts to the end of the round (random gray-wall columns), and the reward
    the score difference to the best opponent there, scaled to [-1, 1] (a finished game: +1 for
    a win, -1 for a loss)."""
    from azul.rules import _take_moves

    _clock_check(iterations, deadline)
    root = _Node(player)
    root.expand(_take_moves(state, player))
    if len(root.moves) == 1:
        return root.moves[0]
    clock = time.perf_counter
    done = 0
    limit = iterations if iterations is not None else 1 << 62
    sqrt, log = math.sqrt, math.log
    # at least one iteration: a process left unscheduled past a tiny budget still searches
    while done < limit and (not done or deadline is None or clock() < deadline):
        s = state.copy()
        path = []
        node = root
        while True:
            counts, totals = node.counts, node.totals
            log_n = log(node.visits + 1)
            best, i = -1e18, 0
            for k in range(len(counts)):
                n = counts[k]
                if not n:
                    i = k
                    break
                value = totals[k] / n + UCT_C * sqrt(log_n / n)
                if value > best:
                    best, i = value, k
            path.append((node, i))
            move = node.moves[i]
            _take(s, node.player, move[0], move[1], move[2])
            if s.phase != "take":
                break
            child = node.children[i]
            if child is None:
                child = node.children[i] = _Node(s.current)
                child.expand(_take_moves(s, s.current))
                break
            node = child
        while s.phase == "take":
            _random_take(s, rng)
        while s.phase == "tile":
            for p, board in enumerate(s.boards):
                if board.tiling != TILING_DONE:
                    columns = _free_columns(board, board.tiling, board.line_color[board.tiling])
                    _place(s, p, board.tiling, columns[int(rng.random() * len(columns))])
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
    return _most_visited(root, done, stats)
