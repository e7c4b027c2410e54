"""A player's calendar feed (`models.CalendarFeed`): the feed of the signed-in player, the feed
an address names, and the games it lists, each in a fixed number of queries."""

from __future__ import annotations

import hashlib
import hmac
import re
from typing import Any

from accounts.models import User
from games.models import CalendarFeed, Game
from games.selectors.turns import seats_to_move

TOKEN_PATTERN = re.compile(r"[A-Za-z0-9_-]{32,64}")
"""What a token looks like (`secrets.token_urlsafe`): anything else is no feed's, unread."""

CALENDAR_GAMES_LIMIT = 500
"""At most this many games in a feed (a player has far fewer in progress at once)."""


def token_digest(token: str) -> str:
    """What a feed is found by (`CalendarFeed.digest`)."""
    return hashlib.sha256(token.encode()).hexdigest()


def calendar_feed_of(*, user: User) -> CalendarFeed | None:
    """`user`'s feed, None when they have none (1 query)."""
    return CalendarFeed.objects.filter(user_id=user.pk).first()


def calendar_feed_find(token: str) -> CalendarFeed | None:
    """The feed whose address holds `token`, with its player and their profile; None for a
    token that is no active player's (1 query, none for a token of the wrong shape). Found by
    the token's digest, then the token compared in constant time."""
    if not TOKEN_PATTERN.fullmatch(token):
        return None
    feed = (
        CalendarFeed.objects.select_related("user__profile")
        .filter(digest=token_digest(token), user__is_active=True, user__deleted_at__isnull=True)
        .first()
    )
    if feed is None or not hmac.compare_digest(feed.token.encode(), token.encode()):
        return None
    return feed


def calendar_games(*, user_id: Any) -> list[Game]:
    """The games in progress that wait for this player's move, soonest deadline first, with
    their seats and players (`seat_list`): 2 queries, whatever their number. A seat the
    computer plays for its player (after timeouts, or a resignation) waits for nobody, and a
    turn without a deadline has nothing to put in a calendar. The games' states are not read:
    the feed shows none of it."""
    waiting = (
        seats_to_move()
        .filter(user_id=user_id, autoplay=False, game__status=Game.Status.ACTIVE)
        .values("game_id")
    )
    return list(
        Game.objects.filter(pk__in=waiting, turn_deadline__isnull=False)
        .with_seats()
        .defer("state")
        .order_by("turn_deadline", "id")[:CALENDAR_GAMES_LIMIT]
    )
