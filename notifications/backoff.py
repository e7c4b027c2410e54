"""How long a failed send waits before it is tried again: one schedule for the email
(`sending`) and for the channels beside it (`deliveries`), which both import it."""

from __future__ import annotations

from datetime import timedelta

RETRY_FIRST = timedelta(minutes=1)
RETRY_LONGEST = timedelta(hours=2)


def retry_delay(attempts: int) -> timedelta:
    """How long to wait after the `attempts`-th failed attempt: 1, 2, 4, ... minutes, at most
    RETRY_LONGEST."""
    return min(RETRY_FIRST * 2 ** max(attempts - 1, 0), RETRY_LONGEST)
