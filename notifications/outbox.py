"""The outbox: how every delivery of a notification goes out, on every channel (its email, a push
notice to each device, a call to each webhook), with nothing lost and nothing sent twice.

A notification is one `Notification` row, written in the transaction of the change it is about
(`services.notify`). Its deliveries are the outbox's rows, each with the same fields (`status`,
`attempts`, `send_after`, `claimed_until`, `sent_at`, `last_error`):

- the email is the notification row itself;
- each push notice and webhook call is a `ChannelDelivery` of it, written when the notification
  comes to be sent (`deliveries_create`, from the notification's own claim below: one per device
  and enabled webhook whose channel takes its kind, unique per notification and target, so a
  repeat writes nothing).

Every delivery, whatever its channel, goes one way (`notification_send`, `delivery_send`: one
`_send`):

1. claim: one compare-and-swap UPDATE (pending, due, no live claim) sets the claim and counts
   the attempt; only the call that claimed the row goes on, however many tasks and sweeps try;
2. check: whether it is still to go (the notification still true and unseen, the target still
   there, the kind still wanted on the channel); if not, the row is finished unsent (skipped,
   or an email held for the daily digest). The notification's own claim decides for the whole
   notification first (seen, obsolete, no longer true: nothing goes anywhere), and writes its
   push and webhook deliveries;
3. send: the channel's transport carries it (`deliver(row) -> Outcome`);
4. mark: sent, by id, on a new connection if the old one dropped during the send (else it would
   go again); or after a failure that passes (a busy or unreachable service, a failing mail
   server), pushed back by `retry_delay` (or the service's Retry-After) until NOTIFY_MAX_ATTEMPTS
   attempts, then failed; a target gone for good (a device's 410, no verified address) skips it.

A sender that dies between 3 and 4 leaves a claim that runs out, and the delivery goes again:
the one way a delivery goes twice (neither SMTP nor a push service can be asked whether a
message went, so this errs on the side of sending). A task lost with a broker that was down
loses nothing: the sweep (`due_send`) sends what is due and no task took.

The channels' transports (`TRANSPORTS`) are modules with `deliver(row) -> Outcome`,
`check(row)` (the channel's own reasons to finish a row unsent), `marked_sent(row, at)` (its
writes with the mark) and `failure_recorded(row, outcome, *, status, updated)` (its writes after
a failure).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from importlib import import_module
from types import ModuleType
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone

from core.outages.reconnect import write_with_reconnect
from core.tasks import send as send_task
from notifications import seen, selectors
from notifications.models import (
    Channel,
    ChannelDelivery,
    Notification,
    PushSubscription,
    Webhook,
    choice_of_kind,
)

logger = logging.getLogger(__name__)

Kind = Notification.Kind
# The statuses every row of the outbox has (a notification's also has "held", for the digest).
Status = ChannelDelivery.Status
HELD = Notification.Status.HELD

SEND_TASK = "notifications.tasks.send_notification"
SEND_EVENT_TASK = "notifications.tasks.send_event"
SEND_DELIVERY_TASK = "notifications.tasks.send_delivery"

# How long a sender owns a claimed row: well over the channel's timeouts (an email's SMTP
# conversation, EMAIL_TIMEOUT; a push service's or webhook's call, OUTBOUND_TIMEOUT_SECONDS), so
# that a slow send is never claimed again while it is still going.
CLAIM = {Notification: timedelta(minutes=5), ChannelDelivery: timedelta(minutes=2)}
ERROR_MAX_LENGTH = 2000
# The sweep leaves a row sent at once to its own task for this long after it was written.
SWEEP_LAG = timedelta(minutes=1)
DELIVERY_SWEEP_LAG = timedelta(seconds=30)
SWEEP_BATCH = 500
RETRY_FIRST = timedelta(minutes=1)
RETRY_LONGEST = timedelta(hours=2)

# Each channel's transport (a module: see the docstring), imported when a row of it is sent.
TRANSPORTS = {
    Channel.EMAIL: "notifications.email.transport",
    Channel.PUSH: "notifications.push.transport",
    Channel.WEBHOOK: "notifications.webhooks.transport",
}


@dataclass(frozen=True)
class Outcome:
    """What a channel made of one delivery.

    `sent`: the other side took it. Otherwise `error` says why, and `retry` whether the failure
    passes (the service was busy or down: tried again later, after `retry_after` if the service
    said so, else the backoff), `gone` whether the target is gone for good (a push service's 404
    or 410, no verified address for an email): the delivery is skipped, and nothing is tried
    again.

    For a sent delivery, `with_mark` is the channel's writes that go with its mark, in its
    transaction (an email's digest marks the rows it carried), and `after_mark` what is done once
    the mark is written (an email's connection to the mail server closed: closed earlier, its
    goodbye would widen the window where a killed sender sends it again).
    """

    sent: bool
    error: str = ""
    retry: bool = False
    gone: bool = False
    retry_after: timedelta | None = None
    with_mark: Any = None  # Callable[[datetime], None] | None
    after_mark: Any = None  # Callable[[], None] | None


SENT = Outcome(sent=True)


def retry_delay(attempts: int) -> timedelta:
    """How long to wait after the `attempts`-th failed attempt: 1, 2, 4, ... minutes, at most
    RETRY_LONGEST."""
    return min(RETRY_FIRST * 2 ** max(attempts - 1, 0), RETRY_LONGEST)


def skipped(reason: str) -> dict[str, Any]:
    """A row's changes to finish it unsent, and why."""
    return {"status": Status.SKIPPED, "last_error": reason}


def channel_of(row: Notification | ChannelDelivery) -> Channel:
    """The channel of a row of the outbox: a notification's own row is its email."""
    return Channel(row.channel) if isinstance(row, ChannelDelivery) else Channel.EMAIL


def transport_of(channel: str) -> ModuleType:
    return import_module(TRANSPORTS[Channel(channel)])


def _notification_of(row: Notification | ChannelDelivery) -> Notification:
    return row.notification if isinstance(row, ChannelDelivery) else row


# -- sending one ---------------------------------------------------------------------------------


def notification_send(*, notification_id: int) -> bool:
    """Send the notification (decide whether it goes at all, write its push and webhook
    deliveries, and send its email) if it is pending and due and this call claims it; True if
    this call sent its email. Harmless to call any number of times, at once or one after
    another."""
    return _send(Notification, notification_id, ("recipient__profile",))


def delivery_send(*, delivery_id: int) -> bool:
    """Send push notice or webhook call `delivery_id` if it is pending and due and this call
    claims it; True if this call sent it. Harmless to call any number of times."""
    return _send(
        ChannelDelivery,
        delivery_id,
        ("notification__recipient__profile", "push_subscription", "webhook"),
    )


def _send(model: Any, pk: int, related: tuple[str, ...]) -> bool:
    now = timezone.now()
    claimed = (
        model.objects.filter(pk=pk, status=Status.PENDING, send_after__lte=now)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .update(claimed_until=now + CLAIM[model], attempts=F("attempts") + 1)
    )
    if claimed != 1:
        return False
    row = model.objects.select_related(*related).get(pk=pk)
    channel = channel_of(row)
    transport = transport_of(channel)
    if (changes := _unsent(row, transport)) is not None:
        model.objects.filter(pk=pk, status=Status.PENDING).update(claimed_until=None, **changes)
        return False
    try:
        outcome = transport.deliver(row)
    except Exception as exc:  # a bug or an unforeseen fault of the channel: tried again
        logger.exception("%s %s (%s) raised", model.__name__, pk, channel)
        outcome = Outcome(sent=False, error=f"{type(exc).__name__}: {exc}", retry=True)
    if not outcome.sent:
        record_failure(row, outcome)
        return False
    try:
        # Nothing else is written between the answer and this mark.
        write_with_reconnect(lambda: _mark_sent(row, outcome, transport, at=timezone.now()))
    finally:
        if outcome.after_mark is not None:
            outcome.after_mark()
    return True


def _mark_sent(
    row: Notification | ChannelDelivery, outcome: Outcome, transport: ModuleType, *, at: datetime
) -> None:
    """The delivery went: marked by id alone (whatever happened to the row meanwhile, such as
    `services.turn_emails_skip`), with the channel's writes (its target's last success)."""
    with transaction.atomic():
        type(row).objects.filter(pk=row.pk).update(
            status=Status.SENT, sent_at=at, claimed_until=None, last_error=""
        )
        transport.marked_sent(row, at)
        if outcome.with_mark is not None:
            outcome.with_mark(at)


def record_failure(row: Notification | ChannelDelivery, outcome: Outcome) -> None:
    """A claimed row's attempt failed: skipped if its target is gone, failed for good if it
    may not be tried again, else pushed back by the backoff (no task with a countdown for the
    retry: the sweep sends it within a minute of its new time, and a broker holding a message
    for hours would redeliver it meanwhile)."""
    channel = channel_of(row)
    transport = transport_of(channel)
    error = outcome.error[:ERROR_MAX_LENGTH]
    mine = type(row).objects.filter(pk=row.pk, status=Status.PENDING)
    # An email's `sent_at` is cleared: an invitation that did not go holds no place in the
    # day's one (`email.transport`).
    changes: dict[str, Any] = {"last_error": error, "claimed_until": None}
    if channel == Channel.EMAIL:
        changes["sent_at"] = None
    notification = _notification_of(row)
    about = {"game_id": str(notification.game_id) if notification.game_id else None}
    # A failing email is the site's mail server: an alarm. A push service or a player's webhook
    # that fails is someone else's.
    loud = channel == Channel.EMAIL
    name = f"{type(row).__name__} {row.pk} ({channel})"
    if outcome.gone:
        status = Status.SKIPPED
    elif not outcome.retry or row.attempts >= settings.NOTIFY_MAX_ATTEMPTS:
        status = Status.FAILED
        logger.log(
            logging.ERROR if loud else logging.WARNING,
            "%s failed for good after %s attempts: %s",
            name,
            row.attempts,
            error,
            extra=about,
        )
    else:
        status = Status.PENDING
        delay = max(outcome.retry_after or timedelta(0), retry_delay(row.attempts))
        logger.log(
            logging.WARNING if loud else logging.INFO,
            "%s failed (attempt %s), retrying in %s: %s",
            name,
            row.attempts,
            delay,
            error,
            extra=about,
        )
        changes["send_after"] = timezone.now() + delay
    if status != Status.PENDING:
        changes["status"] = status
    updated = bool(mine.update(**changes))
    transport.failure_recorded(row, outcome, status=status, updated=updated)


# -- whether a row is still to go ----------------------------------------------------------------


def _unsent(row: Notification | ChannelDelivery, transport: ModuleType) -> dict[str, Any] | None:
    """The changes that finish a claimed row unsent, or None to send it."""
    if isinstance(row, Notification):
        # The notification's own claim decides for every channel: a notification seen,
        # obsolete or no longer true goes nowhere.
        if reason := _notification_stale(row):
            return skipped(reason)
        # The other channels take it now, whatever the email does (held, off, no address).
        deliveries_create(row)
        changes: dict[str, Any] | None = transport.check(row)
        return changes
    if (changes := transport.check(row)) is not None:
        return changes
    if reason := _delivery_stale(row):
        return skipped(reason)
    return None


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


def _notification_stale(notification: Notification) -> str:
    if seen.seen_since_written(notification):
        return seen.SEEN_REASON
    if notification.kind == Kind.INVITATION and (
        reason := selectors.invitation_obsolete(
            user_id=notification.recipient_id, game_id=notification.game_id
        )
    ):
        return reason
    return _no_longer_true(notification)


def _delivery_stale(delivery: ChannelDelivery) -> str:
    """Why a push notice or webhook call is no longer to go, or "": the player turned its kind
    off on its channel, or (checked again for one tried again later) what it says is no longer
    true."""
    notification = delivery.notification
    if not notification.recipient.is_active:
        return "The player's account is inactive."
    if choice_of_kind(notification.kind) not in selectors.channel_choices(
        user_id=notification.recipient_id, channel=delivery.channel
    ):
        return "The player turned this kind off for this channel."
    if delivery.attempts > 1:
        if seen.seen_since_written(notification):
            return seen.SEEN_REASON
        return _no_longer_true(notification)
    return ""


# -- writing a notification's deliveries on the channels beside the email ---------------------


def deliveries_create(notification: Notification) -> list[int]:
    """Write the push and webhook deliveries of `notification` (a notification that is due,
    still true and unseen), one per device or enabled webhook whose channel takes its kind, and
    send their tasks. Returns the ids of its deliveries still pending. A repeat writes nothing
    new. The digest is an email only."""
    choice = choice_of_kind(notification.kind)
    if choice is None:
        return []
    user_id = notification.recipient_id
    now = timezone.now()
    rows = []
    if choice in selectors.channel_choices(user_id=user_id, channel=Channel.PUSH):
        rows += [
            ChannelDelivery(
                notification=notification,
                channel=Channel.PUSH,
                push_subscription_id=pk,
                send_after=now,
            )
            for pk in PushSubscription.objects.filter(user_id=user_id).values_list("pk", flat=True)
        ]
    if choice in selectors.channel_choices(user_id=user_id, channel=Channel.WEBHOOK):
        rows += [
            ChannelDelivery(
                notification=notification, channel=Channel.WEBHOOK, webhook_id=pk, send_after=now
            )
            for pk in Webhook.objects.filter(user_id=user_id, enabled=True).values_list(
                "pk", flat=True
            )
        ]
    if rows:
        ChannelDelivery.objects.bulk_create(rows, ignore_conflicts=True)
    pending = list(
        ChannelDelivery.objects.filter(
            notification=notification, status=Status.PENDING
        ).values_list("pk", flat=True)
    )
    for pk in pending:
        transaction.on_commit(partial(enqueue, SEND_DELIVERY_TASK, pk))
    return pending


def enqueue(task: str, pk: int) -> None:
    """Send a row's task by name; one that cannot be sent now is left to the sweep."""
    if not send_task(task, [pk]):
        logger.warning("Could not send %s(%s); the sweep will send it.", task, pk)


# -- the sweep -----------------------------------------------------------------------------------


def due_send() -> int:
    """Send what came due and no task waits for, on every channel: rows out of their grace
    period or a retry's backoff, and those whose task was lost; how many went. The sweep's first
    step, and on its own the quick check between two sweeps of `manage.py sweep --every` (`make
    run`, which has no worker), so that there a "your turn" goes within seconds of its grace
    period's end, not at the next minute's sweep. Any number may run at once: each row is sent
    by the one call that claims it."""
    now = timezone.now()
    emails = selectors.due_ids(written_before=now - SWEEP_LAG, now=now, limit=SWEEP_BATCH)
    sent = sum(notification_send(notification_id=pk) for pk in emails)
    return sent + deliveries_sweep()


def deliveries_sweep() -> int:
    """Send the push notices and webhook calls still pending a little after they were due
    (their task was lost, or they wait out a backoff); how many went."""
    now = timezone.now()
    due = list(
        ChannelDelivery.objects.filter(
            status=Status.PENDING, send_after__lte=now - DELIVERY_SWEEP_LAG
        )
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .order_by("send_after")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    return sum(delivery_send(delivery_id=pk) for pk in due)


# -- what went, per channel (the chaos soak's count) --------------------------------------------


def rows_of(channel: str) -> Any:
    """The outbox's rows of one channel, as dicts (values()) of the same keys whatever the
    channel: `username`, `email` (the recipient's), `kind`, `game_id`, `status`, `send_after`,
    `claimed_until`, `sent_at`. What a count of deliveries per channel reads (the chaos soak):
    a row `sent` went (once, or again if its sender was killed between the send and the mark,
    after its claim ran out); one `pending` under a live claim is being sent, or its sender
    was killed; one `pending` and due with no live claim waits for the sweep."""
    fields = ("status", "send_after", "claimed_until", "sent_at")
    if Channel(channel) == Channel.EMAIL:
        return Notification.objects.values(
            *fields,
            "kind",
            "game_id",
            username=F("recipient__username"),
            email=F("recipient__email"),
        )
    return ChannelDelivery.objects.filter(channel=channel).values(
        *fields,
        username=F("notification__recipient__username"),
        email=F("notification__recipient__email"),
        kind=F("notification__kind"),
        game_id=F("notification__game_id"),
    )
