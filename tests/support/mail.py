"""What the site emailed: the notification emails in Django's locmem outbox, and a mail server
that fails."""

from __future__ import annotations

import smtplib
from collections.abc import Callable
from typing import Any

from django.core import mail
from django.core.mail.backends.base import BaseEmailBackend


def sent(kind: str | None = None, to: Any = None) -> list[Any]:
    """The notification emails in the outbox, of `kind` and to the user `to` if given."""
    return [
        m
        for m in mail.outbox
        if "X-Azul-Notification" in m.extra_headers
        and (kind is None or m.extra_headers["X-Azul-Notification"] == kind)
        and (to is None or m.to == [to.email])
    ]


def forget_notifications() -> None:
    """Empty the outbox and the notification table: what came before is not under test."""
    from notifications.models import Notification

    Notification.objects.all().delete()
    mail.outbox.clear()


def only_these(notify_more: Callable[[], Any]) -> Any:
    """Run `notify_more()` (moves played to set a position up, say), then drop what it sent."""
    result = notify_more()
    forget_notifications()
    return result


class FailingBackend(BaseEmailBackend):
    """An SMTP server that drops the connection on every message."""

    attempts = 0

    def send_messages(self, email_messages):
        FailingBackend.attempts += 1
        raise smtplib.SMTPServerDisconnected("Connection unexpectedly closed")
