"""A game's log as it is stored: every deal and move, in order (the game is its log)."""

from __future__ import annotations

import datetime
import uuid
from typing import Any, TypedDict

from games.models import Game, LogEntry


class LogRecord(TypedDict):
    """One stored log entry. `data` is the entry as the engine wrote it (`azul.deal_entry`,
    `azul.move_entry`): what `azul.replay` folds over."""

    number: int
    kind: str  # LogEntry.Kind: "deal" or "move"
    player: int | None  # the seat that moved; None for a deal
    data: dict[str, Any]
    created_at: datetime.datetime


def log_entries(*, game: Game | uuid.UUID, up_to_ply: int | None = None) -> list[LogRecord]:
    """The game's log in order (1 query). With `up_to_ply`, only the entries that lead to that
    ply (numbered from 0, below it): a reader that has the game row reads up to the ply the row
    says, so that an entry appended since does not slip in."""
    entries = LogEntry.objects.filter(game=game)
    if up_to_ply is not None:
        entries = entries.filter(number__lt=up_to_ply)
    rows = entries.order_by("number").values("number", "kind", "player", "data", "created_at")
    return list(rows)  # type: ignore[arg-type]  # the values() rows are LogRecords
