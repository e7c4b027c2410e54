"""Push notices and webhook calls: the channels beside the email, as `ChannelDelivery` rows of one
notification.

A notification is still one row, written in the transaction of the change it is about
(`services.notify`). When it comes to be sent (`sending.notification_send`, after its grace
period, and only if it is still true and unseen), `deliveries_create` writes one delivery per
device and webhook of the recipient's that takes its kind (`ChannelChoice`): a repeat writes
nothing (unique per notification and target). Each delivery is then claimed and sent once as the
email is (`delivery_send`, a compare-and-swap UPDATE), by its task or by the sweep
(`deliveries_sweep`) when the task was lost; a failure the channel calls passing (a 429, a 5xx, a
timeout) is tried again with the email's backoff, up to NOTIFY_MAX_ATTEMPTS.

A channel is a module with a `deliver(delivery) -> Outcome` (`notifications.push`,
`notifications.webhooks`), looked up in CHANNEL_SENDERS.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F, Q
from django.utils import timezone
from django.utils.module_loading import import_string

from core.outages.reconnect import write_with_reconnect
from core.tasks import send
from notifications import seen, selectors
from notifications.backoff import retry_delay
from notifications.models import (
    Channel,
    ChannelChoice,
    ChannelDelivery,
    Notification,
    PushSubscription,
    Webhook,
    choice_of_kind,
)

logger = logging.getLogger(__name__)

Status = ChannelDelivery.Status
Kind = Notification.Kind

SEND_DELIVERY_TASK = "notifications.tasks.send_delivery"
# How long a sender owns a claimed delivery: well over a channel's timeouts.
CLAIM = timedelta(minutes=2)
ERROR_MAX_LENGTH = 2000
# The sweep leaves a delivery to its own task for this long after it was due.
SWEEP_LAG = timedelta(seconds=30)
SWEEP_BATCH = 500

# The function that carries a delivery of each channel: a dotted path, so that this module does
# not import the channels (they import it for `Outcome`).
CHANNEL_SENDERS = {
    Channel.PUSH: "notifications.push.deliver",
    Channel.WEBHOOK: "notifications.webhooks.deliver",
}


@dataclass(frozen=True)
class Outcome:
    """What a channel made of one delivery.

    `sent`: the other side took it. Otherwise `error` says why, and `retry` whether the
    failure passes (the service was busy or down: tried again later, after `retry_after` if the
    service said so, else the backoff), `gone` whether the target is gone for good (a push
    service's 404 or 410: the device is dropped, and nothing is tried again).
    """

    sent: bool
    error: str = ""
    retry: bool = False
    gone: bool = False
    retry_after: timedelta | None = None


SENT = Outcome(sent=True)


# -- choices -------------------------------------------------------------------------------------


def channel_choices_set(*, user_id: Any, channel: str, choices: list[str]) -> None:
    """Store the player's choices for `channel` (the settings page, the API, a turn-off link)."""
    ChannelChoice.objects.update_or_create(
        user_id=user_id, channel=channel, defaults={"choices": sorted(set(choices))}
    )


# -- writing deliveries --------------------------------------------------------------------------


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
        transaction.on_commit(partial(_enqueue, pk))
    return pending


def _enqueue(delivery_id: int) -> None:
    if not send(SEND_DELIVERY_TASK, [delivery_id]):
        logger.warning("Could not send delivery %s's task; the sweep will send it.", delivery_id)


# -- sending one ---------------------------------------------------------------------------------


def delivery_send(*, delivery_id: int) -> bool:
    """Send the delivery if it is pending and due and this call claims it; True if this call
    sent it. Harmless to call any number of times, at once or one after another."""
    now = timezone.now()
    claimed = (
        ChannelDelivery.objects.filter(pk=delivery_id, status=Status.PENDING, send_after__lte=now)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .update(claimed_until=now + CLAIM, attempts=F("attempts") + 1)
    )
    if claimed != 1:
        return False
    delivery = ChannelDelivery.objects.select_related(
        "notification__recipient__profile", "push_subscription", "webhook"
    ).get(pk=delivery_id)
    mine = ChannelDelivery.objects.filter(pk=delivery_id, status=Status.PENDING)
    if reason := _not_to_send(delivery):
        mine.update(status=Status.SKIPPED, last_error=reason, claimed_until=None)
        return False
    sender: Callable[[ChannelDelivery], Outcome] = import_string(
        CHANNEL_SENDERS[Channel(delivery.channel)]
    )
    try:
        outcome = sender(delivery)
    except Exception as exc:  # a bug or an unforeseen fault of the channel: tried again
        logger.exception("ChannelDelivery %s raised", delivery_id)
        outcome = Outcome(sent=False, error=f"{type(exc).__name__}: {exc}", retry=True)
    if outcome.sent:
        # On a new connection if the old one dropped while the call was on its way: else it
        # would go again. Nothing else is written between the answer and this mark.
        write_with_reconnect(lambda: _mark_sent(delivery, at=timezone.now()))
        return True
    _record_failure(delivery, outcome)
    return False


def _mark_sent(delivery: ChannelDelivery, *, at: datetime) -> None:
    """The delivery went (by id alone: whatever happened to the row meanwhile), and its target
    answered: the device's or webhook's last success, the webhook's failures in a row reset."""
    with transaction.atomic():
        ChannelDelivery.objects.filter(pk=delivery.pk).update(
            status=Status.SENT, sent_at=at, claimed_until=None, last_error=""
        )
        if delivery.push_subscription_id is not None:
            PushSubscription.objects.filter(pk=delivery.push_subscription_id).update(
                last_success_at=at
            )
        if delivery.webhook_id is not None:
            Webhook.objects.filter(pk=delivery.webhook_id).update(
                consecutive_failures=0, last_success_at=at
            )


def _not_to_send(delivery: ChannelDelivery) -> str:
    """Why the delivery is no longer to be sent, or "": its target went, or what it says is no
    longer true (checked again for a delivery tried again later)."""
    notification = delivery.notification
    if delivery.channel == Channel.PUSH and delivery.push_subscription is None:
        return "The device was removed."
    if delivery.channel == Channel.WEBHOOK and (
        delivery.webhook is None or not delivery.webhook.enabled
    ):
        return "The webhook was removed or turned off."
    if not notification.recipient.is_active:
        return "The player's account is inactive."
    if choice_of_kind(notification.kind) not in selectors.channel_choices(
        user_id=notification.recipient_id, channel=delivery.channel
    ):
        return "The player turned this kind off for this channel."
    if delivery.attempts > 1:
        if seen.seen_since_written(notification):
            return seen.SEEN_REASON
        if notification.kind in (Kind.YOUR_TURN, Kind.REMINDER) and not selectors.still_to_move(
            user_id=notification.recipient_id,
            game_id=notification.game_id,
            since_ply=notification.ply,
        ):
            return "The player has moved since."
    return ""


def _record_failure(delivery: ChannelDelivery, outcome: Outcome) -> None:
    error = outcome.error[:ERROR_MAX_LENGTH]
    mine = ChannelDelivery.objects.filter(pk=delivery.pk, status=Status.PENDING)
    about = {"game_id": str(delivery.notification.game_id)}
    if outcome.gone:
        if delivery.push_subscription_id is not None:
            PushSubscription.objects.filter(pk=delivery.push_subscription_id).delete()
        mine.update(status=Status.SKIPPED, last_error=error, claimed_until=None)
        return
    if not outcome.retry or delivery.attempts >= settings.NOTIFY_MAX_ATTEMPTS:
        logger.warning(
            "ChannelDelivery %s (%s) failed for good after %s attempts: %s",
            delivery.pk,
            delivery.channel,
            delivery.attempts,
            error,
            extra=about,
        )
        mine.update(status=Status.FAILED, last_error=error, claimed_until=None)
        return
    delay = max(outcome.retry_after or timedelta(0), retry_delay(delivery.attempts))
    logger.info(
        "ChannelDelivery %s (%s) failed (attempt %s), retrying in %s: %s",
        delivery.pk,
        delivery.channel,
        delivery.attempts,
        delay,
        error,
        extra=about,
    )
    mine.update(send_after=timezone.now() + delay, last_error=error, claimed_until=None)


# -- the sweep -----------------------------------------------------------------------------------


def deliveries_sweep() -> int:
    """Send the deliveries still pending a little after they were due (their task was lost, or
    they wait out a backoff); how many went."""
    now = timezone.now()
    due = list(
        ChannelDelivery.objects.filter(status=Status.PENDING, send_after__lte=now - SWEEP_LAG)
        .filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now))
        .order_by("send_after")
        .values_list("pk", flat=True)[:SWEEP_BATCH]
    )
    return sum(delivery_send(delivery_id=pk) for pk in due)
