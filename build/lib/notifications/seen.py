"""Whether a player has seen a game since an email about it was written: a "your turn" or a
reminder only asks them to look at the game, and is not needed once they have.

Seeing a game is a page's GET (`games.effects.game_viewed`), which writes no row: the mark is
kept in the cache. The cache is a helper, never the only copy of anything that must last: if a
mark is lost (Redis down, restarted or full), the email simply goes, one the player did not
need, and that is acceptable.
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any

from django.core.cache import cache
from django.utils import timezone

from notifications.models import Notification

# The kinds of email that only ask the player to look at the game.
SEEN_KINDS = (
    Notification.Kind.YOUR_TURN,
    Notification.Kind.REMINDER,
    Notification.Kind.CHAT_MESSAGE,
)
SEEN_REASON = "The player saw the game first."
# How long a mark is kept: longer than any such email waits (its grace period, or a day held for
# the digest).
SEEN_SECONDS = 2 * 24 * 60 * 60


def _key(user_id: Any, game_id: Any) -> str:
    return f"notifications:seen:{user_id}:{game_id}"


def game_viewed_mark(*, user_id: Any, game_id: Any) -> None:
    """The player has the game in front of them: their "your turn" and reminder emails about it
    written before now are skipped when they come to be sent (`seen_since_written`), or to be
    carried into a digest (`seen_since_written_ids`)."""
    cache.set(_key(user_id, game_id), timezone.now(), SEEN_SECONDS)


def seen_since_written(notification: Notification) -> bool:
    """A "your turn" or reminder whose player has seen the game since it was written."""
    if notification.kind not in SEEN_KINDS:
        return False
    seen_at = cache.get(_key(notification.recipient_id, notification.game_id))
    return seen_at is not None and seen_at > notification.created_at


def seen_since_written_ids(
    rows: Iterable[tuple[int, Any, Any, datetime.datetime]],
) -> list[int]:
    """Of the notifications (id, recipient id, game id, written at), the ids of those whose
    player has seen the game since they were written (one cache read)."""
    rows = list(rows)
    marks = cache.get_many([_key(user_id, game_id) for _, user_id, game_id, _ in rows])
    return [
        pk
        for pk, user_id, game_id, written in rows
        if (seen_at := marks.get(_key(user_id, game_id))) is not None and seen_at > written
    ]
