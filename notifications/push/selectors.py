"""Reads of the push channel: a player's devices, and which kinds go to each channel beside the
email (push and webhooks, chosen in one table)."""

from __future__ import annotations

from typing import Any

from notifications import selectors as notification_selectors
from notifications.models import CHANNEL_CHOICES, Channel, PushSubscription
from notifications.push.errors import NoSuchDevice

# The channels whose kinds the player chooses in the push panel's table.
CHOICE_CHANNELS = (Channel.PUSH, Channel.WEBHOOK)


def subscription_id_checked(value: Any) -> int:
    try:
        number = int(str(value))
    except ValueError:
        raise NoSuchDevice() from None
    if not 0 < number < 2**63:
        raise NoSuchDevice()
    return number


def subscription_of(*, user_id: Any, subscription_id: Any) -> PushSubscription:
    row = PushSubscription.objects.filter(
        pk=subscription_id_checked(subscription_id), user_id=user_id
    ).first()
    if row is None:
        raise NoSuchDevice()
    return row


def subscriptions_of(*, user_id: Any) -> list[PushSubscription]:
    """The player's devices, the oldest first (at most PUSH_MAX_DEVICES)."""
    return list(PushSubscription.objects.filter(user_id=user_id).order_by("created_at", "pk"))


def all_choices(*, user_id: Any) -> dict[str, list[str]]:
    """{"push": [...], "webhook": [...]}: what goes to each channel, in CHANNEL_CHOICES' order."""
    chosen = {
        channel: set(notification_selectors.channel_choices(user_id=user_id, channel=channel))
        for channel in CHOICE_CHANNELS
    }
    return {
        str(channel): [name for name in CHANNEL_CHOICES if name in names]
        for channel, names in chosen.items()
    }
