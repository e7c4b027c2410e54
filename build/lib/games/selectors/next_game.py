"""A player's next game: the one that waits for their move and whose time runs out first."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import F

from games.models import Game
from games.selectors.turns import seats_to_move


def next_game_id(*, user_id: Any, exclude: Any = None) -> uuid.UUID | None:
    """Among the active games waiting for this player's move (not those the computer plays for
    them: after three timeouts, or once they resigned), the one whose deadline comes first; on a
    tie, the one that has waited longest (its last write is oldest). `exclude`: a game to leave
    out (the one the player is on). A player on vacation has their deadlines pushed back, so the
    order is still the order their clocks run out in. 1 query."""
    seats = seats_to_move().filter(
        user_id=user_id, autoplay=False, resigned_at__isnull=True, game__status=Game.Status.ACTIVE
    )
    if exclude is not None:
        seats = seats.exclude(game_id=exclude)
    return (
        seats.order_by(F("game__turn_deadline").asc(nulls_last=True), "game__updated_at", "game_id")
        .values_list("game_id", flat=True)
        .first()
    )


def game_still_waits_for(game: Game, user_id: Any) -> bool:
    """After the player's move, whether `game` (with its seats, as `services.move_submit`
    returns it) is still theirs to play, so that nothing moves them elsewhere: it is their turn
    again (a gray wall's tiling with more lines to tile, a new round they start), or only the
    computer plays the others, so that the turn comes back within seconds. No query."""
    if game.status != Game.Status.ACTIVE:
        return False
    state = game.engine_state()
    if state is None:
        return False
    mine = next((s for s in game.seat_list if s.user_id == user_id), None)
    if mine is None:
        return False
    if mine.position in state.to_move:
        return True
    return all(s.played_by_computer for s in game.seat_list if s.position != mine.position)
