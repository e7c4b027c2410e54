"""Presentation of a game view for the HTML templates: tiles with symbols, boards, the log.

Pure functions over the plain data that `games.selectors.game_view` returns (the engine's
`State.to_dict()` under "state"), so the board page and its partial render from one structure.
Nothing here reads the bag beyond its counts, and there is no random seed to show.
"""

from __future__ import annotations

from typing import Any

from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe
from django.utils.translation import get_language, ngettext, pgettext_lazy
from django.utils.translation import gettext as _

from azul import COLORS, FLOOR_PENALTY
from core.text import and_list, ordinal

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
        "name": player.get("display_name") or player.get("username") or _("Open seat"),
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
            "html": _tiles_html(
                tiles, f"F{number}", _("Factory %(number)s") % {"number": number}, takes
            ),
        }
        for number, tiles in enumerate(state["factories"], 1)
    ]
    center_tiles = _tiles_html(state["center"], "C", _("Centre"), takes)
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


# -- what each round scored, in words (the move list and the board's summary panel) -------------


def _signed(points: int) -> str:
    return f"+{points}" if points >= 0 else f"-{-points}"


def _tiling_detail(player: dict[str, Any]) -> str:
    """ "+5 (row 2 +3, row 4 +2), floor -2 → 7": what one player's wall tiling scored, from a
    round of `games.replays` (the score shown is before any end-of-game bonus)."""
    lines = ", ".join(
        _("row %(row)s %(points)s") % {"row": line["line"], "points": _signed(line["points"])}
        for line in player["lines"]
    )
    text = _signed(player["line_points"]) + (f" ({lines})" if lines else "")
    if player["floor"]:
        text += ", " + _("floor %(points)s") % {"points": _signed(player["floor"])}
    tiled = player["score"] - (player["bonus"] or 0)
    return f"{text} → {tiled}"


def _bonus_detail(standing: dict[str, Any]) -> str:
    """ "+19 (rows +2, columns +7, colours +10) → 71": one player's end-of-game bonuses, from a
    finished game's standings (`selectors.result_view`)."""
    parts = [
        label % {"points": _signed(standing[key])}
        for key, label in (
            ("row_bonus", _("rows %(points)s")),
            ("column_bonus", _("columns %(points)s")),
            ("color_bonus", _("colours %(points)s")),
        )
        if standing[key]
    ]
    total = standing["row_bonus"] + standing["column_bonus"] + standing["color_bonus"]
    return _signed(total) + (f" ({', '.join(parts)})" if parts else "") + f" → {standing['score']}"


def round_scored(
    scoring: dict[str, Any],
    names: dict[int, str],
    standings: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """One round's scoring in words: `scoring` is a round of `games.replays.replay_summary`, and
    `standings` a finished game's (with the bonuses by kind) when it is the last round.

    Each player is {"name", "detail"}; `bonuses` is the same for the end-of-game bonuses, or
    None before the end."""
    players = [
        {"name": names.get(p["position"], ""), "detail": _tiling_detail(p)}
        for p in scoring["players"]
    ]
    bonuses = None
    if scoring["final"] and standings is not None:
        bonuses = [
            {"name": names.get(s["position"], ""), "detail": _bonus_detail(s)}
            for s in sorted(standings, key=lambda s: s["position"])
        ]
    return {
        "round": scoring["round"],
        "final": scoring["final"],
        "players": players,
        "bonuses": bonuses,
    }


def game_over_banner(
    standings: list[dict[str, Any]], names: dict[int, str], viewer_seat: int | None
) -> dict[str, str]:
    """The headline of a finished game for its viewer: "You won with 71 points", "You came 2nd
    of 3 with 54 points", or for a watcher "Alice won with 71 points"; `winners` names the
    winners for a player who is not one of them."""
    count = len(standings)
    winners = [s for s in standings if s["place"] == 1]
    winner_names = [names.get(s["position"], "") for s in winners]
    top = winners[0]["score"] if winners else 0
    if len(winners) == 1:
        won = ngettext(
            "%(name)s won with %(score)s point.", "%(name)s won with %(score)s points.", top
        ) % {"name": winner_names[0], "score": top}
    else:
        won = ngettext(
            "%(names)s shared the win with %(score)s point.",
            "%(names)s shared the win with %(score)s points.",
            top,
        ) % {"names": and_list(winner_names), "score": top}
    mine = next((s for s in standings if s["position"] == viewer_seat), None)
    if mine is None:
        return {"headline": won, "outcome": "watcher", "winners": ""}
    score = mine["score"]
    if mine["place"] == 1:
        others = [n for s, n in zip(winners, winner_names, strict=True) if s is not mine]
        if others:
            headline = ngettext(
                "You shared the win with %(names)s, with %(score)s point.",
                "You shared the win with %(names)s, with %(score)s points.",
                score,
            ) % {"names": and_list(others), "score": score}
        else:
            headline = ngettext(
                "You won with %(score)s point.", "You won with %(score)s points.", score
            ) % {"score": score}
        return {"headline": headline, "outcome": "won", "winners": ""}
    shared = sum(1 for s in standings if s["place"] == mine["place"]) > 1
    headline = (
        ngettext(
            "You came %(place)s (shared) of %(count)s with %(score)s point.",
            "You came %(place)s (shared) of %(count)s with %(score)s points.",
            score,
        )
        if shared
        else ngettext(
            "You came %(place)s of %(count)s with %(score)s point.",
            "You came %(place)s of %(count)s with %(score)s points.",
            score,
        )
    ) % {"place": ordinal(mine["place"]), "count": count, "score": score}
    return {"headline": headline, "outcome": "lost", "winners": won}


def wall_pattern() -> list[list[SafeString]]:
    """The colored wall as 5 rows of 5 tiles (the rules page draws it)."""
    return [[mark_safe(TILE_HTML[_wall_color(r, c)]) for c in range(5)] for r in range(5)]
