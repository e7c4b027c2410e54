"""A game's log and its replay.

A game is a list of entries: each round's deal (the tiles drawn into the factories: randomness is
a logged event, not hidden state) and each move. :func:`replay` folds a log back into a state
without any random generator, so an old game replays the same on any Python version.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from .errors import IllegalMove
from .notation import Move, parse_move
from .rules import deal, new_game, play
from .state import State

LogEntry = Mapping[str, Any]
"""A log entry: ``{"kind": "deal", "tiles": [[colour, ...], ...]}`` (one list per factory) or
``{"kind": "move", "player": 0, "move": "F3 blue 2"}``."""


def deal_entry(tiles: list[list[str]]) -> dict[str, Any]:
    """The log entry for a deal of ``tiles`` (one colour list per factory)."""
    return {"kind": "deal", "tiles": [list(f) for f in tiles]}


def move_entry(player: int, move: Move | str) -> dict[str, Any]:
    """The log entry for ``player`` making ``move``, in canonical notation."""
    text = str(parse_move(move) if isinstance(move, str) else move)
    return {"kind": "move", "player": player, "move": text}


def apply_entry(state: State, entry: LogEntry) -> State:
    """Apply one log entry (a deal or a move) and return the new state."""
    if not isinstance(entry, Mapping):
        raise IllegalMove("a log entry is a mapping, not %(type)s", type=type(entry).__name__)
    kind = entry.get("kind")
    if kind == "deal":
        return deal(state, tiles=entry.get("tiles"))
    if kind == "move":
        move: Any = entry.get("move")  # play() refuses anything that is not a move
        return play(state, move, entry.get("player"))
    raise IllegalMove("unknown log entry kind %(kind)s: expected 'deal' or 'move'", kind=repr(kind))


def replay(
    entries: Iterable[LogEntry],
    *,
    players: int,
    variant: str = "colored",
    first_player: int = 0,
) -> State:
    """Rebuild a game from its log: the same state as applying the entries one by one."""
    state = new_game(players, variant, first_player)
    for number, entry in enumerate(entries):
        try:
            state = apply_entry(state, entry)
        except ValueError as exc:
            raise IllegalMove(
                "log entry %(number)s: %(reason)s", number=number, reason=exc
            ) from None
    return state
