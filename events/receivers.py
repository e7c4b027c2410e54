"""What the events do about a game: the receivers of `games.effects`, connected in
`EventsConfig.ready`. So games knows nothing of events."""

from __future__ import annotations

from typing import Any

from events import services
from games import effects
from games.models import Game, Seat


def game_finished(sender: Any, *, game: Game, seats: list[Seat], **kwargs: Any) -> tuple[str, ...]:
    """An event's table ended: the event may move on once the game's write commits (a task,
    so that seating the next round is not the last mover's wait). Sets no seat field."""
    services.game_finished(game_id=game.pk)
    return ()


def connect() -> None:
    effects.on_game_finished.connect(game_finished, dispatch_uid="events.game_finished")
