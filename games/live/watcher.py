"""The process's watcher: waiting requests block on an event, and one thread reads the versions
of all the games they wait on, in one query every `POLL_SECONDS`, and wakes those whose game has
moved on (see `games.live`)."""

from __future__ import annotations

import logging
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db import DatabaseError, connection
from django.utils.translation import gettext as _

from core.ops.metrics import LIVE_WAITS
from games import live_marks as marks
from games.models import Game
from games.selectors import GameVersion

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.25
"""How often a process reads the versions of the games its requests wait on."""

MAX_WAITERS = 2000
"""Waiting requests one process holds at once; past that, requests answer at once (the page then
polls). `make bench-live` measures what a process holds."""


def max_waits_per_player() -> int:
    """Waiting requests one player may hold at once in a process (`LIVE_MAX_WAITS_PER_PLAYER`):
    past that, their next wait is refused with 429 (`TooManyWaits`), so that one account cannot
    take the process's `MAX_WAITERS` places and push every other board back to polling."""
    return int(getattr(settings, "LIVE_MAX_WAITS_PER_PLAYER", 20))


class TooManyWaits(Exception):
    """The player already holds `max_waits_per_player()` waiting requests in this process."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(
            _(
                "You are already waiting for %(limit)s games to change, the most one player may:"
                " close some of your open boards, or wait for those to answer, before you wait"
                " for another."
            )
            % {"limit": limit}
        )


# -- the database ---------------------------------------------------------------------------------


def _release_connection() -> None:
    """Give this thread's database connection up (outside a transaction) before a wait: back to
    the live process's pool (azul_site/asgi.py), or closed."""
    if not connection.in_atomic_block:
        connection.close()


# -- waiting for a game to change ----------------------------------------------------------------


@dataclass(eq=False)
class _Waiter:
    game_id: uuid.UUID
    seen: tuple[int, Any]  # (ply, updated_at) of the version the request started from
    player: Any = None  # who waits (their user id), for the cap per player
    # The mark of what is beside the board (`marks`: the chat) the request started from; None
    # when it does not watch it.
    side: str | None = None
    event: threading.Event = field(default_factory=threading.Event)


class _Watch:
    """The process's waiting requests, and the thread that wakes them: while any waits, it reads
    the versions of their games in one query every `interval` seconds, and sets the event of
    each request whose game is no longer at the version it saw (or no longer exists)."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._lock = threading.Lock()
        self._waiters: set[_Waiter] = set()
        self._per_player: dict[Any, int] = {}  # waiting requests by player
        self._thread: threading.Thread | None = None
        self._last_thread: threading.Thread | None = None
        self._idle = threading.Event()  # set when the last waiter leaves: the thread stops now
        self._closed = False  # shutting down: waits answer at once (`close`)

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    def holds_share(self, player: Any) -> bool:
        """Whether `player` already holds `max_waits_per_player()` waits in this process."""
        with self._lock:
            return self._per_player.get(str(player), 0) >= max_waits_per_player()

    def wait(
        self, version: GameVersion, seconds: float, player: Any = None, side: str | None = None
    ) -> bool | None:
        """Block up to `seconds` until the game is no longer at `version`, or its side mark no
        longer `side` (when given: `marks`): True when it moved on, False at the end of the wait
        (or at once while the process shuts down, `close`), None when the process already holds
        MAX_WAITERS; TooManyWaits when `player` (a user id) already holds their share."""
        # By the id as text, whether it comes from a user (an int) or a session (a string).
        player = None if player is None else str(player)
        waiter = _Waiter(version.id, (version.ply, version.updated_at), player, side)
        with self._lock:
            if self._closed:
                return False
            if len(self._waiters) >= MAX_WAITERS:
                return None
            if player is not None:
                held = self._per_player.get(player, 0)
                limit = max_waits_per_player()
                if held >= limit:
                    raise TooManyWaits(limit)
                self._per_player[player] = held + 1
            self._waiters.add(waiter)
            LIVE_WAITS.inc()
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="live-watch", daemon=True)
                self._last_thread = self._thread
                self._thread.start()
        try:
            return waiter.event.wait(seconds)
        finally:
            with self._lock:
                self._waiters.discard(waiter)
                LIVE_WAITS.dec()
                if player is not None:
                    left = self._per_player.pop(player, 1) - 1
                    if left > 0:
                        self._per_player[player] = left
                if not self._waiters:
                    self._idle.set()

    def wake_all(self) -> None:
        """End every wait now (they answer with the game as it is): for shutting down."""
        with self._lock:
            for waiter in self._waiters:
                waiter.event.set()

    def close(self) -> None:
        """End every wait now, and answer those that come after at once: the process is
        shutting down (azul_site/live_worker.py), and its waits must not hold it up."""
        with self._lock:
            self._closed = True
        self.wake_all()

    def reopen(self) -> None:
        """Take waits again after `close` (for tests)."""
        with self._lock:
            self._closed = False

    def join(self, timeout: float) -> None:
        """Wait for the thread to stop (it does once nobody waits) and close its connection."""
        thread = self._last_thread
        if thread is not None:
            thread.join(timeout)

    def _run(self) -> None:
        try:
            while True:
                with self._lock:
                    self._idle.clear()
                    if not self._waiters:
                        self._thread = None
                        return
                    waiters = list(self._waiters)
                self._check(waiters)
                self._idle.wait(self.interval)
        finally:
            connection.close()  # this thread's own

    def _check(self, waiters: list[_Waiter]) -> None:
        ids = {w.game_id for w in waiters}
        try:
            rows = Game.objects.filter(pk__in=ids).values_list("pk", "ply", "updated_at")
            current = {pk: (ply, updated_at) for pk, ply, updated_at in rows}
        except DatabaseError:
            # The database is away: try again next tick, on a new connection.
            logger.warning("live: could not read the games' versions", exc_info=True)
            connection.close()
            return
        side_ids = {w.game_id for w in waiters if w.side is not None}
        try:
            sides = marks.side_marks(side_ids) if side_ids else {}
        except Exception:
            # The cache is away: the chat's own poll carries its news meanwhile.
            logger.warning("live: could not read the games' side marks", exc_info=True)
            sides = {}
        for waiter in waiters:
            moved = current.get(waiter.game_id) != waiter.seen
            side_moved = waiter.game_id in sides and sides[waiter.game_id] != waiter.side
            if moved or side_moved:
                waiter.event.set()


watch = _Watch(POLL_SECONDS)


def holds_share(player: Any) -> bool:
    """`player` (as `wait_for_change` is given it) holds their share of waits already: their next
    wait is refused before anything is read for it (`games.live.views`)."""
    return watch.holds_share(player)


def wait_for_change(
    version: GameVersion, seconds: float, player: Any = None, side: str | None = None
) -> bool | None:
    """Wait up to `seconds` for the game to move on from `version`, or its side mark from
    `side` when given (see `_Watch.wait`), with no database connection held meanwhile;
    TooManyWaits when `player` holds their share already."""
    _release_connection()
    return watch.wait(version, seconds, player, side)
