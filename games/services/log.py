"""Appending to a game's log: the only writer of `LogEntry` rows is the move path (and the
start of a game, for its first deal), through these two.

A game with a seed (`services.deals`) draws each round's deal from its deal key, the seed
mixed with the players' contributions (`azul.fairness.deal_tiles`), so that anyone can check
the deals once the seed is shown at the end. A game created before that has no seed: its deals
are drawn with `random.SystemRandom()` at the moment a round starts, as they always were.
"""

from __future__ import annotations

from typing import Any

import azul
from accounts.models import User
from games.models import Game, LogEntry, Seat
from games.services.deals import round_tiles


def next_log_entry(
    game: Game, entry: dict[str, Any], *, mover_kind: str = "", mover: User | None = None
) -> LogEntry:
    """The log entry `entry` (an engine log dict) as the game's next, numbered with its ply, and
    the game's ply moved past it; the caller writes the entries it collects in one INSERT. A
    move says who made it (`LogEntry.Mover`, and a person's account)."""
    log_entry = LogEntry(
        game=game,
        number=game.ply,
        kind=entry["kind"],
        player=entry.get("player"),
        data=entry,
        mover_kind=mover_kind,
        mover=mover,
    )
    game.ply += 1
    return log_entry


def deal_round(
    game: Game, state: azul.State, entries: list[LogEntry], *, seats: list[Seat]
) -> azul.State:
    """Draw the next round's factory fill now (from the deal key of the game and its `seats`,
    or at random for a game without a seed), add its log entry to `entries`, and return the
    state after it."""
    tiles = round_tiles(game, seats, state)
    entries.append(next_log_entry(game, azul.deal_entry(tiles)))
    return azul.deal(state, tiles=tiles)
