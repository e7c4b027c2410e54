"""Live updates: answering "has this game changed?" as soon as it has, without holding a worker.

Two requests wait for a game to change:

- the board page's `GET /games/<id>/live/?wait=25` (`If-None-Match`: the ETag of the board it
  shows), answered with 304 when nothing changed within the wait, or with 200 and the new ETag
  as soon as the game changes (the page then loads the new board from the site);
- the API's `GET /api/games/<id>/?wait_for_turn=30` (`GameDetailApi`), answered as soon as it is
  the caller's turn or the game changes (from the version named by `If-None-Match`, or else from
  the version the request found), or at the end of the wait with the unchanged game.

Both answer with the game's version as their ETag (`etag`: per viewer and language, as everything
cached for a game is), and a plain `If-None-Match` without a wait is an ordinary conditional GET:
304 with no body when the version is current.

How a wait is served. A waiting request blocks its thread on an event and holds no database
connection while it waits; one thread per process (`_Watch`) reads the
versions of all the games waited on, in one query every `POLL_SECONDS`, and wakes the requests
whose game has moved on. So a move reaches a waiting page within `POLL_SECONDS` plus the
answer's own time, and the database sees one small query per process and tick, however many
watch.

Where a wait is served (README, "Serving"): in production, these requests go to an ASGI process
of their own (uvicorn), where a waiting request is a parked thread of Django's ASGI handler and
the process goes on serving others: Django runs its synchronous middleware (sessions,
authentication) in a thread of each request's own, so an async view would park that thread just
the same. Django's development servers (`runserver`, the tests' live server) give each request a
thread, so they wait too. gunicorn's workers serve a fixed number of requests at once, so a
request there never waits (`can_wait`): it answers at once, and the page then polls about once
a second (static/games/board.js). A process holds at most `MAX_WAITERS` waiting requests; past
that, requests answer at once as well.
"""

from __future__ import annotations

import hashlib
import logging
import math
import threading
import uuid
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.views import redirect_to_login
from django.core.handlers.asgi import ASGIRequest
from django.db import DatabaseError, connection
from django.http import (
    Http404,
    HttpRequest,
    HttpResponse,
    HttpResponseBadRequest,
    HttpResponseNotModified,
    JsonResponse,
)
from django.utils.cache import patch_cache_control
from django.utils.http import parse_etags
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from games import selectors
from games.errors import GameNotFound
from games.models import Game
from games.selectors import GameVersion

logger = logging.getLogger(__name__)

POLL_SECONDS = 0.25
"""How often a process reads the versions of the games its requests wait on."""

MAX_WAIT_SECONDS = 60
"""The longest wait a request may ask for (`?wait_for_turn=`, `?wait=`)."""

MAX_WAITERS = 2000
"""Waiting requests one process holds at once; past that, requests answer at once (the page then
polls). `make bench-live` measures what a process holds."""


class BadWait(ValueError):
    """A wait that is not a number of seconds from 0 to MAX_WAIT_SECONDS."""

    def __init__(self) -> None:
        super().__init__(
            _("must be a number of seconds from 0 to %(max)s") % {"max": MAX_WAIT_SECONDS}
        )


def wait_seconds(value: str | None) -> float:
    """The wait a request asks for: 0 when it asks none; BadWait unless a number of seconds
    from 0 to MAX_WAIT_SECONDS."""
    if value is None:
        return 0.0
    try:
        seconds = float(value)
    except ValueError:
        raise BadWait() from None
    if not math.isfinite(seconds) or not 0 <= seconds <= MAX_WAIT_SECONDS:
        raise BadWait()
    return seconds


def etag(version: GameVersion) -> str:
    """The ETag of what `version`'s viewer sees of the game (their view, their board)."""
    digest = hashlib.blake2b(version.key.encode(), digest_size=12).hexdigest()
    return f'"{digest}"'


def if_none_match(request: HttpRequest) -> list[str]:
    """The ETags of the request's `If-None-Match`, quoted ("*" matches any)."""
    header = request.META.get("HTTP_IF_NONE_MATCH")
    return parse_etags(header) if header else []


def matches(tags: list[str], tag: str) -> bool:
    return "*" in tags or tag in tags


def can_wait(request: HttpRequest) -> bool:
    """Whether the server that received `request` may keep it waiting: an ASGI server (the
    request parks a thread, not a worker) or one of Django's development servers (a thread per
    request). Never a gunicorn worker, which serves a fixed number of requests at once."""
    if isinstance(request, ASGIRequest):
        return True
    return str(request.META.get("SERVER_SOFTWARE", "")).startswith("WSGIServer/")


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
    event: threading.Event = field(default_factory=threading.Event)


class _Watch:
    """The process's waiting requests, and the thread that wakes them: while any waits, it reads
    the versions of their games in one query every `interval` seconds, and sets the event of
    each request whose game is no longer at the version it saw (or no longer exists)."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self._lock = threading.Lock()
        self._waiters: set[_Waiter] = set()
        self._thread: threading.Thread | None = None
        self._last_thread: threading.Thread | None = None
        self._idle = threading.Event()  # set when the last waiter leaves: the thread stops now

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    def wait(self, version: GameVersion, seconds: float) -> bool | None:
        """Block up to `seconds` until the game is no longer at `version`: True when it moved
        on, False at the end of the wait, None when the process already holds MAX_WAITERS."""
        waiter = _Waiter(version.id, (version.ply, version.updated_at))
        with self._lock:
            if len(self._waiters) >= MAX_WAITERS:
                return None
            self._waiters.add(waiter)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="live-watch", daemon=True)
                self._last_thread = self._thread
                self._thread.start()
        try:
            return waiter.event.wait(seconds)
        finally:
            with self._lock:
                self._waiters.discard(waiter)
                if not self._waiters:
                    self._idle.set()

    def wake_all(self) -> None:
        """End every wait now (they answer with the game as it is): for shutting down."""
        with self._lock:
            for waiter in self._waiters:
                waiter.event.set()

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
        for waiter in waiters:
            if current.get(waiter.game_id) != waiter.seen:
                waiter.event.set()


watch = _Watch(POLL_SECONDS)


def wait_for_change(version: GameVersion, seconds: float) -> bool | None:
    """Wait up to `seconds` for the game to move on from `version` (see `_Watch.wait`), with no
    database connection held meanwhile."""
    _release_connection()
    return watch.wait(version, seconds)


# -- the board page's wait -------------------------------------------------------------------------


def _version(game_id: Any, viewer: Any) -> GameVersion:
    try:
        return selectors.game_version(game_id=game_id, viewer=viewer)
    except GameNotFound as exc:
        raise Http404(exc.message) from None


@require_GET
def game_changes(request: HttpRequest, game_id: uuid.UUID) -> HttpResponse:
    """Whether the game has changed from the board the page shows, which the page names by the
    ETag this gave it (`If-None-Match`), or else by its ply (`?since=`): at once when it has
    already, else as soon as it does within `?wait=` seconds. Changed: 200, `{"ply": N}` and the
    new ETag (the page then loads the board partial from the site); unchanged: 304 (204 without
    `If-None-Match`) and the ETag. Signed-in users only, as the board is.

    It renders no board: what wakes here is cheap, and the boards are rendered by the site's
    workers, which the page would ask for them anyway."""
    try:
        seconds = wait_seconds(request.GET.get("wait"))
    except BadWait as exc:
        return HttpResponseBadRequest(f"wait: {exc}", content_type="text/plain; charset=utf-8")
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    version = _version(game_id, request.user)
    tag, tags = etag(version), if_none_match(request)
    seen = tags or ([tag] if request.GET.get("since") == str(version.ply) else [])
    waits = seconds and matches(seen, tag) and can_wait(request)
    if waits and wait_for_change(version, seconds):
        version = _version(game_id, request.user)
        tag = etag(version)
    if matches(seen, tag):
        response = HttpResponseNotModified() if tags else HttpResponse(status=204)
    else:
        response = JsonResponse({"ply": version.ply})
    response["ETag"] = tag
    patch_cache_control(response, private=True, no_cache=True)
    return response
