"""The live process's door: how many requests one client (a session, or an API token) has in
the process at once, refused past the player's share before Django reads anything.

The watcher caps the waits a player holds (`watcher.max_waits_per_player`), but only once the
request has come through Django's middleware and its session is read: `make abuse` measured a
burst of 2,000 waits from one session taking the live process's time for 20 s, each refusal a
few milliseconds of middleware, session and thread, so that another player's 3-second wait took
23.6 s. Counted here, at the door, by the credential the request carries, a refusal costs the
process microseconds. The proxy counts the same way in front of it (deploy/nginx.conf,
`limit_conn` by session cookie and token); this holds without a proxy, and for a process
reached directly.

A player with several sessions or tokens gets a share for each here, and one share in all from
the watcher; a request without credentials is passed on (Django sends it to sign in).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

import orjson
from django.conf import settings
from django.http.cookie import parse_cookie
from django.utils import translation

from games.live.watcher import TooManyWaits, max_waits_per_player

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
ASGIApp = Callable[..., Awaitable[Any]]

RETRY_AFTER_SECONDS = 5
"""What a refusal tells the client to wait before asking again (as the watcher's does)."""

SPARE = 4
"""Requests a client may have in the process beyond its share of waits: those that do not wait
(the API's game read, a board reloaded) while it holds its share. The watcher refuses the waits
past the share itself."""


def client_limit() -> int:
    """Requests one client may have in the process at once."""
    return max_waits_per_player() + SPARE


def client_key(scope: Scope) -> str | None:
    """Who the request is from, by the credential it carries: its session cookie, else its
    `Authorization` header; None when it carries neither."""
    headers = dict(scope.get("headers") or [])
    cookies = headers.get(b"cookie")
    if cookies:
        session = parse_cookie(cookies.decode("latin-1")).get(settings.SESSION_COOKIE_NAME)
        if session:
            return f"session:{session}"
    authorization = headers.get(b"authorization")
    if authorization:
        return f"authorization:{authorization.decode('latin-1')}"
    return None


class RequestsPerClient:
    """ASGI middleware: a client with `client_limit()` requests in the process already is
    answered 429 at once, as the watcher answers a player past their share."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        # Requests in the process by client. Touched only from the event loop's thread.
        self.held: dict[str, int] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        key = client_key(scope) if scope["type"] == "http" else None
        if key is None:
            await self.app(scope, receive, send)
            return
        held = self.held.get(key, 0)
        if held >= client_limit():
            await _refuse(send, max_waits_per_player())
            return
        self.held[key] = held + 1
        try:
            await self.app(scope, receive, send)
        finally:
            left = self.held.pop(key, 1) - 1
            if left > 0:
                self.held[key] = left


async def _refuse(send: Send, limit: int) -> None:
    with translation.override(settings.LANGUAGE_CODE):
        detail = str(TooManyWaits(limit))
    body = orjson.dumps({"detail": detail, "code": "too_many_waits"})
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"content-length", str(len(body)).encode()),
                (b"retry-after", str(RETRY_AFTER_SECONDS).encode()),
                (b"cache-control", b"private, no-cache"),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
