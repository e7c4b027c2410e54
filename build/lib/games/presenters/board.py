"""The board page's view-model: tiles with symbols, the factories and players' boards, the
move list, and what the page says around them.

Pure functions over the plain data that `games.presenters.game.game_view` returns (the engine's
`State.to_dict()` under "state"), so the board page and its partial render from one structure.
Nothing here reads the bag beyond its counts; the deals' seed is shown only as
`presenters.deals` decides (once the game is over).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, ngettext, pgettext_lazy
from django.utils.translation import gettext as _

from accounts.models import User
from azul import COLORS, FLOOR_PENALTY
from games.models import Game
from games.presenters.deals import deals_line
from games.presenters.engine_words import color_name
from games.presenters.game import game_view
from games.presenters.moves import move_rows
from games.presenters.names import game_title, players_title
from games.presenters.scoring import game_over_banner, round_scored

SYMBOLS = {
    "blue": "◆",
    "yellow": "●",
    "red": "▲",
    "black": "■",
    "white": "✚",
    "marker": "1",
}
"""Each colour also has a shape, so the board reads without telling colours apart."""

LABELS = {
    "blue": pgettext_lazy("tile", "Blue"),
    "yellow": pgettext_lazy("tile", "Yellow"),
    "red": pgettext_lazy("tile", "Red"),
    "black": pgettext_lazy("tile", "Black"),
    "white": pgettext_lazy("tile", "White"),
    "marker": pgettext_lazy("tile", "Starting player marker"),
}
"""Each tile's name, as its label and tooltip say it (in the active language)."""
assert set(LABELS) == {*COLORS, "marker"}


def tile(color: str) -> dict[str, str]:
    return {"color": color, "symbol": SYMBOLS[color], "label": str(LABELS[color])}


class _TileHtml:
    """Each tile's markup, in the active language (its label and tooltip name the tile). The
    board has a few hundred tiles; writing their markup once per language from fixed strings
    (colour names and labels come from the constants above, never from input) keeps the page
    cheap to render."""

    def __init__(self) -> None:
        self._by_language: dict[str | None, dict[str, str]] = {}

    def __getitem__(self, name: str) -> str:
        language = get_language()
        table = self._by_language.get(language)
        if table is None:
            table = self._by_language[language] = {
                n: self._html(tile(n)) for n in (*COLORS, "marker")
            }
        return table[name]

    @staticmethod
    def _html(t: dict[str, str]) -> str:
        label = escape(t["label"])
        return (
            f'<span class="tile {t["color"]}" role="img" aria-label="{label}" title="{label}">'
            f"{t['symbol']}</span>"
        )


TILE_HTML = _TileHtml()
EMPTY_HTML = '<span class="tile empty"></span>'
SLOT_HTML = {
    name: f'<span class="tile slot {name}" aria-hidden="true">{SYMBOLS[name]}</span>'
    for name in COLORS
}
GRAY_SLOT_HTML = '<span class="tile slot" aria-hidden="true"></span>'


def _take_html(source: str, where: str, color: str) -> str:
    label = escape(tile(color)["label"])
    return (
        f'<button type="button" class="tile {color} take" data-source="{source}" '
        f'data-color="{color}" aria-label="{where}: {label}" title="{label}">'
        f"{SYMBOLS[color]}</button>"
    )


def _place_html(line: int, column: int, color: str | None) -> str:
    slot = f" {color}" if color else ""
    label = _("Wall row %(row)s, column %(column)s: place here") % {"row": line, "column": column}
    return (
        f'<button type="button" class="tile slot choosable place{slot}" data-line="{line}" '
        f'data-column="{column}" aria-label="{escape(label)}">·</button>'
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


# -- what a screen reader says of each part of a board ------------------------------------------


def _listed(words: list[str]) -> str:
    return ", ".join(words)


def tiles_said(colors: list[str], *, marker: bool = False) -> str:
    """The tiles of a factory or the center in words ("blue, blue, red"), or "empty"."""
    words = [str(LABELS["marker"]).lower()] if marker else []
    words += [color_name(c) for c in sorted(colors, key=_order)]
    return _listed(words) if words else _("empty")


def line_said(number: int, color: str | None, count: int) -> str:
    """ "Pattern line 3: 2 of 3, red", or "Pattern line 3: empty"."""
    if not color or not count:
        return _("Pattern line %(number)s: empty") % {"number": number}
    return _("Pattern line %(number)s: %(count)s of %(size)s, %(color)s") % {
        "number": number,
        "count": count,
        "size": number,
        "color": color_name(color),
    }


def wall_row_said(number: int, row: list[str | None], *, gray: bool) -> str:
    """ "Wall row 2: blue, yellow placed; red, black, white empty" (on the gray wall, the
    columns: "blue in column 1 placed; columns 2, 3, 4, 5 empty")."""
    placed, empty = [], []
    for c, color in enumerate(row):
        if color:
            placed.append(
                _("%(color)s in column %(column)s") % {"color": color_name(color), "column": c + 1}
                if gray
                else color_name(color)
            )
        elif gray:
            empty.append(str(c + 1))
        else:
            empty.append(color_name(_wall_color(number - 1, c)))
    what = {"row": number, "placed": _listed(placed), "empty": _listed(empty)}
    if gray and empty:
        what["empty"] = ngettext("column %(columns)s", "columns %(columns)s", len(empty)) % {
            "columns": _listed(empty)
        }
    if not placed:
        return _("Wall row %(row)s: %(empty)s empty") % what
    if not empty:
        return _("Wall row %(row)s: %(placed)s placed") % what
    return _("Wall row %(row)s: %(placed)s placed; %(empty)s empty") % what


def floor_said(tiles: list[str]) -> str:
    """ "Floor: 2 tiles, -2" (the starting player marker counted as a tile, as it costs like
    one), or "Floor: empty"."""
    if not tiles:
        return _("Floor: empty")
    penalty = sum(FLOOR_PENALTY[: len(tiles)])
    if "marker" in tiles:
        return ngettext(
            "Floor: %(count)s tile (the starting player marker), -%(penalty)s",
            "Floor: %(count)s tiles (one the starting player marker), -%(penalty)s",
            len(tiles),
        ) % {"count": len(tiles), "penalty": penalty}
    return ngettext(
        "Floor: %(count)s tile, -%(penalty)s", "Floor: %(count)s tiles, -%(penalty)s", len(tiles)
    ) % {"count": len(tiles), "penalty": penalty}


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
        lines.append(
            {
                "number": size,
                "html": mark_safe(html),
                "color": color,
                "count": count,
                "said": line_said(size, color, count),
            }
        )
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
            {
                "number": r + 1,
                "html": mark_safe("".join(cells)),
                "tiling": tiling_line == r + 1,
                "choosable": bool(choosable),
                "said": wall_row_said(r + 1, row, gray=gray),
            }
        )
    floor_tiles = board["floor"]
    # The penalties are drawn above the floor line, outside it: its button's name is what it
    # holds and costs ("Floor: 2 tiles, -2"), not "-1 -1 -2".
    floor = mark_safe(
        "".join(
            TILE_HTML[floor_tiles[i]] if i < len(floor_tiles) else EMPTY_HTML
            for i in range(len(FLOOR_PENALTY))
        )
    )
    return {
        **player,
        "name": player.get("display_name") or player.get("username") or _("Open seat"),
        "score": board["score"],
        "lines": lines,
        "wall": wall,
        "floor": floor,
        "floor_said": floor_said(floor_tiles),
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
            "html": _tiles_html(
                tiles, f"F{number}", _("Factory %(number)s") % {"number": number}, takes
            ),
            "said": _("Factory %(number)s: %(tiles)s")
            % {"number": number, "tiles": tiles_said(tiles)},
            "interactive": any(source == f"F{number}" for source, _color in takes),
        }
        for number, tiles in enumerate(state["factories"], 1)
    ]
    center_tiles = _tiles_html(state["center"], "C", _("Center"), takes)
    marker_in_center = phase == "take" and state.get("marker_holder") is None
    gray = state["variant"] == "gray"
    center_said = _("Center: %(tiles)s") % {
        "tiles": tiles_said(state["center"], marker=marker_in_center)
    }
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
        "center_said": center_said,
        "center_interactive": any(source == "C" for source, _color in takes),
        "floor_penalties": FLOOR_PENALTY,
        "marker": mark_safe(TILE_HTML["marker"]),
        "boards": boards,
        "legal_moves": legal,
        "can_move": can_move,
        "take_phase": phase == "take",
    }


def _order(color: str) -> int:
    return COLORS.index(color)


def wall_pattern() -> list[list[SafeString]]:
    """The colored wall as 5 rows of 5 tiles (the rules page draws it)."""
    return [[mark_safe(TILE_HTML[_wall_color(r, c)]) for c in range(5)] for r in range(5)]


# -- the page around the board --------------------------------------------------------------------


def board_page(game: Game, viewer: User | AnonymousUser | None) -> dict[str, Any]:
    """Everything `_board.html` shows about the game, as `viewer` sees it (no query beyond
    `selectors.game_get`'s)."""
    view = game_view(game=game, viewer=viewer)
    board = board_display(view) if view["state"] else None
    names = {p["position"]: p["display_name"] or p["username"] for p in view["players"]}
    in_order = [names[p["position"]] for p in view["players"]]
    boards = board["boards"] if board else []
    to_move = set(view["to_move"])
    viewer_board = next((b for b in boards if b["is_viewer"]), None)
    viewer_seat = next((p for p in view["players"] if p["is_viewer"]), None)
    result_rows, game_over = [], None
    if view["result"]:
        standings = view["result"]["standings"]
        players = {p["position"]: p for p in view["players"]}
        for standing in sorted(standings, key=lambda s: s["place"]):
            player = players[standing["position"]]
            result_rows.append({**standing, "name": names[standing["position"]], **player})
        position = viewer_seat["position"] if viewer_seat else None
        game_over = game_over_banner(standings, names, position)
    return {
        "game": view,
        "board": board,
        "names": names,
        "viewer_board": viewer_board,
        "tiling_line": viewer_board["tiling_line"] if viewer_board else None,
        "viewer_seat": viewer_seat,
        "to_move_names": [b["name"] for b in boards if b["position"] in to_move],
        "result_rows": result_rows,
        "game_over": game_over,
        "has_open_seat": any(p["is_open"] for p in view["players"]),
        # Who plays the game ("alice v bob"), and its title: the page's, and its heading's.
        "players_title": players_title(in_order),
        "game_title": game_title(
            in_order, status=view["status"], round_number=board["round"] if board else None
        ),
        # The commitment to the deals, and once the game is over the seed (`_deals.html`).
        "deals": deals_line(view["deals"]),
    }


def board_log(summary: Mapping[str, Any], page: Mapping[str, Any]) -> dict[str, Any]:
    """The board's move list (`log`) and the last round's scoring for its summary panel
    (`last_round`), from the game's replay summary (`games.record.summary.replay_summary`) and
    the `board_page` it goes with.

    The move list is `presenters.moves.move_rows`, with a "since you last played" row before the
    first entry after the viewer's own last move, and each round's scoring in words after the
    entry that completed its wall tiling."""
    names = page["names"]
    result = page["game"]["result"]
    standings = result["standings"] if result else None
    viewer_seat = page["viewer_seat"]["position"] if page["viewer_seat"] else None
    log: list[dict[str, Any]] = []
    last_round = None
    marked_since = False
    for row in move_rows(summary, names, viewer_seat=viewer_seat):
        if row["since"] and not marked_since:
            log.append({"kind": "since", "since": False})
            marked_since = True
        # The viewer's own moves: the page does not read them out to them when they arrive live.
        log.append({**row, "mine": viewer_seat is not None and row.get("player") == viewer_seat})
        if row["tiling"] is not None:
            last_round = {
                "kind": "scored",
                "since": row["since"],
                **round_scored(row["tiling"], names, standings),
            }
            log.append(last_round)
    return {"log": log, "last_round": last_round}
