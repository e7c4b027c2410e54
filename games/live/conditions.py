"""What a request asks of a wait: how long (`?wait=`, `?wait_for_turn=`), from which version
(`If-None-Match`, the game's version as the viewer sees it: `version_or_404`, which the board
page reads too), and whether the server that received it may keep it waiting."""

from __future__ import annotations

import hashlib
import math
from uuid import UUID

from django.contrib.auth.models import AnonymousUser
from django.core.handlers.asgi import ASGIRequest
from django.http import Http404, HttpRequest
from django.utils.http import parse_etags
from django.utils.translation import gettext as _

from accounts.models import User
from games.errors import GameNotFound
from games.selectors import GameVersion, game_version

MAX_WAIT_SECONDS = 60
"""The longest wait a request may ask for (`?wait_for_turn=`, `?wait=`)."""


def version_or_404(game_id: UUID, viewer: User | AnonymousUser | None) -> GameVersion:
    """The game's version as `viewer` sees it (`selectors.game_version`); a 404 page when there
    is no such game."""
    try:
        return game_version(game_id=game_id, viewer=viewer)
    except GameNotFound as exc:
        raise Http404(exc.message) from None


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
