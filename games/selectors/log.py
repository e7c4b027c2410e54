"""A game's log as it is stored: every deal and move, in order (the game is its log), and who
made each move (`server_moves`: the moves the server made for a person)."""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, TypedDict

from games.models import Game, LogEntry, Seat


class LogRecord(TypedDict):
    """One stored log entry. `data` is the entry as the engine wrote it (`azul.deal_entry`,
    `azul.move_entry`): what `azul.replay` folds over."""

    number: int
    kind: str  # LogEntry.Kind: "deal" or "move"
    player: int | None  # the seat that moved; None for a deal
    data: dict[str, Any]
    created_at: datetime.datetime
    mover_kind: str  # LogEntry.Mover, or "" (a deal, or a move from before the log said)
    mover_id: int | None  # the account of a person's move


def log_entries(*, game: Game | uuid.UUID, up_to_ply: int | None = None) -> list[LogRecord]:
    """The game's log in order (1 query). With `up_to_ply`, only the entries that lead to that
    ply (numbered from 0, below it): a reader that has the game row reads up to the ply the row
    says, so that an entry appended since does not slip in."""
    entries = LogEntry.objects.filter(game=game)
    if up_to_ply is not None:
        entries = entries.filter(number__lt=up_to_ply)
    rows = entries.order_by("number").values(
        "number", "kind", "player", "data", "created_at", "mover_kind", "mover_id"
    )
    return list(rows)  # type: ignore[arg-type]  # the values() rows are LogRecords


TIMEOUTS_BEFORE_TAKEOVER = 3
"""At a player's third timeout in a game, the computer takes their seat and plays it to the end
(`services.moves.timeouts_play`)."""


class ServerMove:
    """Why the server made a move for a person's seat (`server_moves`): the values of the
    export's per-move `server` field, too."""

    TIMEOUT = "timeout"
    """Their time ran out: the server moved for them (the log says so: `"timeout": true`)."""
    RESIGNED = "resigned"
    """They had resigned: the computer plays their seat to the end."""
    TAKEOVER = "takeover"
    """The computer took their seat at their third timeout, and plays it to the end."""
    PLAYED_OUT = "played_out"
    """Nobody was left to play for anything (`services.endings.result_settled`): the game was
    played out at once by the computer, for every seat."""

    ALL = (TIMEOUT, RESIGNED, TAKEOVER, PLAYED_OUT)


def server_moves(*, seats: Sequence[Seat], entries: Sequence[Mapping[str, Any]]) -> dict[int, str]:
    """The moves of a game's log that the server made for a person's seat: entry index -> why
    (a `ServerMove` value). Every other move was made by its seat's holder: the person
    themselves, or, at a computer's seat, the computer (never listed here).

    `seats` are the game's seats (`game.seat_list`); `entries` its log as `log_entries` reads it
    (each with its `data` and `created_at`). No query. The log marks a move made at a timeout
    (`"timeout": true`) and, in a study imported from an export, any move the export said the
    server made (`"server": why`); the rest follows from the seats: every move of a seat written
    after its player resigned, every move of a seat after its third timeout, and every move
    once nobody was left to play (one seat not resigned, or only the computer's). A log never
    changes, and a resignation marks only the moves after it, so what this says of a game's
    first N entries never changes either (the replay cache keeps it by ply)."""
    by_position = {seat.position: seat for seat in seats}
    timeouts = dict.fromkeys(by_position, 0)

    def resigned(seat: Seat, when: Any) -> bool:
        return seat.resigned_at is not None and when is not None and when >= seat.resigned_at

    def computer_plays(seat: Seat, when: Any) -> bool:
        return (
            seat.kind == Seat.Kind.COMPUTER
            or timeouts[seat.position] >= TIMEOUTS_BEFORE_TAKEOVER
            or resigned(seat, when)
        )

    marks: dict[int, str] = {}
    for index, record in enumerate(entries):
        data = record.get("data") or {}
        if data.get("kind") != "move":
            continue
        seat = by_position.get(data.get("player"))  # type: ignore[arg-type]
        if seat is None or seat.kind == Seat.Kind.COMPUTER:
            continue
        when = record.get("created_at")
        marked = data.get("server")
        if data.get("timeout") or marked == ServerMove.TIMEOUT:
            timeouts[seat.position] += 1
            marks[index] = ServerMove.TIMEOUT
        elif marked in ServerMove.ALL:
            marks[index] = marked
        elif resigned(seat, when):
            marks[index] = ServerMove.RESIGNED
        elif timeouts[seat.position] >= TIMEOUTS_BEFORE_TAKEOVER:
            marks[index] = ServerMove.TAKEOVER
        else:
            contenders = [s for s in seats if not resigned(s, when)]
            if len(contenders) <= 1 or all(computer_plays(s, when) for s in contenders):
                marks[index] = ServerMove.PLAYED_OUT
    return marks


def own_moves(*, seats: Sequence[Seat], entries: Sequence[Mapping[str, Any]]) -> list[int]:
    """The indexes of the log's moves that people made themselves, in order: the complement of
    `server_moves` among the moves of seats a person holds (what an analysis judges)."""
    server = server_moves(seats=seats, entries=entries)
    people = {seat.position for seat in seats if seat.kind == Seat.Kind.HUMAN}
    return [
        index
        for index, record in enumerate(entries)
        if (record.get("data") or {}).get("kind") == "move"
        and (record.get("data") or {}).get("player") in people
        and index not in server
    ]
