"""What ratings does about a change to a game: the receiver of `games.effects.game_finished`,
connected in `RatingsConfig.ready`. It runs inside the write that records the result, so the
ratings move exactly when the result is recorded, and roll back with it."""

from __future__ import annotations

from typing import Any

from games import effects
from games.models import Game, Seat
from ratings import services


def game_finished(sender: Any, *, game: Game, seats: list[Seat], **kwargs: Any) -> tuple[str, ...]:
    """Rate the game (once; an unrated game is left alone), setting each seat's rating before
    and after it; returns those seat fields, which the game's write saves with the seats."""
    services.game_rate(game=game, seats=seats)
    return services.SEAT_FIELDS


def connect() -> None:
    effects.on_game_finished.connect(game_finished, dispatch_uid="ratings.game_finished")
