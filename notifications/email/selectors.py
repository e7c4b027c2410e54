"""Reads of the email channel: who is due a digest, and whether an invitation email from the
same player went lately."""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

from django.db.models import Exists, OuterRef, Subquery

from accounts.models import Profile
from games.models import Game
from notifications.models import Notification
from notifications.selectors import waiting_seats


def digest_recipients(
    *, time_zones: Iterable[str], local_date: datetime.date, limit: int
) -> list[Any]:
    """Ids of active players in these time zones with the digest on who have no digest for
    `local_date` yet and have something for one: a game waiting for them or a notification held
    for the digest (one query)."""
    user = OuterRef("user_id")
    waiting = waiting_seats().filter(user_id=user)
    held = Notification.objects.filter(
        recipient_id=user, status=Notification.Status.HELD, digest__isnull=True
    )
    done = Notification.objects.filter(
        recipient_id=user, kind=Notification.Kind.DIGEST, digest_date=local_date
    )
    return list(
        Profile.objects.filter(
            email_digest=True, time_zone__in=list(time_zones), user__is_active=True
        )
        .filter(Exists(waiting) | Exists(held))
        .exclude(Exists(done))
        .order_by("user_id")
        .values_list("user_id", flat=True)[:limit]
    )


def invitation_emailed_since(*, notification: Notification, since: datetime.datetime) -> bool:
    """Whether another invitation email from the same player (the creator of the game: for a
    rematch, the player who asked for it) to the same recipient went, or is going, since
    `since` (its `sent_at`, set when it is claimed to go: `email.transport`)."""
    assert notification.game_id is not None, "an invitation is about a game"
    return (
        Notification.objects.filter(
            kind=Notification.Kind.INVITATION,
            recipient_id=notification.recipient_id,
            game__created_by_id=Subquery(
                Game.objects.filter(pk=notification.game_id).values("created_by_id")[:1]
            ),
            sent_at__gte=since,
        )
        .exclude(pk=notification.pk)
        .exists()
    )
