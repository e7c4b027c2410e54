"""A player's calendar feed (`models.CalendarFeed`): its secret address made, made anew (the
old one stops working at once) and turned off. Only the player acts on their own feed: the
settings page's forms name no feed, they act on the signed-in player's."""

from __future__ import annotations

import secrets
from typing import Any

from django.utils import timezone

from accounts.models import User
from games.models import CalendarFeed
from games.selectors.calendar import token_digest

TOKEN_BYTES = 32
"""The token's randomness: 256 bits, 43 characters of URL-safe base64."""


def calendar_feed_renew(*, user: User) -> CalendarFeed:
    """Give `user`'s feed a new secret address: the first one, or one that replaces the old,
    which answers 404 from the moment this commits."""
    token = secrets.token_urlsafe(TOKEN_BYTES)
    feed, _created = CalendarFeed.objects.update_or_create(
        user=user,
        defaults={"token": token, "digest": token_digest(token), "created_at": timezone.now()},
    )
    return feed


def calendar_feed_turn_off(*, user: User) -> bool:
    """`user`'s feed has no address any more (the old one answers 404); whether there was one."""
    deleted, _by_model = CalendarFeed.objects.filter(user=user).delete()
    return bool(deleted)


def player_calendar_feed_forget(*, user_id: Any) -> None:
    """A player deletes their account: their feed goes (their row stays, marked deleted)."""
    CalendarFeed.objects.filter(user_id=user_id).delete()
