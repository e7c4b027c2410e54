"""What the events tell their players, through the one outbox (`notifications`): registration
confirmed, the event starting (or called off), a new round, the final standings. A game of the
event waiting for a player is the game's own news ("game started", "your turn"), told as for any
game. Called inside the event's write, so what is told commits or rolls back with it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

ENTERED = "event_entered"
STARTED = "event_started"
CANCELLED = "event_cancelled"
NEW_ROUND = "event_round"
FINISHED = "event_finished"


def tell(*, kind: str, event: Any, recipient_ids: Iterable[Any]) -> None:
    """Tell `recipient_ids` of `kind` about `event` (at its current round), once each."""
    from notifications.services import notify_event

    recipients = sorted(set(recipient_ids))
    if recipients:
        notify_event(
            recipient_ids=recipients,
            kind=kind,
            event_id=event.pk,
            round=event.current_round,
            context={"event": event.name},
        )
