"""Wall tiling, scoring and the end of the game, changing a state in place.

The rulebook's phase B ("Wall-tiling"): each complete pattern line moves its rightmost tile to the
wall, where it scores (:func:`wall_points`); the rest of the line goes to the lid; the floor line
costs its penalties. After the tiling the round ends, and the game ends with its bonuses once a
row is complete (or can never be: see :mod:`azul.rules`).

These functions trust their input: :mod:`azul.rules` checks a move before it gets here. The
computer players call them on their own copies of a state.
"""

from __future__ import annotations

from .notation import Move, Place
from .state import ABSENT_COLORS, FLOOR_PENALTY_TOTAL, FLOOR_SIZE, MARKER, TILING_DONE, Board, State

ROW_BONUS = 2
"""End-of-game points for each complete horizontal line of the wall."""
COLUMN_BONUS = 7
"""End-of-game points for each complete vertical line of the wall."""
COLOR_BONUS = 10
"""End-of-game points for each colour with all 5 of its tiles on the wall."""


def free_columns(board: Board, line: int, color: int) -> list[int]:
    """Wall columns of row ``line`` where a tile of ``color`` may go (gray wall): empty, and
    without that colour in the column."""
    wall, col_mask, base = board.wall, board.col_mask, line * 5
    return [col for col in range(5) if wall[base + col] < 0 and not col_mask[col] >> color & 1]


def place_moves(board: Board, line: int) -> list[Move]:
    """The gray-wall tiling choices for the tile of pattern ``line``."""
    return [Place(line, col) for col in free_columns(board, line, board.line_color[line])]


def place(state: State, player: int, line: int, column: int) -> None:
    """Gray-wall tiling decision, in place: tile ``line`` at ``column`` and go on tiling."""
    board = state.boards[player]
    _tile_line(state, board, line, column)
    board.tiling = line + 1
    if continue_tiling(state, board) and all(b.tiling == TILING_DONE for b in state.boards):
        _end_round(state)


def start_tiling(state: State) -> None:
    """Begin the wall-tiling phase once the factory offer is over (rulebook, phase B)."""
    done = True
    for board in state.boards:
        board.tiling = 0
        if not continue_tiling(state, board):
            done = False
    if done:
        _end_round(state)
    else:
        state.phase = "tile"


def continue_tiling(state: State, board: Board) -> bool:
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
        free = free_columns(board, line, color)
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
    return wall_points(board.filled, row, column)


def wall_points(filled: int, row: int, column: int) -> int:
    """Points for the tile at (row, column) of a wall whose tiles are the bits of ``filled``
    (bit ``row * 5 + column``): 1 when it has no neighbour, else the tiles linked to it
    horizontally (if any) plus those linked vertically (if any), itself counted in each
    (rulebook, "Scoring")."""
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
        finish_game(state)
        return
    if not row_still_possible(state):
        finish_game(state)  # nobody can ever complete a row: see azul.rules
        return
    if state.marker_holder >= 0:
        state.first_player = state.marker_holder
    state.current = state.first_player
    state.phase = "deal"


def plainly_possible(state: State) -> bool:
    """A quick sufficient test for :func:`row_still_possible` (True only where it is True):
    on the colored wall, five of every colour are left to draw (bag and lid) and some
    unfinished wall row has an empty pattern line, which can then take each colour it misses.
    The common case, answered at once: every round end of every computer player's playout
    asks."""
    if state.gray:
        return False
    bag, lid = state.bag, state.lid
    for c in range(5):
        if bag[c] + lid[c] < 5:
            return False
    for board in state.boards:
        line_count, row_mask = board.line_count, board.row_mask
        for row in range(5):
            if not line_count[row] and row_mask[row] != 0b11111:
                return True
    return False


def row_still_possible(state: State) -> bool:
    """Whether any player could still, with the most favourable draws, complete a wall row.

    An over-estimate, so that a game is only ended when completing a row is truly impossible:
    tiles fixed on walls never move; a pattern line empties only when it fills up, which needs
    enough tiles of its colour among those in circulation (bag, lid, factories, center, floors)
    plus those held by other lines that can fill up. A row can be completed if its pattern line
    is not stuck holding a colour that can never fill it, every missing colour can still fill
    that line, and (gray wall) the missing colours fit its empty spaces without repeating a
    colour in a column.
    """
    return plainly_possible(state) or _possible_by_counting(state)


def _possible_by_counting(state: State) -> bool:
    """:func:`row_still_possible` counted out in full (see there)."""
    bag, lid = state.bag, state.lid
    pool = [
        bag[c] + lid[c] + state.center[c] + sum(f[c] for f in state.factories) for c in range(5)
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
            missing = ABSENT_COLORS[board.row_mask[row]]
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


def end_bonuses(board: Board) -> tuple[int, int, int]:
    """The end-of-game bonuses of ``board``: (rows, columns, colours), in points."""
    return (
        ROW_BONUS * board.complete_rows(),
        COLUMN_BONUS * board.complete_columns(),
        COLOR_BONUS * board.complete_colors(),
    )


def finish_game(state: State) -> None:
    """End the game, in place: every player scores the end-of-game bonuses."""
    for board in state.boards:
        board.score += sum(end_bonuses(board))
    state.phase = "over"
