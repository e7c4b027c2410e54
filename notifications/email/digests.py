"""The daily digest: at 08:00 in each player's time zone, one email with the games waiting for
them and what they asked to be told once a day (the rows held for it), built by the sweep
(`notifications.services.sweep`) and sent as any notification is."""

from __future__ import annotations

import datetime
import zoneinfo
from collections import defaultdict
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import IntegrityError, transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import time_zone_names
from accounts.names import name_with_username
from games.models import Game
from games.presenters.lists import games_for_user
from notifications import seen
from notifications.email import selectors as email_selectors
from notifications.models import Notification

Kind = Notification.Kind
Status = Notification.Status

DIGEST_BATCH = 500


def digest_days(now: datetime.datetime) -> dict[datetime.date, list[str]]:
    """The time zones where it is now the digest hour (08:00-08:59), by their local date."""
    days: dict[datetime.date, list[str]] = defaultdict(list)
    for name in time_zone_names():
        local = now.astimezone(zoneinfo.ZoneInfo(name))
        if local.hour == settings.NOTIFY_DIGEST_HOUR:
            days[local.date()].append(name)
    return days


def digests_build() -> list[int]:
    """Build the digests due now: for each player whose local time is in the digest hour, with
    the digest on, none for today yet, and a game waiting for them or something held for the
    digest. Returns the new digests' ids (pending, due now).

    The digest goes in the first sweep of the digest hour. A day the sweep misses that whole
    hour has no digest: what was held goes in the next one.
    """
    now = timezone.now()
    built = []
    for local_date, zones in digest_days(now).items():
        recipients = email_selectors.digest_recipients(
            time_zones=zones, local_date=local_date, limit=DIGEST_BATCH
        )
        for user_id in recipients:
            digest_id = _digest_create(user_id=user_id, local_date=local_date, now=now)
            if digest_id is not None:
                built.append(digest_id)
    return built


def _digest_game(summary: dict[str, Any]) -> dict[str, Any]:
    deadline = summary["turn_deadline"]
    return {
        "id": str(summary["id"]),
        # Named as every email names players: "Alice L. (@alice)".
        "opponents": [
            name_with_username(p["display_name"], p["username"] or "")
            for p in summary["players"]
            if not p["is_viewer"]
        ],
        "deadline": deadline.isoformat() if deadline else None,
    }


def _digest_drop_seen(held: QuerySet[Notification]) -> None:
    """Skip the held "your turn" and reminder emails whose game the player has seen since they
    were written: the digest does not carry them."""
    rows = list(
        held.filter(kind__in=seen.SEEN_KINDS).values_list(
            "pk", "recipient_id", "game_id", "created_at"
        )
    )
    dropped = seen.seen_since_written_ids(rows)
    if dropped:
        held.filter(pk__in=dropped).update(status=Status.SKIPPED, last_error=seen.SEEN_REASON)


def _digest_create(
    *, user_id: Any, local_date: datetime.date, now: datetime.datetime
) -> int | None:
    """The player's digest for `local_date`, carrying what is held for it; None when there is
    nothing for one after all, or another sweep built it first (the unique (recipient, day)
    constraint decides)."""
    user = get_user_model().objects.get(pk=user_id)
    waiting = games_for_user(user=user, status=Game.Status.ACTIVE)["my_turn"]
    with transaction.atomic():
        held = Notification.objects.filter(
            recipient_id=user_id, status=Status.HELD, digest__isnull=True
        )
        _digest_drop_seen(held)
        if not waiting and not held.exists():
            return None
        try:
            with transaction.atomic():  # a savepoint: the constraint may refuse the row
                digest = Notification.objects.create(
                    recipient_id=user_id,
                    kind=Kind.DIGEST,
                    digest_date=local_date,
                    status=Status.PENDING,
                    send_after=now,
                    context={"games": [_digest_game(g) for g in waiting]},
                )
        except IntegrityError:
            return None  # another sweep built today's digest first
        digest_id = digest.pk
        held.update(digest_id=digest_id)
    return digest_id
