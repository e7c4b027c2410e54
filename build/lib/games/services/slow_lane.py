"""The slow computer levels' lane: whose game the next slow computer move is played in.

The slow levels (`follow_ups.SLOW_LANES`) think for a second or more a move, each level on a
queue and worker of its own. Their queue used to be first come, first served, so one player
with ten games against three `strong` seats each queued thirty seconds of thinking ahead of
everyone else's next move (`make abuse`: another player's `strong` reply took 12.8 s under such
a flood).

So a message on that queue names no game to play in: it is a place in the lane. Each game that
waits for a slow computer move has sent one (or more: the sweep sends again what waits long),
and the worker that takes a place plays the move of the fairest game waiting at that moment:
the one whose owner (its creator, who asked for the computers) has the fewest games waiting,
then the one that has waited longest. A player with one game waiting is served next, however
many another has queued; the heavy player still gets every place the others leave.

Every game waiting has at least one place in the queue, so none waits for ever: a place taken
for another game is one that game's own place will give back. While a worker thinks for a
game, it holds a PostgreSQL advisory lock on it, so that a second worker takes the next game
rather than thinking the same move again. The lock is the database session's: a worker killed
mid-thought loses it with its connection, and the sweep's place for the game is served at once
(a claim in the cache would outlive the worker). Elsewhere (SQLite, in-process tasks) there is
one thinker, and no lock.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import DatabaseError, connection

from games.follow_ups import SLOW_LEVELS
from games.models import Game
from games.selectors.turns import ComputerTurn, computer_turns_waiting
from games.services.moves import computer_move_play


def fairest_first(turns: list[ComputerTurn]) -> list[ComputerTurn]:
    """`turns` in the order the lane serves them: the owners with the fewest games waiting
    first, then the longest waiting."""
    waiting = Counter(turn.owner_id for turn in turns)
    return sorted(turns, key=lambda turn: (waiting[turn.owner_id], turn.waiting_since))


def _lock_key(game_id: Any) -> int:
    """The advisory lock's key for a game: the first 8 bytes of its id, as a signed bigint."""
    return int.from_bytes(uuid.UUID(str(game_id)).bytes[:8], "big", signed=True)


@contextmanager
def thinking_about(game_id: Any) -> Iterator[bool]:
    """Whether this worker may think for the game (no other worker is): held for the block."""
    if connection.vendor != "postgresql":
        yield True
        return
    key = _lock_key(game_id)
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s)", [key])
        (mine,) = cursor.fetchone()
    try:
        yield mine
    finally:
        if mine:
            try:
                with connection.cursor() as cursor:
                    cursor.execute("SELECT pg_advisory_unlock(%s)", [key])
            except DatabaseError:
                pass  # the connection is gone, and the lock with it


def slow_computer_move_play(
    *, game_id: Any, expected_ply: int, level: str | None = None
) -> Game | None:
    """Take a place in the lane of the slow computer `level` (None, as sent before there were
    lanes a level: every slow level): play the move of the fairest game waiting now (see the
    module), or of the game that sent this place (`game_id` at `expected_ply`) when the lane
    is empty. Returns the game moved, or None when there was nothing to do (or every game
    waiting is being thought about by another worker)."""
    turns = computer_turns_waiting(SLOW_LEVELS if level is None else {level})
    if not turns:
        return computer_move_play(game_id=game_id, expected_ply=expected_ply)
    for turn in fairest_first(turns):
        with thinking_about(turn.game_id) as mine:
            if mine:
                return computer_move_play(game_id=turn.game_id, expected_ply=turn.ply)
    return None
