"""What the events tell their players, through the one outbox (`notifications`): registration
confirmed, the event starting (or called off), a new round, the final standings. A game of the
event waiting for a player is the game's own news ("game started", "your turn"), told as for any
game. Called inside the event's write, so what is told commits or rolls back with it."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from events.models import Entry

ENTERED = "event_entered"
STARTED = "event_started"
CANCELLED = "event_cancelled"
NEW_ROUND = "event_round"
FINISHED = "event_finished"


def tell(*, kind: str, event: Any, recipient_ids: Iterable[Any]) -> None:
    """Tell `recipient_ids` of `kind` about `event` (at its current round), once each."""
    from notifications.services import notify_event

    recipients = sorted(set(recipient_ids))
    if kind in (CANCELLED, FINISHED) and recipients:
        # Those who left the event (withdrawn or removed) hear no more of it.
        recipients = sorted(
            Entry.objects.filter(
                event_id=event.pk, user_id__in=recipients, withdrawn_at__isnull=True
            ).values_list("user_id", flat=True)
        )
    if recipients:
        notify_event(
            recipient_ids=recipients,
            kind=kind,
            event_id=event.pk,
            round=event.current_round,
            context={"event": event.name},
        )
