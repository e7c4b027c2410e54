"""Signed one-click unsubscribe links: who and which kind, with no login needed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.urls import reverse

from notifications.models import Channel, Notification

SALT = "notifications.unsubscribe"


class BadToken(Exception):
    """The link was altered, has expired, or names something that is not a kind of email."""


def unsubscribe_token(*, user_id: Any, kind: str, channel: str = Channel.EMAIL) -> str:
    """A token that turns `kind` off for this user on `channel` (email, push or webhook); it
    carries a timestamp for its expiry. An email's token keeps the shape of those sent before
    channels existed."""
    payload = [user_id, str(kind)] if channel == Channel.EMAIL else [user_id, str(kind), channel]
    return signing.dumps(payload, salt=SALT)


def unsubscribe_url(*, user_id: Any, kind: str, channel: str = Channel.EMAIL) -> str:
    """The absolute unsubscribe link, for messages (which have no request to build one from)."""
    token = unsubscribe_token(user_id=user_id, kind=kind, channel=channel)
    return settings.SITE_URL + reverse("notifications:unsubscribe", args=[token])


def unsubscribe_token_read(token: str) -> tuple[Any, Notification.Kind]:
    """The (user id, kind) a token was made for; BadToken if tampered with or expired."""
    user_id, kind, _channel = unsubscribe_target_read(token)
    return user_id, kind


def unsubscribe_target_read(token: str) -> tuple[Any, Notification.Kind, Channel]:
    """The (user id, kind, channel) a token was made for; BadToken if tampered with or
    expired."""
    max_age = timedelta(days=settings.NOTIFY_UNSUBSCRIBE_MAX_AGE_DAYS)
    try:
        user_id, kind, *rest = signing.loads(token, salt=SALT, max_age=max_age)
        channel = Channel(rest[0]) if rest else Channel.EMAIL
        if len(rest) > 1:
            raise ValueError("too many parts")
        return user_id, Notification.Kind(kind), channel
    except (signing.BadSignature, ValueError, TypeError) as exc:
        # SignatureExpired is a BadSignature; a value that does not unpack is a bad token too.
        raise BadToken(str(exc)) from None
