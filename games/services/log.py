"""Appending to a game's log: the only writer of `LogEntry` rows is the move path (and the
start of a game, for its first deal), through these two.

Deals are drawn by the server with `random.SystemRandom()` at the moment a round starts; nothing
about future draws exists before then, and no seed is stored anywhere.
"""

from __future__ import annotations

import random
from typing import Any

import azul
from games.models import Game, LogEntry


def next_log_entry(game: Game, entry: dict[str, Any]) -> LogEntry:
    """The log entry `entry` (an engine log dict) as the game's next, numbered with its ply, and
    the game's ply moved past it; the caller writes the entries it collects in one INSERT."""
    log_entry = LogEntry(
        game=game,
        number=game.ply,
        kind=entry["kind"],
        player=entry.get("player"),
        data=entry,
    )
    game.ply += 1
    return log_entry


def deal_round(game: Game, state: azul.State, entries: list[LogEntry]) -> azul.State:
    """Draw the next round's factory fill now, add its log entry to `entries`, and return the
    state after it."""
    tiles = azul.draw_tiles(state, random.SystemRandom())
    entries.append(next_log_entry(game, azul.deal_entry(tiles)))
    return azul.deal(state, tiles=tiles)
