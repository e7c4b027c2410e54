"""The short form of a notification that a push notice or a webhook carries: a title, a line,
the game's link (the event's page for an event's kinds) and the one-click link that turns the
kind off on that channel. In the recipient's language, from the email's subject
(`content.subject`), and with nothing the recipient may not see (no future draws, nothing of
another player's that is hidden)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.urls import reverse

from notifications import tokens
from notifications.email import content
from notifications.models import Notification


@dataclass(frozen=True)
class ShortMessage:
    kind: str
    title: str
    body: str
    # The game's page (absolute), the event's for an event's kinds, or the site's home for
    # what is about neither.
    url: str
    game_id: str | None
    # The link that turns this kind off on this channel (POST, or GET to be asked).
    turn_off_url: str

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "title": self.title,
            "body": self.body,
            "url": self.url,
            "game_id": self.game_id,
            "turn_off_url": self.turn_off_url,
        }


def short_message(notification: Notification, *, channel: str) -> ShortMessage:
    """`notification` (its recipient and profile loaded) as a push notice or a webhook says it."""
    subject = content.subject(notification)
    game_id = str(notification.game_id) if notification.game_id else None
    if game_id:
        url = settings.SITE_URL + reverse("games:detail", args=[game_id])
    elif notification.event_ref is not None:
        url = content.event_url(notification.event_ref)
    else:
        url = settings.SITE_URL + "/"
    return ShortMessage(
        kind=notification.kind,
        title=settings.SITE_NAME,
        body=subject,
        url=url,
        game_id=game_id,
        turn_off_url=tokens.unsubscribe_url(
            user_id=notification.recipient_id, kind=notification.kind, channel=channel
        ),
    )
