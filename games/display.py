"""Presentation of a game view for the HTML templates: tiles with symbols, boards, the log.

Pure functions over the plain data that `games.selectors.game_view` returns (the engine's
`State.to_dict()` under "state"), so the board page and its partial render from one structure.
Nothing here reads the bag beyond its counts, and there is no random seed to show.
"""

from __future__ import annotations

from typing import Any

from django.utils.safestring import SafeString, mark_safe

from games.engine import COLORS, FLOOR_PENALTY

SYMBOLS = {
    "blue": "◆",
    "yellow": "●",
    "red": "▲",
    "black": "■",
    "white": "✚",
    "marker": "1",
}
"""Each colour also has a shape, so the board reads without telling colours apart."""

LABELS = {color: color.capitalize() for color in COLORS} | {"marker": "Starting player marker"}


def tile(color: str) -> dict[str, str]:
    return {"color": color, "symbol": SYMBOLS[color], "label": LABELS[color]}


TILES = {name: tile(name) for name in (*COLORS, "marker")}

# The board has a few hundred tiles; writing their markup here from fixed strings (colour names
# and labels come from the constants above, never from input) keeps the page cheap to render.
TILE_HTML = {
    name: (
        f'<span class="tile {name}" role="img" aria-label="{t["label"]}" title="{t["label"]}">'
        f"{t['symbol']}</span>"
    )
    for name, t in TILES.items()
}
EMPTY_HTML = '<span class="tile empty"></span>'
SLOT_HTML = {
    name: f'<span class="tile slot {name}" aria-hidden="true">{SYMBOLS[name]}</span>'
    for name in COLORS
}
GRAY_SLOT_HTML = '<span class="tile slot" aria-hidden="true"></span>'


def _take_html(source: str, where: str, color: str) -> str:
    label = TILES[color]["label"]
    return (
        f'<button type="button" class="tile {color} take" data-source="{source}" '
        f'data-color="{color}" aria-label="{where}: {label}" title="{label}">'
        f"{SYMBOLS[color]}</button>"
    )


def _place_html(line: int, column: int, color: str | None) -> str:
    slot = f" {color}" if color else ""
    return (
        f'<button type="button" class="tile slot choosable place{slot}" data-line="{line}" '
        f'data-column="{column}" aria-label="Wall row {line}, column {column}: place here">'
        "·</button>"
    )


def _tiles_html(
    colors: list[str], source: str, where: str, takes: set[tuple[str, str]]
) -> SafeString:
    return mark_safe(
        "".join(
            _take_html(source, where, c) if (source, c) in takes else TILE_HTML[c]
            for c in sorted(colors, key=_order)
        )
    )


def _wall_color(row: int, column: int) -> str:
    """The colour that belongs at (row, column) of the colored wall (rows shift by one)."""
    return COLORS[(column - row) % 5]


def _parse_legal(legal_moves: list[str]) -> tuple[set[tuple[str, str]], dict[int, set[int]]]:
    takes: set[tuple[str, str]] = set()
    places: dict[int, set[int]] = {}
    for notation in legal_moves:
        parts = notation.split()
        if parts[0] == "wall":
            places.setdefault(int(parts[1]), set()).add(int(parts[2]))
        else:
            takes.add((parts[0], parts[1]))
    return takes, places


def _player_board(
    board: dict[str, Any],
    player: dict[str, Any],
    *,
    gray: bool,
    viewer_seat: int | None,
    can_move: bool,
    places: dict[int, set[int]],
) -> dict[str, Any]:
    is_viewer = viewer_seat is not None and player["position"] == viewer_seat
    interactive = is_viewer and can_move
    lines = []
    for index, (color, count) in enumerate(board["pattern_lines"]):
        size = index + 1
        html = EMPTY_HTML * (size - count) + (TILE_HTML[color] * count if color else "")
        lines.append({"number": size, "html": mark_safe(html), "color": color, "count": count})
    tiling_line = board.get("tiling_line")
    wall = []
    for r, row in enumerate(board["wall"]):
        choosable = places.get(r + 1, set()) if interactive and tiling_line == r + 1 else set()
        cells = []
        for c, color in enumerate(row):
            slot = None if gray else _wall_color(r, c)
            if color:
                cells.append(TILE_HTML[color])
            elif (c + 1) in choosable:
                cells.append(_place_html(r + 1, c + 1, slot))
            else:
                cells.append(SLOT_HTML[slot] if slot else GRAY_SLOT_HTML)
        wall.append(
            {"number": r + 1, "html": mark_safe("".join(cells)), "tiling": tiling_line == r + 1}
        )
    floor_tiles = board["floor"]
    floor_html = "".join(f'<span class="penalty">-{p}</span>' for p in FLOOR_PENALTY) + "".join(
        TILE_HTML[floor_tiles[i]] if i < len(floor_tiles) else EMPTY_HTML
        for i in range(len(FLOOR_PENALTY))
    )
    floor = mark_safe(floor_html)
    return {
        **player,
        "name": player.get("display_name") or player.get("username") or "Open seat",
        "score": board["score"],
        "lines": lines,
        "wall": wall,
        "floor": floor,
        "tiling_line": tiling_line,
        "is_viewer": is_viewer,
        "interactive": interactive,
    }


def board_display(view: dict[str, Any]) -> dict[str, Any]:
    """Everything the board template draws, from a `game_view` dict."""
    state = view["state"]
    can_move = bool(view.get("viewer_can_move"))
    legal = list(view.get("legal_moves") or []) if can_move else []
    takes, places = _parse_legal(legal)
    phase = state["phase"]
    factories = [
        {
            "number": number,
            "code": f"F{number}",
            "empty": not tiles,
            "html": _tiles_html(tiles, f"F{number}", f"Factory {number}", takes),
        }
        for number, tiles in enumerate(state["factories"], 1)
    ]
    center_tiles = _tiles_html(state["center"], "C", "Center", takes)
    marker_in_center = phase == "take" and state.get("marker_holder") is None
    gray = state["variant"] == "gray"
    players_by_seat = {p["position"]: p for p in view["players"]}
    boards = [
        _player_board(
            board,
            players_by_seat.get(seat, {"position": seat}),
            gray=gray,
            viewer_seat=view.get("viewer_seat"),
            can_move=can_move,
            places=places,
        )
        for seat, board in enumerate(state["boards"])
    ]
    # The viewer's own board first: it is the one they act on.
    boards.sort(key=lambda b: (not b["is_viewer"], b["position"]))
    return {
        "phase": phase,
        "round": state["round"],
        "gray": gray,
        "factories": factories,
        "center": center_tiles,
        "marker_in_center": marker_in_center,
        "marker": mark_safe(TILE_HTML["marker"]),
        "boards": boards,
        "legal_moves": legal,
        "can_move": can_move,
        "take_phase": phase == "take",
    }


def _order(color: str) -> int:
    return COLORS.index(color)
