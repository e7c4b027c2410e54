"""The rules of Azul: dealing, taking, wall tiling, scoring and the end of the game.

Every public function leaves the state it is given unchanged and returns a new one. The functions
whose names start with an underscore change a state in place; the computer players use them on
their own copies to keep playouts fast.

Readings of the rulebook where it leaves a case open (each has a test):

- *Taking from the center first with a full floor line*: the player still takes the starting player
  marker and starts the next round, but it occupies no floor space (there is none) and costs no
  further points: the floor line's seven spaces are the most a player can lose in a round. Board
  Game Arena plays it the same way.
- *Nobody takes from the center in a round* (every factory was taken whole): the marker stays in
  the center and the same player starts the next round.
- *A deal that finds no tile at all* (bag and lid both empty, every tile on walls and pattern
  lines): no player could ever move again, so the game ends after that round with the end-of-game
  bonuses, as if a row had been completed.
- *Nobody can ever complete a row*: on the gray wall a row can become impossible to finish (its
  missing colours already stand in the columns of its empty spaces), and on either wall the
  tiles a row needs can all end up on walls or in pattern lines that can never fill. The rulebook
  ends the game only when a row is completed, so such a game would never end: it ends after the
  wall-tiling phase in which completing a row has become impossible for every player, with the
  end-of-game bonuses. The test is an over-estimate (see ``_row_still_possible``), so a game is
  never ended while any player could still complete a row.
- *Deal entries* record each factory's tiles; the order in which tiles were drawn does not matter.
  When the bag runs out mid-fill, every tile still in the bag is drawn before the lid is poured in,
  so a recorded deal is valid only if it holds the whole bag and the rest comes from the lid.
- *Gray wall*: each player tiles pattern lines top to bottom; a line whose tile has exactly one
  legal space is placed there without asking, a line with none goes to the floor line whole, and
  a line with a choice waits for that player's ``wall <line> <column>`` move. Players tile
  independently, so ``to_move`` lists everyone with a choice pending.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from .moves import (
    CENTER,
    COLORS,
    FLOOR,
    IllegalMove,
    Move,
    Place,
    Take,
    color_index,
    parse_move,
)
from .state import (
    FACTORY_COUNT,
    FLOOR_PENALTY_TOTAL,
    FLOOR_SIZE,
    MARKER,
    TILES_PER_FACTORY,
    TILING_DONE,
    VARIANTS,
    Board,
    State,
)

ROW_BONUS = 2
COLUMN_BONUS = 7
COLOR_BONUS = 10

LogEntry = Mapping[str, Any]
"""A log entry: ``{"kind": "deal", "tiles": [[colour, ...], ...]}`` (one list per factory) or
``{"kind": "move", "player": 0, "move": "F3 blue 2"}``."""


# -- starting and dealing ----------------------------------------------------------------------


def new_game(players: int, variant: str = "colored", first_player: int = 0) -> State:
    """A game for 2-4 players with all 100 tiles in the bag, waiting for the first deal."""
    if type(players) is not int or players not in FACTORY_COUNT:
        raise ValueError(f"Azul is for 2, 3 or 4 players, not {players!r}")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be 'colored' or 'gray', not {variant!r}")
    if type(first_player) is not int or not 0 <= first_player < players:
        raise ValueError(f"first_player must be 0-{players - 1}, not {first_player!r}")
    return State(players, variant, first_player)


def draw_tiles(state: State, rng: random.Random) -> list[list[str]]:
    """Draw this round's factory fill at random, without applying it: one colour list per factory.

    Pass the result to :func:`deal` (and keep it as the round's log entry).
    """
    _require_phase(state, "deal")
    return [[COLORS[c] for c in f] for f in _draw(state, rng)]


def deal(
    state: State, rng: random.Random | None = None, tiles: list[list[str]] | None = None
) -> State:
    """Fill the factories for the next round, at random with ``rng`` or exactly as ``tiles`` says.

    Each factory gets 4 tiles from the bag; when the bag runs empty mid-fill the lid is poured
    into it, and when both are empty the remaining factories stay short (rulebook, "Preparing the
    next round").
    """
    _require_phase(state, "deal")
    if (rng is None) == (tiles is None):
        raise ValueError("deal needs exactly one of rng or tiles")
    if rng is not None:
        counts = [_tally(f) for f in _draw(state, rng)]
    else:
        counts = _parse_deal(state, tiles)
        _check_deal(state, counts)
    new = state.copy()
    _apply_deal(new, counts)
    return new


def _draw(state: State, rng: random.Random) -> list[list[int]]:
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


def _tally(tiles: Iterable[int]) -> list[int]:
    counts = [0] * 5
    for c in tiles:
        counts[c] += 1
    return counts


def _parse_deal(state: State, tiles: Any) -> list[list[int]]:
    factories = len(state.factories)
    if not isinstance(tiles, list | tuple) or len(tiles) != factories:
        raise IllegalMove(
            "a deal lists the tiles of each of the %(factories)s factories", factories=factories
        )
    counts = []
    for i, factory in enumerate(tiles, 1):
        if not isinstance(factory, list | tuple):
            raise IllegalMove(
                "factory %(factory)s: a deal lists each factory's tiles as colour names", factory=i
            )
        try:
            counts.append(_tally(color_index(name) for name in factory))
        except ValueError as exc:
            raise IllegalMove("factory %(factory)s: %(reason)s", factory=i, reason=exc) from None
    return counts


def _check_deal(state: State, counts: list[list[int]]) -> None:
    bag_total, lid_total = sum(state.bag), sum(state.lid)
    drawn_total = min(TILES_PER_FACTORY * len(counts), bag_total + lid_total)
    for i, factory in enumerate(counts):
        expected = max(0, min(TILES_PER_FACTORY, drawn_total - TILES_PER_FACTORY * i))
        if sum(factory) != expected:
            raise IllegalMove(
                "factory %(factory)s must get %(count)s tiles, not %(got)s"
                " (%(bag)s in the bag, %(lid)s in the lid)",
                factory=i + 1,
                count=expected,
                got=sum(factory),
                bag=bag_total,
                lid=lid_total,
            )
    drawn = [sum(f[c] for f in counts) for c in range(5)]
    for c, name in enumerate(COLORS):
        if drawn_total <= bag_total:
            if drawn[c] > state.bag[c]:
                raise IllegalMove(
                    "the deal draws %(drawn)s %(color)s tiles but the bag holds %(held)s",
                    drawn=drawn[c],
                    color=name,
                    held=state.bag[c],
                )
        elif drawn[c] < state.bag[c]:
            raise IllegalMove(
                "the bag runs empty during this deal, so all %(held)s %(color)s tiles in it"
                " are drawn before the lid is poured in; the deal draws %(drawn)s",
                held=state.bag[c],
                color=name,
                drawn=drawn[c],
            )
        elif drawn[c] - state.bag[c] > state.lid[c]:
            raise IllegalMove(
                "the deal draws %(drawn)s %(color)s tiles but the bag and lid hold %(held)s",
                drawn=drawn[c],
                color=name,
                held=state.bag[c] + state.lid[c],
            )


def _apply_deal(state: State, counts: list[list[int]]) -> None:
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
        _finish_game(state)  # nothing left to play with: see the module docstring
    else:
        state.phase = "take"


# -- moves ---------------------------------------------------------------------------------------


def legal_moves(state: State, player: int | None = None) -> list[Move]:
    """Every legal move for ``player`` (default: the one to move); empty if they cannot act now."""
    if player is not None:
        _check_player_index(state, player)
    if state.phase == "take":
        if player is not None and player != state.current:
            return []
        return _take_moves(state, state.current)
    if state.phase == "tile":
        waiting = state.to_move
        if player is None:
            if len(waiting) != 1:
                raise ValueError(f"players {waiting} are each choosing wall spaces: name one")
            player = waiting[0]
        if player not in waiting:
            return []
        return _place_moves(state.boards[player], state.boards[player].tiling)
    return []


_ABSENT_COLORS = tuple(tuple(c for c in range(5) if not mask >> c & 1) for mask in range(32))
"""For a wall row's colour mask, the colours an empty pattern line of that row may take."""


def _destinations(board: Board) -> list[list[int]]:
    """For each colour, the destinations (pattern lines, then the floor) it may go to."""
    line_color, line_count, row_mask = board.line_color, board.line_count, board.row_mask
    destinations: list[list[int]] = [[], [], [], [], []]
    for line in range(5):
        color = line_color[line]
        if color < 0:
            for c in _ABSENT_COLORS[row_mask[line]]:
                destinations[c].append(line)
        elif line_count[line] <= line:
            destinations[color].append(line)
    for lines in destinations:
        lines.append(FLOOR)
    return destinations


def _take_moves(state: State, player: int) -> list[Move]:
    destinations = _destinations(state.boards[player])
    moves: list[Move] = []
    new = tuple.__new__
    center = state.center
    for c in range(5):
        if center[c]:
            moves += [new(Take, (CENTER, c, line)) for line in destinations[c]]
    for source, factory in enumerate(state.factories, 1):
        for c in range(5):
            if factory[c]:
                moves += [new(Take, (source, c, line)) for line in destinations[c]]
    return moves


def _random_take(state: State, rng: random.Random) -> None:
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
            _take(state, player, sources[c][source_index], c, lines[line_index])
            return
        pick -= span


def _free_columns(board: Board, line: int, color: int) -> list[int]:
    wall, col_mask, base = board.wall, board.col_mask, line * 5
    return [col for col in range(5) if wall[base + col] < 0 and not col_mask[col] >> color & 1]


def _place_moves(board: Board, line: int) -> list[Move]:
    return [Place(line, col) for col in _free_columns(board, line, board.line_color[line])]


def play(state: State, move: Move | str, player: int | None = None) -> State:
    """Apply ``move`` (a move or its notation) for ``player`` (default: the one to move).

    Raises :class:`IllegalMove` with a reason a player can read; ``state`` is never changed.
    """
    if isinstance(move, str):
        move = parse_move(move)
    player = _actor(state, move, player)
    if isinstance(move, Take):
        _check_take(state, player, move)
        new = state.copy()
        _take(new, player, move[0], move[1], move[2])
    else:
        _check_place(state, player, move)
        new = state.copy()
        _place(new, player, move[0], move[1])
    return new


def _require_phase(state: State, phase: str) -> None:
    if not isinstance(state, State):
        raise TypeError(f"expected a State, not {type(state).__name__}")
    if state.phase != phase:
        if state.phase == "over":
            raise IllegalMove("the game is over")
        if phase == "deal":
            raise IllegalMove("the factories are already filled for this round")
        raise IllegalMove(
            "this is the %(phase)s phase, not the %(wanted_phase)s phase",
            phase=state.phase,
            wanted_phase=phase,
        )


def _check_player_index(state: State, player: Any) -> None:
    if type(player) is not int or not 0 <= player < state.players:
        raise IllegalMove(
            "there is no player %(player)s in a %(players)s-player game",
            player=repr(player),
            players=state.players,
        )


def _actor(state: State, move: Any, player: int | None) -> int:
    """The player making ``move`` now, or :class:`IllegalMove` saying why nobody can."""
    if not isinstance(state, State):
        raise TypeError(f"expected a State, not {type(state).__name__}")
    if player is not None:
        _check_player_index(state, player)
    if state.phase == "over":
        raise IllegalMove("the game is over")
    if state.phase == "deal":
        raise IllegalMove("the factories have not been filled for this round yet")
    if state.phase == "take":
        if not isinstance(move, Take):
            if isinstance(move, Place):
                raise IllegalMove(
                    "it is the factory offer: take tiles with a move like 'F3 blue 2'"
                )
            raise IllegalMove("not a move: %(move)s", move=repr(move))
        if player is not None and player != state.current:
            raise IllegalMove(
                "it is player %(current)s's turn, not player %(player)s's",
                current=state.current,
                player=player,
            )
        return state.current
    if not isinstance(move, Place):
        raise IllegalMove(
            "the wall-tiling phase is under way: choose a wall space with 'wall <line> <column>'"
        )
    waiting = state.to_move
    if player is None:
        if len(waiting) != 1:
            raise IllegalMove(
                "players %(players)s are each choosing wall spaces: say which one moves",
                players=waiting,
            )
        return waiting[0]
    if player not in waiting:
        raise IllegalMove("player %(player)s has no wall space to choose now", player=player)
    return player


def _check_take(state: State, player: int, move: Take) -> None:
    source, color, line = move
    if type(color) is not int or not 0 <= color < 5:
        raise IllegalMove("unknown colour %(value)s", value=repr(color))
    if type(line) is not int or not 0 <= line <= FLOOR:
        raise IllegalMove(
            "unknown destination %(value)s: pattern lines 1-5 or the floor", value=repr(line)
        )
    name = COLORS[color]
    factories = len(state.factories)
    if type(source) is not int or not 0 <= source <= factories:
        raise IllegalMove(
            "there is no factory %(source)s:"
            " a %(players)s-player game has factories 1-%(factories)s",
            source=source,
            players=state.players,
            factories=factories,
        )
    if source == CENTER:
        if not state.center[color]:
            raise IllegalMove("the center has no %(color)s tiles", color=name)
    else:
        factory = state.factories[source - 1]
        if not any(factory):
            raise IllegalMove("factory %(factory)s is empty", factory=source)
        if not factory[color]:
            raise IllegalMove(
                "factory %(factory)s has no %(color)s tiles", factory=source, color=name
            )
    if line == FLOOR:
        return
    board = state.boards[player]
    held = board.line_color[line]
    if board.line_count[line] == line + 1:
        raise IllegalMove("pattern line %(line)s is already full", line=line + 1)
    if held >= 0 and held != color:
        raise IllegalMove(
            "pattern line %(line)s already holds %(color)s", line=line + 1, color=COLORS[held]
        )
    if board.row_mask[line] >> color & 1:
        raise IllegalMove(
            "the wall's row %(line)s already has %(color)s", line=line + 1, color=name
        )


def _check_place(state: State, player: int, move: Place) -> None:
    line, column = move
    board = state.boards[player]
    if type(line) is not int or not 0 <= line < 5:
        raise IllegalMove("there is no pattern line %(value)s: lines are 1-5", value=repr(line))
    if type(column) is not int or not 0 <= column < 5:
        raise IllegalMove("there is no wall column %(value)s: columns are 1-5", value=repr(column))
    if line != board.tiling:
        raise IllegalMove(
            "pattern line %(line)s is the one to tile now, not %(chosen)s",
            line=board.tiling + 1,
            chosen=line + 1,
        )
    color = board.line_color[line]
    if board.wall[line * 5 + column] >= 0:
        raise IllegalMove(
            "the wall's row %(line)s already has a tile in column %(column)s",
            line=line + 1,
            column=column + 1,
        )
    if board.col_mask[column] >> color & 1:
        raise IllegalMove(
            "the wall's column %(column)s already has %(color)s",
            column=column + 1,
            color=COLORS[color],
        )


def _take(state: State, player: int, source: int, color: int, line: int) -> None:
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
        _start_tiling(state)
    else:
        state.current = player + 1 if player + 1 < state.players else 0


def _place(state: State, player: int, line: int, column: int) -> None:
    """Gray-wall tiling decision, in place."""
    board = state.boards[player]
    _tile_line(state, board, line, column)
    board.tiling = line + 1
    if _continue_tiling(state, board) and all(b.tiling == TILING_DONE for b in state.boards):
        _end_round(state)


# -- wall tiling, scoring, end of game -----------------------------------------------------------


def _start_tiling(state: State) -> None:
    done = True
    for board in state.boards:
        board.tiling = 0
        if not _continue_tiling(state, board):
            done = False
    if done:
        _end_round(state)
    else:
        state.phase = "tile"


def _continue_tiling(state: State, board: Board) -> bool:
    """Tile ``board``'s complete pattern lines from ``board.tiling`` down, until a choice is due.

    Returns True once the board is done (floor line scored and cleared).
    """
    line_count, line_color = board.line_count, board.line_color
    for line in range(board.tiling, 5):
        if line_count[line] != line + 1:
            continue
        color = line_color[line]
        if not state.gray:
            _tile_line(state, board, line, (color + line) % 5)
            continue
        free = _free_columns(board, line, color)
        if len(free) == 1:
            _tile_line(state, board, line, free[0])
        elif not free:  # the gray wall's special case: the whole line falls to the floor
            room = FLOOR_SIZE - len(board.floor)
            fallen = line + 1
            board.floor += [color] * min(room, fallen)
            if fallen > room:
                state.lid[color] += fallen - room
            line_count[line] = 0
            line_color[line] = -1
        else:
            board.tiling = line
            return False
    board.tiling = TILING_DONE
    floor = board.floor
    if floor:
        board.score = max(0, board.score - FLOOR_PENALTY_TOTAL[len(floor)])
        lid = state.lid
        for tile in floor:
            if tile != MARKER:  # the marker goes back in front of its player, not in the lid
                lid[tile] += 1
        board.floor = []
    return True


def _tile_line(state: State, board: Board, line: int, column: int) -> None:
    """Move a complete line's rightmost tile to the wall, score it, and send the rest to the lid."""
    color = board.line_color[line]
    board.score += _place_tile(board, line, column, color)
    state.lid[color] += line
    board.line_count[line] = 0
    board.line_color[line] = -1


def _place_tile(board: Board, row: int, column: int, color: int) -> int:
    """Put a tile on the wall and return the points it scores (rulebook, "Scoring")."""
    cell = row * 5 + column
    board.wall[cell] = color
    board.filled |= 1 << cell
    board.row_mask[row] |= 1 << color
    board.col_mask[column] |= 1 << color
    return _wall_points(board.filled, row, column)


def _wall_points(filled: int, row: int, column: int) -> int:
    """Points for the tile at (row, column) of a wall whose tiles are the bits of ``filled``
    (bit ``row * 5 + column``): 1 when it has no neighbour, else the tiles linked to it
    horizontally (if any) plus those linked vertically (if any), itself counted in each."""
    base = row * 5
    horizontal = 1
    x = column - 1
    while x >= 0 and filled >> (base + x) & 1:
        horizontal += 1
        x -= 1
    x = column + 1
    while x < 5 and filled >> (base + x) & 1:
        horizontal += 1
        x += 1
    vertical = 1
    y = row - 1
    while y >= 0 and filled >> (y * 5 + column) & 1:
        vertical += 1
        y -= 1
    y = row + 1
    while y < 5 and filled >> (y * 5 + column) & 1:
        vertical += 1
        y += 1
    if horizontal == 1:
        return vertical
    if vertical == 1:
        return horizontal
    return horizontal + vertical


def _end_round(state: State) -> None:
    if any(mask == 0b11111 for board in state.boards for mask in board.row_mask):
        _finish_game(state)
        return
    if not _row_still_possible(state):
        _finish_game(state)  # nobody can ever complete a row: see the module docstring
        return
    if state.marker_holder >= 0:
        state.first_player = state.marker_holder
    state.current = state.first_player
    state.phase = "deal"


def _row_still_possible(state: State) -> bool:
    """Whether any player could still, with the most favourable draws, complete a wall row.

    An over-estimate, so that a game is only ended when completing a row is truly impossible:
    tiles fixed on walls never move; a pattern line empties only when it fills up, which needs
    enough tiles of its colour among those in circulation (bag, lid, factories, center, floors)
    plus those held by other lines that can fill up. A row can be completed if its pattern line
    is not stuck holding a colour that can never fill it, every missing colour can still fill
    that line, and (gray wall) the missing colours fit its empty spaces without repeating a
    colour in a column.
    """
    pool = [
        state.bag[c] + state.lid[c] + state.center[c] + sum(f[c] for f in state.factories)
        for c in range(5)
    ]
    for board in state.boards:
        for tile in board.floor:
            if tile != MARKER:
                pool[tile] += 1
    stuck = [(board, line) for board in state.boards for line in range(5) if board.line_count[line]]
    growing = True
    while growing:  # lines that can fill up release their tiles back into circulation
        growing = False
        for entry in stuck[:]:
            board, line = entry
            color = board.line_color[line]
            if pool[color] >= line + 1 - board.line_count[line]:
                pool[color] += board.line_count[line]
                stuck.remove(entry)
                growing = True
    blocked = {(id(board), line) for board, line in stuck}
    for board in state.boards:
        for row in range(5):
            missing = _ABSENT_COLORS[board.row_mask[row]]
            if not missing or (id(board), row) in blocked:
                continue
            if any(pool[c] < row + 1 for c in missing if c != board.line_color[row]):
                continue
            if not state.gray or _fits(board, row, missing):
                return True
    return False


def _fits(board: Board, row: int, colors: tuple[int, ...]) -> bool:
    """Whether ``colors`` can fill the empty spaces of a gray wall ``row`` (a bipartite match)."""
    empty = [col for col in range(5) if board.wall[row * 5 + col] < 0]
    owner: dict[int, int] = {}  # column -> colour placed there

    def assign(color: int, seen: set[int]) -> bool:
        for col in empty:
            if col in seen or board.col_mask[col] >> color & 1:
                continue
            seen.add(col)
            if col not in owner or assign(owner[col], seen):
                owner[col] = color
                return True
        return False

    return all(assign(color, set()) for color in colors)


def _finish_game(state: State) -> None:
    for board in state.boards:
        board.score += _bonus(board)
    state.phase = "over"


def _bonus(board: Board) -> int:
    return (
        ROW_BONUS * board.complete_rows()
        + COLUMN_BONUS * board.complete_columns()
        + COLOR_BONUS * board.complete_colors()
    )


# -- logs ----------------------------------------------------------------------------------------


def deal_entry(tiles: list[list[str]]) -> dict[str, Any]:
    """The log entry for a deal of ``tiles`` (one colour list per factory)."""
    return {"kind": "deal", "tiles": [list(f) for f in tiles]}


def move_entry(player: int, move: Move | str) -> dict[str, Any]:
    """The log entry for ``player`` making ``move``, in canonical notation."""
    text = str(parse_move(move) if isinstance(move, str) else move)
    return {"kind": "move", "player": player, "move": text}


def apply_entry(state: State, entry: LogEntry) -> State:
    """Apply one log entry (a deal or a move) and return the new state."""
    if not isinstance(entry, Mapping):
        raise IllegalMove("a log entry is a mapping, not %(type)s", type=type(entry).__name__)
    kind = entry.get("kind")
    if kind == "deal":
        return deal(state, tiles=entry.get("tiles"))
    if kind == "move":
        return play(state, entry.get("move"), entry.get("player"))
    raise IllegalMove("unknown log entry kind %(kind)s: expected 'deal' or 'move'", kind=repr(kind))


def replay(
    entries: Iterable[LogEntry],
    *,
    players: int,
    variant: str = "colored",
    first_player: int = 0,
) -> State:
    """Rebuild a game from its log: the same state as applying the entries one by one."""
    state = new_game(players, variant, first_player)
    for number, entry in enumerate(entries):
        try:
            state = apply_entry(state, entry)
        except ValueError as exc:
            raise IllegalMove(
                "log entry %(number)s: %(reason)s", number=number, reason=exc
            ) from None
    return state


# -- results -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Standing:
    """One player's final result, with the end-of-game bonus breakdown."""

    player: int
    score: int
    place: int
    complete_rows: int
    row_bonus: int
    column_bonus: int
    color_bonus: int

    @property
    def bonus(self) -> int:
        return self.row_bonus + self.column_bonus + self.color_bonus


@dataclass(frozen=True)
class Result:
    """Final scores and places; places are shared when score and complete rows are equal."""

    standings: tuple[Standing, ...]

    @property
    def winners(self) -> list[int]:
        return [s.player for s in self.standings if s.place == 1]

    @property
    def ranking(self) -> list[int]:
        """Players from first place to last (ties in seat order)."""
        return [s.player for s in sorted(self.standings, key=lambda s: (s.place, s.player))]


def result(state: State) -> Result:
    """The final result of a finished game (rulebook, "End of the game")."""
    if state.phase != "over":
        raise ValueError("the game is not over yet")
    keys = [(b.score, b.complete_rows()) for b in state.boards]
    standings = tuple(
        Standing(
            player=p,
            score=b.score,
            place=1 + sum(1 for other in keys if other > keys[p]),
            complete_rows=b.complete_rows(),
            row_bonus=ROW_BONUS * b.complete_rows(),
            column_bonus=COLUMN_BONUS * b.complete_columns(),
            color_bonus=COLOR_BONUS * b.complete_colors(),
        )
        for p, b in enumerate(state.boards)
    )
    return Result(standings)


# -- random play ---------------------------------------------------------------------------------


def random_move(state: State, rng: random.Random, player: int | None = None) -> Move:
    """A uniformly random legal move for ``player`` (default: the one to move)."""
    moves = legal_moves(state, player)
    if not moves:
        raise IllegalMove("that player has no move to make now")
    return moves[rng.randrange(len(moves))]


def play_out(state: State, rng: random.Random) -> State:
    """Play the game to its end with random deals and uniformly random legal moves (a copy)."""
    state = state.copy()
    while state.phase != "over":
        _random_step(state, rng)
    return state


def _random_step(state: State, rng: random.Random) -> None:
    """One random chance event or move, in place."""
    phase = state.phase
    if phase == "take":
        _random_take(state, rng)
    elif phase == "deal":
        _apply_deal(state, [_tally(f) for f in _draw(state, rng)])
    elif phase == "tile":
        for player, board in enumerate(state.boards):
            if board.tiling != TILING_DONE:
                columns = _free_columns(board, board.tiling, board.line_color[board.tiling])
                _place(state, player, board.tiling, columns[rng.randrange(len(columns))])
                return


__all__ = [
    "LogEntry",
    "Result",
    "Standing",
    "apply_entry",
    "deal",
    "deal_entry",
    "draw_tiles",
    "legal_moves",
    "move_entry",
    "new_game",
    "play",
    "play_out",
    "random_move",
    "replay",
    "result",
]
