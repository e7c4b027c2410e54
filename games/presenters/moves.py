"""How a game's log is shown: a deal's text, and the move list's rows (the board's and the
replay's).

Both read the game's replay summary (`games.record.replay.replay_summary`: the log replayed
once per ply, with each round's wall tiling and the points each move earned), so that the move
list costs no query of its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, NotRequired, TypedDict

from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from games.presenters.engine_words import color_name
from games.presenters.names import position_name
from games.selectors import ServerMove

__all__ = ["MoveRow", "deal_text", "move_rows", "move_text", "server_move_note", "with_names"]


def move_text(notation: str) -> str:
    """A move as the move list shows it: its notation ("F1 yellow 3", "C red floor", "wall 2 4")
    with the words in the active language ("공장1 노랑 → 3줄" in Korean). Only what is shown:
    the log, the API and the export keep the notation."""
    parts = notation.split()
    if len(parts) != 3:
        return notation
    if parts[0] == "wall":
        return pgettext("move list", "wall %(line)s %(column)s") % {
            "line": parts[1],
            "column": parts[2],
        }
    source, color, dest = parts
    what = {
        "source": pgettext("move list", "C")
        if source == "C"
        else pgettext("move list", "F%(number)s") % {"number": source[1:]},
        "color": color_name(color),
        "line": dest,
    }
    if dest == "floor":
        return pgettext("move list", "%(source)s %(color)s floor") % what
    return pgettext("move list", "%(source)s %(color)s %(line)s") % what


def deal_text(tiles: Sequence[Sequence[str]]) -> str:
    """A deal in notation, one factory after another: "F1 blue red red black; F2 (empty)"."""
    empty = _("(empty)")
    return "; ".join(
        f"F{number} {' '.join(factory) if factory else empty}"
        for number, factory in enumerate(tiles, 1)
    )


def with_names(scoring: Mapping[str, Any], names: Mapping[int, str]) -> dict[str, Any]:
    """A round's scoring (`replay_summary()["rounds"][i]`) with each player's `name`."""
    return {
        **scoring,
        "players": [{**p, "name": names.get(p["position"], "")} for p in scoring["players"]],
    }


def server_move_note(why: str) -> str:
    """What the move list says beside a move the server made for a person's seat, by why it
    made it (`selectors.ServerMove`), in the active language."""
    notes = {
        ServerMove.TIMEOUT: _("(time ran out: the server moved)"),
        ServerMove.RESIGNED: _("(resigned: the computer moved)"),
        ServerMove.TAKEOVER: _("(after three timeouts: the computer moved)"),
        ServerMove.PLAYED_OUT: _("(the result was settled: the computer moved)"),
    }
    return notes.get(why, _("(the computer moved)"))


class MoveRow(TypedDict):
    """One log entry in the move list.

    `ply` is the point just after the entry (1 for the first deal), `current` whether that is the
    point shown (the replay), `since` whether the entry came after the viewer's own last move
    (the board's "since you last played"). A deal has `round` and `text` (`deal_text`); a move
    has its `player`, `name`, `move` (notation) and `move_text` (as shown: `move_text`),
    `timeout` (made by the server when the player's time ran out), `server` (why the server
    made it for the seat's player, a `selectors.ServerMove` value; "" for a move its player
    made, and for a computer seat's own) with its `server_note` in words, and the wall tiles it
    `earned` at its round's tiling (with their `points`, `earned_total` in all). `tiling` is
    the round's scoring, with names, after the entry that completed its wall tiling; None
    otherwise."""

    ply: int
    kind: Literal["deal", "move"]
    current: bool
    since: bool
    tiling: dict[str, Any] | None
    round: NotRequired[int]
    text: NotRequired[str]
    player: NotRequired[int]
    name: NotRequired[str]
    move: NotRequired[str]
    move_text: NotRequired[str]
    timeout: NotRequired[bool]
    server: NotRequired[str]
    server_note: NotRequired[str]
    earned: NotRequired[list[dict[str, Any]]]
    earned_total: NotRequired[int]


def _last_own_move(
    entries: Sequence[Mapping[str, Any]], server: Mapping[int, str], viewer_seat: int | None
) -> int | None:
    """The index of the viewer's own last move: not one the server made for them (`server`, the
    summary's `server_moves`: at a timeout, after they resigned, ...). None when they have made
    none themselves."""
    if viewer_seat is None:
        return None
    return max(
        (
            index
            for index, entry in enumerate(entries)
            if entry.get("kind") == "move"
            and entry.get("player") == viewer_seat
            and not entry.get("timeout")
            and index not in server
        ),
        default=None,
    )


def move_rows(
    summary: Mapping[str, Any],
    names: Mapping[int, str],
    *,
    current_ply: int | None = None,
    viewer_seat: int | None = None,
) -> list[MoveRow]:
    """The move list: one row per log entry of `summary` (`replay_summary`), see `MoveRow`.

    `names` maps seat positions to the names shown (`names.seat_names`); `current_ply` is the
    point the replay shows; `viewer_seat` the viewer's seat, whose last own move starts the rows
    marked `since`."""
    entries = summary["entries"]
    rounds, tiled_after, points = summary["rounds"], summary["tiled_after"], summary["points"]
    server = summary.get("server_moves", {})
    last_own = _last_own_move(entries, server, viewer_seat)
    rows: list[MoveRow] = []
    round_number = 0
    for index, entry in enumerate(entries):
        ply = index + 1
        current = ply == current_ply
        since = last_own is not None and index > last_own
        tiling = with_names(rounds[tiled_after[index]], names) if index in tiled_after else None
        if entry.get("kind") == "deal":
            round_number += 1
            row = MoveRow(
                ply=ply,
                kind="deal",
                current=current,
                since=since,
                tiling=tiling,
                round=round_number,
                text=deal_text(entry.get("tiles", [])),
            )
        else:
            player = entry["player"]
            earned = points.get(index, [])
            why = server.get(index, ServerMove.TIMEOUT if entry.get("timeout") else "")
            row = MoveRow(
                ply=ply,
                kind="move",
                current=current,
                since=since,
                tiling=tiling,
                player=player,
                name=names.get(player) or position_name(player),
                move=entry.get("move", ""),
                move_text=move_text(entry.get("move", "")),
                timeout=bool(entry.get("timeout")),
                server=why,
                server_note=server_move_note(why) if why else "",
                earned=earned,
                earned_total=sum(line["points"] for line in earned),
            )
        rows.append(row)
    return rows
