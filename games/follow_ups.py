"""The computer-move task a write to a game asks for once it commits, by name and queue
(`core.tasks.send_on_commit`).

Sending may fail (the broker is down or hung): the write has committed and stays, and the
periodic sweep (`games.sweeps`) finds what is still to be done in the database and sends it then.
"""

from __future__ import annotations

COMPUTER_MOVE = "games.tasks.computer_move"

SLOW_LEVELS = frozenset({"strong", "master"})
"""Computer levels that think for a second or more a move: their moves go to a queue of their
own (`SLOW_MOVES_QUEUE`, served by its own worker), so that they never hold up the quick levels'
moves in other games. `strong` is among them since `make abuse` measured one player's ten
`strong` games (within their cap) holding another player's `greedy` reply at 2.7 s."""
SLOW_MOVES_QUEUE = "slow_moves"


def computer_move_queue(level: str) -> str | None:
    """The queue for a computer move at `level`: None is the default queue."""
    return SLOW_MOVES_QUEUE if level in SLOW_LEVELS else None
