"""Placeholder: the push channel's `deliver` (see notifications.deliveries)."""

from notifications.deliveries import Outcome
from notifications.models import ChannelDelivery


def deliver(delivery: ChannelDelivery) -> Outcome:
    return Outcome(sent=False, error="not built yet")
