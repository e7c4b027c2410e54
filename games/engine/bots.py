"""Computer players: ``random``, ``greedy``, ``medium`` and ``strong``.

>>> import random
>>> from games.engine import deal, new_game
>>> from games.engine.bots import choose_move
>>> state = deal(new_game(2), rng=random.Random(1))
>>> move = choose_move(state, 0, "greedy")

A bot sees only what a player sees: the current state. Within a round Azul has no hidden
information (the factories are face up), so the search players look ahead to the end of the
current round and judge the position there with a heuristic that knows the end-of-game bonuses;
they never look at future deals, which do not exist yet.

Every bot is deterministic for a given ``seed`` and search budget (a number of rollouts, not a
time), so a retried task chooses the same move. ``time_cap`` is a wall-clock safety net: when it
is reached the search stops and the best move found so far is returned (then, and only then, the
choice may depend on the machine's speed).

This module uses the engine's in-place helpers on its own copies of the state and never changes
the state it is given.
"""

from __future__ import annotations

import random
import time
from dataclasses import dataclass
from typing import Any

from .moves import CENTER, FLOOR, Move, Take
from .rules import (
    COLOR_BONUS,
    COLUMN_BONUS,
    ROW_BONUS,
    _destinations,
    _free_columns,
    _place,
    _take,
    _wall_points,
    legal_moves,
)
from .state import FLOOR_PENALTY_TOTAL, FLOOR_SIZE, TILING_DONE, State

__all__ = ["LEVELS", "Level", "choose_move", "evaluate", "move_values"]


@dataclass(frozen=True)
class Level:
    """A bot level as players see it: its name, a title and a one-paragraph description."""

    name: str
    title: str
    description: str
    rollouts: int = 0
    """Search budget at the default one-second cap: rollouts to the end of the round per move."""


ROLLOUTS_PER_SECOND = {2: 2000, 3: 1000, 4: 600}
"""Rollouts per second of the strong search on one core of the development machine, by number
of players, at the slowest point (the first move of a round; the gray wall is the slower one).
Used only to turn a time budget into a fixed, machine-independent number of rollouts; see
:func:`rollouts_for`."""

LEVELS: dict[str, Level] = {
    level.name: level
    for level in (
        Level(
            "random",
            "Random",
            "Picks any legal move at random, with no plan at all. It fills its floor line, breaks"
            " its own pattern lines and rarely completes a row: a baseline to measure other"
            " players against, and a gentle first opponent for someone learning the rules.",
        ),
        Level(
            "greedy",
            "Greedy",
            "Takes the move that looks best right now: the points it will score at this round's"
            " wall tiling, the floor penalty it pays, progress toward filling its pattern lines"
            " and toward the end-of-game row, column and colour bonuses. It never looks ahead at"
            " what its opponents will do, so it is easy to leave with a big pile of tiles it"
            " must drop on its floor at the end of a round.",
        ),
        Level(
            "medium",
            "Medium",
            "A lighter version of the strong player: it tries the most promising moves by"
            " playing the rest of the round out a few dozen times, every player choosing"
            " sensible moves, and keeps the move that leaves it best placed. It sees the traps"
            " greedy falls into but looks less deeply than the strong player.",
            rollouts=100,
        ),
        Level(
            "strong",
            "Strong",
            "A search player. For each promising move it plays the rest of the round out"
            " hundreds of times, with every player making sensible, slightly varied choices,"
            " and judges where each playout ends: points scored, floor penalties, unfinished"
            " pattern lines and how likely each row, column and colour bonus still is before the"
            " game ends. It spends its thinking on the best candidates, denies opponents the"
            " tiles they need and avoids being forced to take a heap of tiles late in a round."
            " It thinks for about one second per move.",
            rollouts=ROLLOUTS_PER_SECOND[2],
        ),
    )
}


def rollouts_for(level: str, budget: float = 1.0, players: int = 2) -> int:
    """The fixed rollout budget of ``level`` for a per-move time ``budget`` in seconds.

    The calibration is a constant (measured once on the development machine), so the number of
    rollouts, and hence the move chosen, depends only on ``budget`` and the number of players,
    never on the current load. The strong level keeps a 30% margin under the cap.
    """
    if level == "strong":
        return max(8, int(ROLLOUTS_PER_SECOND[players] * budget * 0.7))
    return LEVELS[level].rollouts


def choose_move(
    state: State,
    player: int | None = None,
    level: str = "strong",
    *,
    seed: int = 0,
    time_cap: float = 1.0,
    rollouts: int | None = None,
    stats: dict[str, Any] | None = None,
) -> Move:
    """A legal move for ``player`` (default: the only player to act) at ``level``.

    ``rollouts`` overrides the level's search budget (see :func:`rollouts_for`); ``time_cap``
    (seconds) stops the search early if it is reached. ``stats``, if given, receives
    ``rollouts`` (how many were run), ``seconds`` (wall clock) and ``cpu_seconds`` (this
    process's CPU time: on a busy machine the wall clock can exceed the cap when the process is
    not scheduled, which no check inside the search can prevent).
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}: choose from {', '.join(LEVELS)}")
    start = time.perf_counter()
    cpu_start = time.process_time()
    if player is None:
        waiting = state.to_move
        if len(waiting) != 1:
            raise ValueError(f"players {waiting} may act: name the player to move")
        player = waiting[0]
    moves = legal_moves(state, player)
    if not moves:
        raise ValueError(f"player {player} has no move to make now")
    rng = random.Random(seed)
    done = 0
    if len(moves) == 1:
        move = moves[0]
    elif level == "random":
        move = moves[rng.randrange(len(moves))]
    elif level == "greedy" or state.phase == "tile":
        move = _greedy(state, player, moves, rng)
    else:
        budget = rollouts if rollouts is not None else rollouts_for(level, time_cap, state.players)
        move, done = _search(state, player, moves, rng, budget, start + time_cap * 0.85)
    if stats is not None:
        stats["rollouts"] = done
        stats["seconds"] = time.perf_counter() - start
        stats["cpu_seconds"] = time.process_time() - cpu_start
    return move


# -- position knowledge --------------------------------------------------------------------------

PARTIAL_LINE_VALUE = 0.5
"""Worth of each tile waiting on an unfinished pattern line when a round ends."""
MARKER_VALUE = 0.7
"""Worth of starting the next round."""
CHANCE = 0.6
"""Rough chance of adding each further tile a bonus still needs before the game ends."""

_POTENTIAL = [
    [1.0 if need == 0 else (CHANCE**need if need <= rounds else 0.0) for need in range(6)]
    for rounds in range(6)
]
"""``_POTENTIAL[rounds][need]``: share of a bonus counted when ``need`` tiles are missing and
about ``rounds`` rounds remain (at most one tile per wall row and round)."""

_POPCOUNT = [bin(n).count("1") for n in range(32)]
_PENALTY = FLOOR_PENALTY_TOTAL


def _row_fill(board) -> list[int]:
    return [_POPCOUNT[mask] for mask in board.row_mask]


def _rounds_left(state: State, pending: bool) -> int:
    """About how many rounds follow the current one (a row completes within about that many).

    With ``pending``, complete pattern lines count as already on the wall (mid-round view).
    """
    most = 0
    for board in state.boards:
        for line in range(5):
            n = _POPCOUNT[board.row_mask[line]]
            if pending and board.line_count[line] == line + 1:
                n += 1
            if n > most:
                most = n
    return 0 if most >= 5 else 5 - most


def evaluate(state: State, player: int) -> float:
    """Heuristic worth of a position between rounds (or at the end) for ``player``.

    Score, plus the share of each end-of-game bonus that still looks reachable, plus the tiles
    waiting on pattern lines and the starting player marker. At the end of the game it is the
    final score.
    """
    board = state.boards[player]
    if state.phase == "over":
        return float(board.score)
    rounds = _rounds_left(state, pending=False)
    return _board_value(board, rounds) + (
        MARKER_VALUE if state.marker_holder == player or state.first_player == player else 0.0
    )


def _board_value(board, rounds: int) -> float:
    potential = _POTENTIAL[rounds]
    value = float(board.score)
    row_mask = board.row_mask
    for mask in row_mask:
        value += ROW_BONUS * potential[5 - _POPCOUNT[mask]]
    wall = board.wall
    for column in range(5):
        filled = (
            (wall[column] >= 0)
            + (wall[5 + column] >= 0)
            + (wall[10 + column] >= 0)
            + (wall[15 + column] >= 0)
            + (wall[20 + column] >= 0)
        )
        value += COLUMN_BONUS * potential[5 - filled]
    for color in range(5):
        bit = 1 << color
        have = sum(1 for mask in row_mask if mask & bit)
        value += COLOR_BONUS * potential[5 - have]
    if rounds:
        value += PARTIAL_LINE_VALUE * sum(board.line_count)
    return value


class _View:
    """One board as a move-chooser sees it mid-round: complete pattern lines already tiled."""

    __slots__ = ("board", "gray", "filled", "rows", "columns", "colors", "potential", "gains")

    def __init__(self, board, gray: bool, rounds: int) -> None:
        self.board = board
        self.gray = gray
        wall = board.wall
        filled = board.filled
        rows = _row_fill(board)
        columns = [0] * 5
        for cell in range(25):
            if wall[cell] >= 0:
                columns[cell % 5] += 1
        colors = [0] * 5
        for mask in board.row_mask:
            for color in range(5):
                if mask >> color & 1:
                    colors[color] += 1
        if not gray:  # pending complete lines: their wall cells are known
            for line in range(5):
                if board.line_count[line] == line + 1:
                    color = board.line_color[line]
                    column = (color + line) % 5
                    filled |= 1 << (line * 5 + column)
                    rows[line] += 1
                    columns[column] += 1
                    colors[color] += 1
        self.filled = filled
        self.rows = rows
        self.columns = columns
        self.colors = colors
        self.potential = _POTENTIAL[rounds]
        self.gains: dict[int, float] = {}

    def column_gain(self, line: int, column: int, color: int) -> float:
        """Points plus bonus progress for a tile of ``color`` at (line, column)."""
        potential = self.potential
        rows, columns, colors = self.rows, self.columns, self.colors
        return (
            _wall_points(self.filled, line, column)
            + ROW_BONUS * (potential[4 - rows[line]] - potential[5 - rows[line]])
            + COLUMN_BONUS * (potential[4 - columns[column]] - potential[5 - columns[column]])
            + COLOR_BONUS * (potential[4 - colors[color]] - potential[5 - colors[color]])
        )

    def best_column(self, line: int, color: int) -> tuple[float, int]:
        """Best gray-wall column for a tile of ``color`` on ``line``: (gain, column); (0, -1) if
        there is none."""
        best, where = 0.0, -1
        for column in _free_columns(self.board, line, color):
            gain = self.column_gain(line, column, color)
            if where < 0 or gain > best:
                best, where = gain, column
        return best, where

    def completion_gain(self, line: int, color: int) -> float:
        key = line * 5 + color
        gain = self.gains.get(key)
        if gain is None:
            if not self.gray:
                gain = self.column_gain(line, (color + line) % 5, color)
            else:
                gain, where = self.best_column(line, color)
                if where < 0:  # the whole line would fall to the floor
                    gain = -2.0 * (line + 1)
            self.gains[key] = gain
        return gain

    def take_value(self, color: int, count: int, marker: int, line: int) -> float:
        """Immediate worth of putting ``count`` tiles of ``color`` on ``line`` (``marker``: 1 if
        the starting player marker comes along)."""
        board = self.board
        floor = len(board.floor)
        if line == FLOOR:
            over = count
            gain = 0.0
        else:
            room = line + 1 - board.line_count[line]
            if count >= room:
                over = count - room
                gain = self.completion_gain(line, color)
            else:
                over = 0
                gain = PARTIAL_LINE_VALUE * count if self.potential[1] else 0.0
        after = floor + over + marker
        if after > FLOOR_SIZE:
            after = FLOOR_SIZE
        return gain - (_PENALTY[after] - _PENALTY[floor])


def move_values(state: State, player: int) -> list[tuple[float, Move]]:
    """Every legal move of ``player`` with its immediate (greedy) worth, best first."""
    moves = legal_moves(state, player)
    if state.phase == "tile":
        board = state.boards[player]
        view = _View(board, state.gray, _rounds_left(state, pending=True))
        color = board.line_color[board.tiling]
        scored = [(view.column_gain(m[0], m[1], color), m) for m in moves]
    else:
        view = _View(state.boards[player], state.gray, _rounds_left(state, pending=True))
        marker = 1 if state.marker_holder < 0 else 0
        scored = []
        for m in moves:
            source, color, line = m
            if source == CENTER:
                count, with_marker = state.center[color], marker
            else:
                count, with_marker = state.factories[source - 1][color], 0
            scored.append((view.take_value(color, count, with_marker, line), m))
    scored.sort(key=lambda item: -item[0])
    return scored


def _greedy(state: State, player: int, moves: list[Move], rng: random.Random) -> Move:
    scored = move_values(state, player)
    best = scored[0][0]
    ties = sorted((m for v, m in scored if v >= best - 1e-9), key=_move_key)
    return ties[rng.randrange(len(ties))] if len(ties) > 1 else ties[0]


def _move_key(move: Move) -> tuple[int, ...]:
    return (0, *move) if isinstance(move, Take) else (1, *move)


# -- search --------------------------------------------------------------------------------------

ROLLOUT_NOISE = 0.8
"""Spread (in points) of the random jitter that varies the rollout players' choices."""
CANDIDATES = 10
"""Most root moves the strong search considers (the best by immediate worth)."""


def _policy_take(state: State, rng: random.Random, noise: float) -> None:
    """The rollout players' move, in place: the best immediate worth, plus a little noise."""
    player = state.current
    board = state.boards[player]
    view = _View(board, state.gray, _rounds_left(state, pending=True))
    destinations = _destinations(board)
    marker = 1 if state.marker_holder < 0 else 0
    gauss = rng.gauss
    best = -1e9
    choice = (0, 0, FLOOR)
    seen: dict[int, tuple[float, int]] = {}
    center = state.center
    for source in range(len(state.factories) + 1):
        counts = center if source == CENTER else state.factories[source - 1]
        for color in range(5):
            count = counts[color]
            if not count:
                continue
            with_marker = marker if source == CENTER else 0
            key = (color * 32 + count) * 2 + with_marker
            cached = seen.get(key)
            if cached is None:
                top, where = -1e9, FLOOR
                for line in destinations[color]:
                    value = view.take_value(color, count, with_marker, line)
                    if value > top:
                        top, where = value, line
                cached = seen[key] = (top, where)
            value = cached[0] + gauss(0.0, noise)
            if value > best:
                best = value
                choice = (source, color, cached[1])
    _take(state, player, choice[0], choice[1], choice[2])


def _finish_tiling(state: State) -> None:
    """Gray wall: every pending tiling choice made greedily, in place."""
    while state.phase == "tile":
        for player, board in enumerate(state.boards):
            if board.tiling != TILING_DONE:
                line = board.tiling
                view = _View(board, True, _rounds_left(state, pending=True))
                _, column = view.best_column(line, board.line_color[line])
                _place(state, player, line, column)
                break


OWN_WEIGHT = 0.5
"""Extra weight of the player's own worth in a rollout's reward. A pure difference wins as often
against greedy but scores less, and two pure-difference searchers starve each other (games of
10-20 points); 0.5 keeps the bot building its own wall (about 72 against greedy's 33 in a short
test instead of 63 against 25)."""


def _reward(state: State, player: int) -> float:
    """A round's outcome for ``player``: worth minus the best opponent's worth, plus
    :data:`OWN_WEIGHT` times its own worth."""
    mine = evaluate(state, player)
    best_other = max(evaluate(state, p) for p in range(state.players) if p != player)
    reward = mine - best_other
    if state.phase == "over":
        reward += 10.0 if reward > 0 else (-10.0 if reward < 0 else 0.0)
    return reward + OWN_WEIGHT * mine


def _rollout(state: State, player: int, rng: random.Random) -> float:
    while state.phase == "take":
        _policy_take(state, rng, ROLLOUT_NOISE)
    if state.phase == "tile":
        _finish_tiling(state)
    return _reward(state, player)


def _search(
    state: State,
    player: int,
    moves: list[Move],
    rng: random.Random,
    budget: int,
    deadline: float,
) -> tuple[Move, int]:
    """Successive halving over the best candidate moves, each judged by rollouts to the end of
    the round. Returns the move and the number of rollouts run."""
    scored = move_values(state, player)
    candidates = [m for _, m in scored[:CANDIDATES]]
    totals = {m: 0.0 for m in candidates}
    counts = {m: 0 for m in candidates}
    alive = list(candidates)
    phases = max(1, (len(alive) - 1).bit_length())
    per_phase = budget / phases
    done = 0
    clock = time.perf_counter
    stopped = False
    while len(alive) > 1 and not stopped:
        each = max(1, int(per_phase / len(alive)))
        for _ in range(each):
            for move in alive:
                if done >= budget or clock() > deadline:
                    stopped = True
                    break
                copy = state.copy()
                _take(copy, player, move[0], move[1], move[2])
                totals[move] += _rollout(copy, player, rng)
                counts[move] += 1
                done += 1
            if stopped:
                break
        ranked = sorted(
            alive, key=lambda m: -(totals[m] / counts[m]) if counts[m] else float("inf")
        )
        if stopped:
            alive = ranked
            break
        alive = ranked[: max(1, (len(ranked) + 1) // 2)]
        if done >= budget:
            break
    best = alive[0]
    if not counts[best]:
        return scored[0][1], done
    return best, done
