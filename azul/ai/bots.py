"""Computer players: ``random``, ``greedy``, ``medium``, ``strong`` and ``master``.

>>> import random
>>> from azul import deal, new_game
>>> from azul.ai.bots import choose_move
>>> state = deal(new_game(2), rng=random.Random(1))
>>> move = choose_move(state, 0, "greedy")
>>> move = choose_move(state, 0, "strong", seed=7, iterations=50)

A bot sees only what a player sees: the current state. Within a round Azul has no hidden
information (the factories are face up); the bag holds public counts, so the search may sample
the next round's deal from it (never a real future deal, which does not exist yet).

``medium``, ``strong`` and ``master`` are one Monte Carlo tree search (:mod:`.search`) with
different budgets and their level's weights (``master``'s rollouts all go on through a sampled
next round: :attr:`Level.weights`). A budget is either a number of ``iterations``
(deterministic for a ``seed``: the same move every time) or ``budget`` seconds of wall clock
(the search uses the whole of it, less a safety margin, so the move may then depend on the
machine's speed). ``medium`` runs a fixed number of iterations; ``strong`` and ``master`` think
for a time (1 and 4 seconds by default). :func:`choose_move_with_stats` also returns what the
search did.

``greedy`` (and every level's gray-wall tiling) takes the move with the best immediate worth
(:func:`move_values`), judged by the same evaluator as the search's (:mod:`.evaluation`) with
greedy's own weights. No level changes the state it is given.
"""

from __future__ import annotations

import functools
import random
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from azul.notation import CENTER, FLOOR, Move, Take
from azul.rules import legal_moves
from azul.state import Board, State
from azul.tiling import free_columns

from .evaluation import (
    DEFAULT,
    RoundEndTables,
    Weights,
    bonus_potential,
    load_round_end_tables,
    placement_gain,
    placement_worths,
    rounds_left,
    tiles_of_color,
    wall_after_tiling,
)
from .search import search
from .tree import SearchStats, deadline_for

__all__ = [
    "LEVELS",
    "Level",
    "SearchStats",
    "choose_move",
    "choose_move_with_stats",
    "level_weights",
    "move_values",
    "shipped_tables",
]

WEIGHTS_DIR = Path(__file__).with_name("weights")
"""The weights that ship with the computer players (each file beside a record of how it was
made and what it measured)."""


SHIPPED = {(2, "colored"): "roundend-2p-residual.json"}
"""The file in :data:`WEIGHTS_DIR` a level with ``fitted`` plays each kind of game by (players,
wall), where one measured stronger than the hand-written evaluation (BOTS.md, "The levels play
by it"); where none is named, ``roundend-{players}p[-gray].json`` if it exists. The 2-player
colored game's: the fitted tables (``roundend-2p.json``, repeated in it), the network that
corrects their margin, and the chance-of-winning term (its ``search``)."""


@functools.cache
def shipped_tables(players: int, variant: str) -> RoundEndTables | None:
    """The fitted round-end tables shipped for this player count and wall (:data:`SHIPPED`,
    else ``weights/roundend-{players}p.json``, ``-gray`` for the gray wall), or None where none
    are: a level that asks for them then keeps the hand-written evaluation."""
    suffix = "" if variant == "colored" else f"-{variant}"
    path = WEIGHTS_DIR / SHIPPED.get((players, variant), f"roundend-{players}p{suffix}.json")
    return load_round_end_tables(str(path)) if path.is_file() else None


@dataclass(frozen=True)
class Level:
    """A bot level as players see it: its name, a title and a one-paragraph description, and
    its default search budget: ``iterations`` (fixed, deterministic) or ``budget`` (seconds),
    its search's ``weights``, and whether it judges where its rollouts stop by the fitted
    tables shipped for the game's player count and wall (``fitted``: :func:`level_weights`)."""

    name: str
    title: str
    description: str
    iterations: int | None = None
    budget: float | None = None
    weights: Weights = DEFAULT
    fitted: bool = False

    @property
    def searches(self) -> bool:
        return self.iterations is not None or self.budget is not None


@functools.cache
def _weights_for(level: str, players: int, variant: str, tables: bool) -> Weights:
    spec = LEVELS[level]
    shipped = shipped_tables(players, variant) if tables else None
    if shipped is None:
        return spec.weights
    knobs: dict[str, Any] = dict(shipped.search)  # Weights fields (checked when read)
    return replace(spec.weights, fitted=shipped, **knobs)


def level_weights(level: str, state: State, *, tables: bool | None = None) -> Weights:
    """The search weights ``level`` plays ``state``'s game with: its own, with the shipped
    round-end tables for the game's player count and wall (and the search knobs they are
    played with) when the level uses them and some ship (one object per level and kind of
    game: its cached tables are built once). ``tables`` True or False overrides the level's
    choice (to measure the tables; False: the level as it plays where none ship)."""
    use = LEVELS[level].fitted if tables is None else tables
    return _weights_for(level, state.players, state.variant, use)


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
            "A lighter version of the strong player: the same look-ahead over the rest of the"
            " round, with every player answering sensibly, but a few hundred simulated"
            " continuations per move instead of thousands. It sees the traps greedy falls into"
            " but misses deeper plans. It answers in a fraction of a second.",
            iterations=300,
        ),
        Level(
            "strong",
            "Strong",
            "A tree search over the rest of the round: it tries its promising moves, the"
            " opponents' best answers to them and its own replies, playing each line out to"
            " the end of the round thousands of times, and judges where each ends: points,"
            " floor penalties, how close each row, column and colour bonus is, neighbouring"
            " tiles on the wall, unfinished pattern lines and who starts the next round (in"
            " 2-player games on the colored wall, weighed as learned from its own games, with"
            " its chance of winning). It denies opponents the tiles they need and avoids being"
            " left with a heap of tiles late in a round. It thinks for about one second per"
            " move.",
            budget=1.0,
            # 2-player colored games: the shipped tables, their margin's correction and the
            # file's search knobs (the chance of winning, own_weight 1.0) win 83% against the
            # hand-written evaluation near the site's budget (BOTS.md, "The search's knobs for
            # the tables"); other games keep the hand-written one.
            fitted=True,
        ),
        Level(
            "master",
            "Master",
            "The strong player given four times as long to think (about four seconds per"
            " move), which it spends playing every simulated continuation on through a"
            " possible next round, from the first move of a round to the last: it weighs what"
            " each move leaves itself and its opponents for the round after. For players who"
            " beat the strong level and want a harder game.",
            budget=4.0,
            # Four times the iterations alone gain nothing (strong@4000 against strong@16000
            # is even); the extension into the next round, which strong can afford only late in
            # a round, is what the extra time buys (BOTS.md, "Master"). 100: from any
            # position (a 4-player round offers 36 tiles).
            weights=Weights(extend_below=100),
            # As strong's (66.2% against the hand-written evaluation at equal CPU).
            fitted=True,
        ),
    )
}


def choose_move(
    state: State,
    player: int | None = None,
    level: str = "strong",
    *,
    seed: int = 0,
    budget: float | None = None,
    iterations: int | None = None,
    time_cap: float | None = None,
    rollouts: int | None = None,
    stats: dict[str, Any] | None = None,
) -> Move:
    """A legal move for ``player`` (default: the only player to act) at ``level``.

    ``budget`` (seconds) or ``iterations`` override the level's search budget; with both, the
    search stops at whichever comes first. ``rollouts`` is another name for ``iterations`` and
    ``time_cap`` for ``budget``. ``stats``, if given, receives ``rollouts`` (search iterations,
    each ending in one rollout), ``seconds`` (wall clock) and ``cpu_seconds`` (this process's CPU
    time: on a busy machine the wall clock can exceed the budget when the process is not
    scheduled, which no check inside the search can prevent).
    """
    move, found = choose_move_with_stats(
        state,
        player,
        level,
        seed=seed,
        budget=budget if budget is not None else time_cap,
        iterations=iterations if iterations is not None else rollouts,
    )
    if stats is not None:
        stats["rollouts"] = found.iterations
        stats["seconds"] = found.seconds
        stats["cpu_seconds"] = found.cpu_seconds
    return move


def choose_move_with_stats(
    state: State,
    player: int | None = None,
    level: str = "strong",
    *,
    seed: int = 0,
    budget: float | None = None,
    iterations: int | None = None,
    weights: Weights | None = None,
) -> tuple[Move, SearchStats]:
    """:func:`choose_move` and a :class:`~azul.ai.tree.SearchStats`: search iterations
    (rollouts), seconds, CPU seconds, the budget used, and the root moves the search tried with
    their mean reward (points for the mover, against the best opponent) and visits. ``weights``
    (for tuning) replaces the level's search weights."""
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
    spec = LEVELS[level]
    stats = SearchStats()
    if len(moves) == 1:
        move = moves[0]
    elif level == "random":
        move = moves[rng.randrange(len(moves))]
    elif not spec.searches or state.phase == "tile":
        move = _greedy(state, player, moves, rng)
    else:
        if iterations is None and budget is None:
            iterations, budget = spec.iterations, spec.budget
        stats.budget = budget
        deadline = None if budget is None else deadline_for(start, budget)
        move = search(
            state,
            player,
            rng,
            iterations=iterations,
            deadline=deadline,
            stats=stats,
            weights=level_weights(level, state) if weights is None else weights,
        )
    stats.move = move
    stats.seconds = time.perf_counter() - start
    stats.cpu_seconds = time.process_time() - cpu_start
    return move, stats


# -- greedy's immediate worths ---------------------------------------------------------------------

PARTIAL_LINE_VALUE = 0.5
"""Worth of each tile waiting on an unfinished pattern line when a round ends."""
CHANCE = 0.6
"""Rough chance of adding each further tile a bonus still needs before the game ends."""

_POTENTIAL = bonus_potential(CHANCE)


class _View:
    """One board as greedy sees it mid-round: complete pattern lines already tiled (where the
    colored wall says), with the completion gains found so far."""

    __slots__ = ("board", "gray", "filled", "colors", "potential", "partial", "gains")

    def __init__(self, board: Board, gray: bool, rounds: int) -> None:
        self.board = board
        self.gray = gray
        self.filled = filled = wall_after_tiling(board, gray)
        self.colors = [tiles_of_color(board, filled, color, gray) for color in range(5)]
        self.potential = _POTENTIAL[rounds]
        self.partial = PARTIAL_LINE_VALUE if self.potential[1] else 0.0
        self.gains: dict[int, float] = {}

    def column_gain(self, line: int, column: int, color: int) -> float:
        """Points plus bonus progress for a tile of ``color`` at (line, column)."""
        return placement_gain(self.filled, line, column, self.colors[color], self.potential)

    def best_column(self, line: int, color: int) -> tuple[float, int]:
        """Best gray-wall column for a tile of ``color`` on ``line``: (gain, column); (0, -1) if
        there is none."""
        best, where = 0.0, -1
        for column in free_columns(self.board, line, color):
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
        floor = len(self.board.floor)
        if line == FLOOR:
            return placement_worths((), count, floor, marker, self.partial)[0][0]
        room = line + 1 - self.board.line_count[line]
        gain = self.completion_gain(line, color) if count >= room else 0.0
        return placement_worths(((line, room, gain),), count, floor, marker, self.partial)[0][0]


def move_values(
    state: State, player: int, moves: list[Move] | None = None
) -> list[tuple[float, Move]]:
    """Every legal move of ``player`` (``moves``, if the caller has them) with its immediate
    (greedy) worth, best first."""
    if moves is None:
        moves = legal_moves(state, player)
    board = state.boards[player]
    view = _View(board, state.gray, rounds_left(state))
    scored: list[tuple[float, Move]]
    if state.phase == "tile":
        color = board.line_color[board.tiling]
        scored = [(view.column_gain(m[0], m[1], color), m) for m in moves]
    else:
        marker = 1 if state.marker_holder < 0 else 0
        scored = []
        for m in moves:
            if not isinstance(m, Take):
                continue  # the factory offer's moves are all takes
            source, color, line = m
            if source == CENTER:
                count, with_marker = state.center[color], marker
            else:
                count, with_marker = state.factories[source - 1][color], 0
            scored.append((view.take_value(color, count, with_marker, line), m))
    scored.sort(key=lambda item: -item[0])
    return scored


def _greedy(state: State, player: int, moves: list[Move], rng: random.Random) -> Move:
    scored = move_values(state, player, moves)
    best = scored[0][0]
    ties = sorted((m for v, m in scored if v >= best - 1e-9), key=_move_key)
    return ties[rng.randrange(len(ties))] if len(ties) > 1 else ties[0]


def _move_key(move: Move) -> tuple[int, ...]:
    return (0, *move) if isinstance(move, Take) else (1, *move)
