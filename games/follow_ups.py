"""The computer-move task a write to a game asks for once it commits, by name and queue
(`core.tasks.send_on_commit`).

Sending may fail (the broker is down or hung): the write has committed and stays, and the
periodic sweep (`games.sweeps`) finds what is still to be done in the database and sends it then.
"""

from __future__ import annotations

COMPUTER_MOVE = "games.tasks.computer_move"
SLOW_COMPUTER_MOVE = "games.tasks.slow_computer_move"

SLOW_MOVES_QUEUE = "slow_moves"
MASTER_MOVES_QUEUE = "master_moves"

SLOW_LANES = {"strong": SLOW_MOVES_QUEUE, "master": MASTER_MOVES_QUEUE}
"""Computer levels that think for a second or more a move, and the queue of each: their moves
never hold up the quick levels' moves in other games (`make abuse` measured one player's ten
`strong` games holding another player's `greedy` reply at 2.7 s when they shared a queue), and
`master`'s four seconds never hold up `strong`'s one. Each queue is a lane fair between players
(`games.services.moves`, the slow lane), served by a worker of its own."""
SLOW_LEVELS = frozenset(SLOW_LANES)


def computer_move_task(level: str) -> tuple[str, str | None, tuple[str, ...]]:
    """The task (its name), queue (None: the task's route) and the task's arguments besides the
    game and ply, for a computer move at `level`. A slow level's task takes a place in its
    level's lane rather than the move of the game that sent it."""
    if level in SLOW_LANES:
        return SLOW_COMPUTER_MOVE, SLOW_LANES[level], (level,)
    return COMPUTER_MOVE, None, ()
