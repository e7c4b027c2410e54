"""One write that must not be lost to a dropped database connection: what marks a message sent
once it has gone (an email, a push notice, a webhook call).

A connection terminated while the message was on its way (a failover, a restart,
`pg_terminate_backend`) is only found by the next statement: the mark. Failing it would leave the
row claimed, and sent again once the claim runs out (a second email or notice). So the mark is
run again on a new connection, a few times over a few seconds. It must be idempotent (an UPDATE
by primary key to fixed values): a mark whose connection dropped after it committed does no harm
when run again.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TypeVar

from django.db import InterfaceError, OperationalError, connection

logger = logging.getLogger(__name__)

T = TypeVar("T")

ATTEMPTS = 4
PAUSE_SECONDS = 0.5


def write_with_reconnect(write: Callable[[], T]) -> T:
    """`write()`, run again on a new connection if the connection was lost (up to ATTEMPTS
    times, PAUSE_SECONDS more between each). Outside a transaction only: inside one, the lost
    connection took the transaction's other writes with it, and the caller must fail."""
    for attempt in range(1, ATTEMPTS + 1):
        try:
            return write()
        except (OperationalError, InterfaceError) as exc:
            if connection.in_atomic_block or attempt == ATTEMPTS:
                raise
            logger.warning("Database connection lost (%s); writing again on a new one", exc)
            connection.close()
            time.sleep(PAUSE_SECONDS * attempt)
    raise AssertionError("unreachable")
