"""The factory offer and the deal, changing a state in place, and random play.

These functions trust their input (:mod:`azul.rules` checks a move or a deal before it gets here)
and change the state they are given: the public functions of :mod:`azul` call them on a copy, and
the computer players on their own copies, to keep playouts fast (no validation, no copy per step).
"""

from __future__ import annotations

import random
from collections.abc import Iterable

from .notation import CENTER, FLOOR, Take
from .state import ABSENT_COLORS, FLOOR_SIZE, MARKER, TILES_PER_FACTORY, TILING_DONE, Board, State
from .tiling import finish_game, free_columns, place, start_tiling


def draw(state: State, rng: random.Random) -> list[list[int]]:
    """Random tiles per factory, drawn as the rulebook draws them (bag first, then the lid)."""
    need = TILES_PER_FACTORY * len(state.factories)
    bag = [c for c in range(5) for _ in range(state.bag[c])]
    if len(bag) >= need:
        drawn = rng.sample(bag, need)
    else:
        rng.shuffle(bag)
        lid = [c for c in range(5) for _ in range(state.lid[c])]
        drawn = bag + rng.sample(lid, min(need - len(bag), len(lid)))
    return [drawn[i : i + TILES_PER_FACTORY] for i in range(0, need, TILES_PER_FACTORY)]


def tally(tiles: Iterable[int]) -> list[int]:
    """Counts per colour of ``tiles`` (colour indices)."""
    counts = [0] * 5
    for c in tiles:
        counts[c] += 1
    return counts


def apply_deal(state: State, counts: list[list[int]]) -> None:
    """Fill the factories with ``counts`` (per factory, per colour) and start the round, in place.

    When the deal draws more tiles than the bag holds, the lid was poured into the bag mid-fill
    (rulebook, "Preparing the next round").
    """
    drawn = [sum(f[c] for f in counts) for c in range(5)]
    bag, lid = state.bag, state.lid
    if sum(drawn) > sum(bag):  # the bag ran empty mid-fill: the lid was poured in
        for c in range(5):
            bag[c] += lid[c]
            lid[c] = 0
    for c in range(5):
        bag[c] -= drawn[c]
    state.factories = [f[:] for f in counts]
    state.factories_left = sum(1 for f in counts if any(f))
    state.round += 1
    state.marker_holder = -1  # the starting player places the marker in the center
    state.current = state.first_player
    if state.factories_left == 0:
        finish_game(state)  # nothing left to play with: see azul.rules
    else:
        state.phase = "take"


def _destinations(board: Board) -> list[list[int]]:
    """For each colour, the destinations (pattern lines, then the floor) it may go to."""
    line_color, line_count, row_mask = board.line_color, board.line_count, board.row_mask
    destinations: list[list[int]] = [[], [], [], [], []]
    for line in range(5):
        color = line_color[line]
        if color < 0:
            for c in ABSENT_COLORS[row_mask[line]]:
                destinations[c].append(line)
        elif line_count[line] <= line:
            destinations[color].append(line)
    for lines in destinations:
        lines.append(FLOOR)
    return destinations


def take_moves(state: State, player: int) -> list[Take]:
    """Every legal factory offer of ``player`` (the one to take) in ``state``."""
    destinations = _destinations(state.boards[player])
    moves: list[Take] = []
    new = tuple.__new__  # a Take without NamedTuple's argument handling: this is the hot path
    center = state.center
    for c in range(5):
        if center[c]:
            moves += [new(Take, (CENTER, c, line)) for line in destinations[c]]
    for source, factory in enumerate(state.factories, 1):
        for c in range(5):
            if factory[c]:
                moves += [new(Take, (source, c, line)) for line in destinations[c]]
    return moves


def random_take(state: State, rng: random.Random) -> None:
    """A uniformly random legal take, in place, without building the list of moves."""
    player = state.current
    destinations = _destinations(state.boards[player])
    sources: list[list[int]] = [[], [], [], [], []]  # per colour, the sources that offer it
    center = state.center
    for c in range(5):
        if center[c]:
            sources[c].append(CENTER)
    for source, factory in enumerate(state.factories, 1):
        if factory[0] or factory[1] or factory[2] or factory[3] or factory[4]:
            for c in range(5):
                if factory[c]:
                    sources[c].append(source)
    total = 0
    for c in range(5):
        total += len(sources[c]) * len(destinations[c])
    pick = int(rng.random() * total)
    for c in range(5):
        lines = destinations[c]
        span = len(sources[c]) * len(lines)
        if pick < span:
            source_index, line_index = divmod(pick, len(lines))
            take(state, player, sources[c][source_index], c, lines[line_index])
            return
        pick -= span


def take(state: State, player: int, source: int, color: int, line: int) -> None:
    """Factory offer, in place: take, place on a pattern line, overflow to floor and lid."""
    board = state.boards[player]
    floor = board.floor
    if source == CENTER:
        center = state.center
        count = center[color]
        center[color] = 0
        if state.marker_holder < 0:
            state.marker_holder = player
            if len(floor) < FLOOR_SIZE:
                floor.append(MARKER)
    else:
        factory = state.factories[source - 1]
        count = factory[color]
        factory[color] = 0
        center = state.center
        for c in range(5):
            if factory[c]:
                center[c] += factory[c]
                factory[c] = 0
        state.factories_left -= 1
    if line != FLOOR:
        room = line + 1 - board.line_count[line]
        board.line_color[line] = color
        if count <= room:
            board.line_count[line] += count
            count = 0
        else:
            board.line_count[line] = line + 1
            count -= room
    if count:
        room = FLOOR_SIZE - len(floor)
        if count <= room:
            floor += [color] * count
        else:
            floor += [color] * room
            state.lid[color] += count - room  # a full floor line sends the rest to the lid
    if state.factories_left == 0 and not any(state.center):
        start_tiling(state)
    else:
        state.current = player + 1 if player + 1 < state.players else 0


def random_step(state: State, rng: random.Random) -> None:
    """One random chance event or move, in place: a deal, a take, or a gray-wall placement."""
    phase = state.phase
    if phase == "take":
        random_take(state, rng)
    elif phase == "deal":
        apply_deal(state, [tally(f) for f in draw(state, rng)])
    elif phase == "tile":
        for player, board in enumerate(state.boards):
            if board.tiling != TILING_DONE:
                columns = free_columns(board, board.tiling, board.line_color[board.tiling])
                place(state, player, board.tiling, columns[rng.randrange(len(columns))])
                return
