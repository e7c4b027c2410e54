"""The rules page's pictures, drawn with the board's own markup (`games/_board_main.html`) from
positions the engine builds: the table in the middle of a round, and a tile scored at the wall
tiling, before and after. Fixed positions (no random draw), the same for every visitor."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

import azul
from games.presenters.board import board_display

# A round's deal for two players, factory by factory, and its first three moves.
TABLE_DEAL = [
    ["blue", "blue", "black", "white"],
    ["yellow", "red", "red", "black"],
    ["white", "white", "blue", "yellow"],
    ["red", "black", "black", "yellow"],
    ["blue", "yellow", "red", "white"],
]
TABLE_MOVES = ["F1 blue 2", "F3 white 3", "F2 red 4"]

# The scoring example: row 2 of the wall (the 0-based row 1) gets its third tile, at column 3,
# beside the two tiles on its left and above the one below it: 3 (its row) + 2 (its column).
SCORED_ROW, SCORED_COLUMN = 1, 2
WALL_BEFORE = [(0, 0), (SCORED_ROW, 0), (SCORED_ROW, 1), (SCORED_ROW + 1, SCORED_COLUMN)]


def scored_points() -> int:
    """What the engine scores for the example's tile (5: the text of the rules says why)."""
    filled = sum(1 << (row * 5 + column) for row, column in WALL_BEFORE)
    filled |= 1 << (SCORED_ROW * 5 + SCORED_COLUMN)
    return azul.wall_points(filled, SCORED_ROW, SCORED_COLUMN)


def _wall_color(row: int, column: int) -> str:
    """The color of (row, column) on the colored wall: each row shifts the first one right."""
    return azul.COLORS[(column - row) % 5]


def _players(names: list[str], to_move: list[int]) -> list[dict[str, Any]]:
    return [
        {
            "position": position,
            "kind": "person",
            "username": None,
            "display_name": name,
            "autoplay": False,
            "away_until": None,
            "is_to_move": position in to_move,
        }
        for position, name in enumerate(names)
    ]


def _board(state: dict[str, Any], names: list[str], to_move: list[int]) -> dict[str, Any]:
    view = {
        "state": state,
        "players": _players(names, to_move),
        "viewer_seat": None,
        "viewer_can_move": False,
        "legal_moves": [],
    }
    return board_display(view)


def table_picture() -> dict[str, Any]:
    """Two players three moves into a round: factories (three of them emptied), the center with
    the first player marker and the tiles pushed there, each player's board."""
    state = azul.deal(azul.new_game(2), tiles=TABLE_DEAL)
    for move in TABLE_MOVES:
        state = azul.play(state, move)
    return _board(state.to_dict(), [_("Alice"), _("Bob")], state.to_move)


def scoring_pictures() -> tuple[dict[str, Any], dict[str, Any]]:
    """One player's board just before a wall tiling (pattern line 2 full) and just after (its
    tile on the wall, scored), with the score each shows."""
    data = azul.new_game(2).to_dict()
    board = data["boards"][0]
    color = _wall_color(SCORED_ROW, SCORED_COLUMN)
    for row, column in WALL_BEFORE:
        board["wall"][row][column] = _wall_color(row, column)
    board["score"] = 9
    board["pattern_lines"][SCORED_ROW] = [color, SCORED_ROW + 1]
    board["tiling_line"] = SCORED_ROW + 1  # the row being tiled, highlighted
    data["boards"] = [board]
    data["phase"] = "tile"
    after = {**data, "boards": [_scored(board, color)]}
    name = [_("Alice")]
    return _board(data, name, []), _board(after, name, [])


def _scored(board: dict[str, Any], color: str) -> dict[str, Any]:
    wall = [list(row) for row in board["wall"]]
    wall[SCORED_ROW][SCORED_COLUMN] = color
    lines = [list(line) for line in board["pattern_lines"]]
    lines[SCORED_ROW] = [None, 0]
    return {
        **board,
        "wall": wall,
        "pattern_lines": lines,
        "score": board["score"] + scored_points(),
        "tiling_line": None,
    }


def rules_pictures() -> dict[str, Any]:
    """What the rules page draws: `table`, `scoring_before`, `scoring_after` (boards as
    `_board_main.html` takes them) and the points of the scored tile."""
    before, after = scoring_pictures()
    return {
        "table": table_picture(),
        "scoring_before": before,
        "scoring_after": after,
        "scored_points": scored_points(),
        "scored_row": SCORED_ROW + 1,
    }
