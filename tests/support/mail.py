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


def send_now(user: Any, kind: str, game: Any, callbacks: Any, **context: Any) -> Any:
    """Notify `user` of `kind` about `game` and send it at once (a "your turn" skips its grace
    period here); the email sent. `callbacks` is `django_capture_on_commit_callbacks`."""
    from notifications import outbox, services
    from notifications.models import Notification

    with callbacks(execute=True):
        services.notify(
            recipient_id=user.pk, kind=kind, game_id=game.id, ply=game.ply, context=context
        )
    row = Notification.objects.get(recipient=user, kind=kind, game=game)
    if row.status == "pending":
        Notification.objects.filter(pk=row.pk).update(send_after=row.created_at)
        outbox.notification_send(notification_id=row.pk)
    [message] = [m for m in sent(kind) if m.to == [user.email]]
    return message


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
