"""Sending one notification: claim its row (a compare-and-swap UPDATE, so that it goes once
however many tasks and sweeps try), read the recipient's choice for its kind then, send, and mark
it sent, or after a failure push it back (exponential backoff) until it is marked failed. See
`notifications.services` for the whole way a notification goes."""

from __future__ import annotations

import contextlib
import logging
from datetime import datetime, timedelta

from allauth.account.models import EmailAddress
from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.mail import get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from accounts.models import Delivery
from core.ops import metrics
from core.outages.reconnect import write_with_reconnect
from notifications import deliveries, emails, seen, selectors
from notifications.backoff import retry_delay
from notifications.models import PREFERENCE_FIELDS, Notification

logger = logging.getLogger(__name__)

Kind = Notification.Kind
Status = Notification.Status

# How long a sender owns a claimed row: well over the SMTP timeout (EMAIL_TIMEOUT), so that a
# slow send is never claimed again while it is still going.
CLAIM = timedelta(minutes=5)
ERROR_MAX_LENGTH = 2000
# At most one invitation email from one player to another in this time, whatever the games: the
# others still show on the site (home page, "My games").
INVITATION_EMAIL_EVERY = timedelta(hours=24)
INVITATION_DAILY_REASON = "An invitation email from the same player went less than a day ago."

# -- sending -------------------------------------------------------------------------------------


def notification_send(*, notification_id: int) -> bool:
    """Send the notification if it is pending and due and this call claims it; True if this call
    sent it. Harmless to call any number of times, at once or one after another."""
    now = timezone.now()
    claimed = (
        Notification.objects.filter(pk=notification_id, status=Status.PENDING, send_after__lte=now)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .update(claimed_until=now + CLAIM, attempts=F("attempts") + 1)
    )
    if claimed != 1:
        return False
    notification = Notification.objects.select_related("recipient__profile").get(pk=notification_id)
    if seen.seen_since_written(notification):
        Notification.objects.filter(pk=notification_id, status=Status.PENDING).update(
            status=Status.SKIPPED, last_error=seen.SEEN_REASON, claimed_until=None
        )
        return False
    if notification.kind == Kind.INVITATION and (
        reason := selectors.invitation_obsolete(
            user_id=notification.recipient_id, game_id=notification.game_id
        )
    ):
        Notification.objects.filter(pk=notification_id, status=Status.PENDING).update(
            status=Status.SKIPPED, last_error=reason, claimed_until=None
        )
        return False
    if reason := _no_longer_true(notification):
        Notification.objects.filter(pk=notification_id, status=Status.PENDING).update(
            status=Status.SKIPPED, last_error=reason, claimed_until=None
        )
        return False
    # The other channels take it now, whatever the email does (held, off, no address).
    deliveries.deliveries_create(notification)
    if _held_for_digest(notification):
        Notification.objects.filter(pk=notification_id, status=Status.PENDING).update(
            status=Status.HELD, send_after=None, claimed_until=None
        )
        return False
    address, reason = _address_for(notification)
    if address is None:
        Notification.objects.filter(pk=notification_id, status=Status.PENDING).update(
            status=Status.SKIPPED, last_error=reason, claimed_until=None
        )
        return False
    if notification.kind == Kind.INVITATION and not _first_invitation_today(notification):
        Notification.objects.filter(pk=notification_id, status=Status.PENDING).update(
            status=Status.SKIPPED, last_error=INVITATION_DAILY_REASON, claimed_until=None
        )
        return False
    mail_server = None
    try:
        email = emails.build(notification, to=address)
        # Opened here, and closed only once the row is marked sent: a process killed after the
        # server took the email and before the mark sends it again once the claim runs out, and
        # the goodbye (QUIT, up to EMAIL_TIMEOUT) stays out of that window.
        mail_server = get_connection()
        mail_server.open()
        mail_server.send_messages([email.message])
    except Exception as exc:
        # Whatever failed (the SMTP server, the connection, the rendering) fails this attempt.
        _close(mail_server)
        _record_failure(notification, exc)
        return False
    try:
        # On a new connection if the old one dropped during the SMTP conversation: else the
        # email would go again once the claim runs out.
        write_with_reconnect(
            lambda: _mark_sent(notification, carried_ids=email.carried_ids, at=timezone.now())
        )
    finally:
        _close(mail_server)
    return True


def _mark_sent(notification: Notification, *, carried_ids: list[int], at: datetime) -> None:
    with transaction.atomic():
        # By id alone: the email went, whatever happened to the row meanwhile
        # (turn_emails_skip).
        Notification.objects.filter(pk=notification.pk).update(
            status=Status.SENT, sent_at=at, claimed_until=None, last_error=""
        )
        if notification.kind == Kind.DIGEST:
            carried = Notification.objects.filter(status=Status.HELD, digest_id=notification.pk)
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
        if selectors.invitation_emailed_since(
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


def _no_longer_true(notification: Notification) -> str:
    """Why the notification is to go nowhere, or "": the player left, or has moved since (a
    "your turn" or a reminder that is no longer true)."""
    if not notification.recipient.is_active:
        return "The player's account is inactive."
    if notification.kind in (Kind.YOUR_TURN, Kind.REMINDER) and not selectors.still_to_move(
        user_id=notification.recipient_id, game_id=notification.game_id, since_ply=notification.ply
    ):
        return "The player has moved since."
    return ""


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


def _record_failure(notification: Notification, exc: Exception) -> None:
    error = f"{type(exc).__name__}: {exc}"[:ERROR_MAX_LENGTH]
    mine = Notification.objects.filter(pk=notification.pk, status=Status.PENDING)
    about = {"game_id": str(notification.game_id) if notification.game_id else None}
    if notification.attempts >= settings.NOTIFY_MAX_ATTEMPTS:
        logger.error(
            "Notification %s failed for good after %s attempts: %s",
            notification.pk,
            notification.attempts,
            error,
            extra=about,
        )
        if mine.update(status=Status.FAILED, last_error=error, claimed_until=None, sent_at=None):
            metrics.OUTBOX_FAILURES.labels(kind=notification.kind).inc()
        return
    delay = retry_delay(notification.attempts)
    logger.warning(
        "Notification %s failed (attempt %s), retrying in %s: %s",
        notification.pk,
        notification.attempts,
        delay,
        error,
        extra=about,
    )
    # No task with a countdown for the retry: the sweep sends it (within a minute of its new
    # time), and a broker holding a message for hours would redeliver it meanwhile.
    # `sent_at` cleared: an invitation that did not go holds no place in the day's one
    # (`_first_invitation_today`).
    mine.update(
        send_after=timezone.now() + delay, last_error=error, claimed_until=None, sent_at=None
    )
