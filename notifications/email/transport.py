"""The email channel's transport in the outbox (`notifications.outbox`): a notification's email
is its own row, claimed, marked and tried again as every delivery is. Here is what is the
email's own: the recipient's choice for the kind read when it is due ("digest" holds the row for
the daily digest, "never" skips it), the verified address it goes to, at most one invitation a
day from the same player, and the SMTP conversation."""

from __future__ import annotations

import contextlib
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from allauth.account.models import EmailAddress
from django.contrib.auth import get_user_model
from django.core.mail import get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.db import transaction
from django.utils import timezone

from accounts.models import Delivery
from core.ops import metrics
from notifications.email import content
from notifications.email import selectors as email_selectors
from notifications.models import PREFERENCE_FIELDS, Notification
from notifications.outbox import HELD, Outcome, Status

Kind = Notification.Kind

# At most one invitation email from one player to another in this time, whatever the games: the
# others still show on the site (home page, "My games").
INVITATION_EMAIL_EVERY = timedelta(hours=24)
INVITATION_DAILY_REASON = "An invitation email from the same player went less than a day ago."


def check(notification: Notification) -> dict[str, Any] | None:
    """Held for the digest if the player wants this kind in it, else None (to send)."""
    if _held_for_digest(notification):
        return {"status": HELD, "send_after": None}
    return None


def deliver(notification: Notification) -> Outcome:
    """Send the email to the recipient's verified address; whatever fails (the SMTP server, the
    connection, the rendering) fails this attempt, and is tried again."""
    address, reason = _address_for(notification)
    if address is None:
        return Outcome(sent=False, error=reason, gone=True)
    if notification.kind == Kind.INVITATION and not _first_invitation_today(notification):
        return Outcome(sent=False, error=INVITATION_DAILY_REASON, gone=True)
    mail_server = None
    try:
        email = content.build(notification, to=address)
        # Opened here, and closed only once the row is marked sent (`after_mark`): a process
        # killed after the server took the email and before the mark sends it again once the
        # claim runs out, and the goodbye (QUIT, up to EMAIL_TIMEOUT) stays out of that window.
        mail_server = get_connection()
        mail_server.open()
        mail_server.send_messages([email.message])
    except Exception as exc:
        _close(mail_server)
        return Outcome(sent=False, error=f"{type(exc).__name__}: {exc}", retry=True)
    return Outcome(
        sent=True,
        with_mark=partial(_carried_sent, notification, email.carried_ids),
        after_mark=partial(_close, mail_server),
    )


def marked_sent(notification: Notification, at: datetime) -> None:
    """Nothing of the email's own beside its row's mark (a digest's is its `with_mark`)."""


def failure_recorded(
    notification: Notification, outcome: Outcome, *, status: str, updated: bool
) -> None:
    if status == Status.FAILED and updated:
        metrics.OUTBOX_FAILURES.labels(kind=notification.kind).inc()


def _carried_sent(notification: Notification, carried_ids: list[int], at: datetime) -> None:
    """A digest went: the rows held for it that it listed went with it."""
    if notification.kind != Kind.DIGEST:
        return
    carried = Notification.objects.filter(status=HELD, digest_id=notification.pk)
    carried.filter(pk__in=carried_ids).update(status=Status.SENT, sent_at=at)
    # Held for this digest, but of a kind turned off since: left out of it, and done.
    carried.update(status=Status.SKIPPED, last_error="The player turned this kind off.")


def _close(mail_server: BaseEmailBackend | None) -> None:
    """Say goodbye to the mail server: a failure then changes nothing (the email went or did
    not, as the server said already)."""
    if mail_server is not None:
        with contextlib.suppress(OSError):
            mail_server.close()


def _first_invitation_today(notification: Notification) -> bool:
    """Whether this invitation email may go: no other from the same player to the recipient
    went (or is going) in the last INVITATION_EMAIL_EVERY. If so, the row takes its place at
    once (`sent_at`, while it is still pending), under a lock on the recipient's row, so that
    two invitations sent at the same moment cannot both go. Held in the database: it holds with
    the cache down."""
    now = timezone.now()
    with transaction.atomic():
        get_user_model().objects.select_for_update().filter(
            pk=notification.recipient_id
        ).values_list("pk").first()
        if email_selectors.invitation_emailed_since(
            notification=notification, since=now - INVITATION_EMAIL_EVERY
        ):
            return False
        Notification.objects.filter(pk=notification.pk).update(sent_at=now)
    return True


def _held_for_digest(notification: Notification) -> bool:
    """The player wants this kind in the daily digest (and gets the digest)."""
    field = PREFERENCE_FIELDS.get(Kind(notification.kind))
    if field is None:  # the digest, and notices about the account (a webhook turned off)
        return False
    profile = notification.recipient.profile
    delivery = getattr(profile, field)
    return delivery == Delivery.DIGEST and profile.email_digest


def _address_for(notification: Notification) -> tuple[str | None, str]:
    """Where to send the email, or None and why not: the player has since turned the kind off,
    or has no verified address (mail goes only to addresses their owner confirmed)."""
    recipient = notification.recipient
    profile = recipient.profile
    if notification.kind == Kind.DIGEST:
        if not profile.email_digest:
            return None, "The player turned the digest off."
    elif (field := PREFERENCE_FIELDS.get(Kind(notification.kind))) is not None and getattr(
        profile, field
    ) != Delivery.IMMEDIATELY:
        # A kind with no choice (a webhook turned off) tells of the account: it always goes.
        return None, "The player turned this kind of email off."
    address = (
        EmailAddress.objects.filter(user_id=recipient.pk, verified=True)
        .order_by("-primary", "id")
        .values_list("email", flat=True)
        .first()
    )
    if address is None:
        return None, "The player has no verified email address."
    return address, ""
