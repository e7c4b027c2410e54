"""Signed one-click unsubscribe links: who and which kind, with no login needed."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.urls import reverse

from notifications.models import Notification

SALT = "notifications.unsubscribe"


class BadToken(Exception):
    """The link was altered, has expired, or names something that is not a kind of email."""


def unsubscribe_token(*, user_id: Any, kind: str) -> str:
    """A token that turns `kind` off for this user; it carries a timestamp for its expiry."""
    return signing.dumps([user_id, str(kind)], salt=SALT)


def unsubscribe_url(*, user_id: Any, kind: str) -> str:
    """The absolute unsubscribe link, for emails (which have no request to build one from)."""
    token = unsubscribe_token(user_id=user_id, kind=kind)
    return settings.SITE_URL + reverse("notifications:unsubscribe", args=[token])


def unsubscribe_token_read(token: str) -> tuple[Any, Notification.Kind]:
    """The (user id, kind) a token was made for; BadToken if tampered with or expired."""
    max_age = timedelta(days=settings.NOTIFY_UNSUBSCRIBE_MAX_AGE_DAYS)
    try:
        user_id, kind = signing.loads(token, salt=SALT, max_age=max_age)
        return user_id, Notification.Kind(kind)
    except (signing.BadSignature, ValueError, TypeError) as exc:
        # SignatureExpired is a BadSignature; a value that does not unpack is a bad token too.
        raise BadToken(str(exc)) from None
