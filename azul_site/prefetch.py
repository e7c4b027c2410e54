"""Cache entries an API view reads, fetched in the round trip that authenticates its request.

An API request authenticated by token goes to the cache anyway, to find the token's user and to
count the request against the API limit (`accounts.auth`, `azul_site.throttling`); a second round
trip for an entry the view needs costs about as much as that first one. So a view may name its
entries by defining `cache_prefetch(request) -> list[str]` (cache keys); the token
authentication reads them in its own round trip and leaves what it found on the request, where
`prefetched(request, key)` gives it to the view. A view must work without them: a request signed
in by session, or one whose authentication did not reach the cache, has nothing prefetched.
"""

from __future__ import annotations

from typing import Any

from rest_framework.request import Request

_FOUND = "cache_prefetched"  # request attribute: {key: value} of the keys found


def keys_for(request: Request) -> list[str]:
    """The cache keys the request's view asks for (none when it asks for nothing)."""
    view = (getattr(request, "parser_context", None) or {}).get("view")
    wanted = getattr(view, "cache_prefetch", None)
    return list(wanted(request)) if wanted is not None else []


def remember(request: Request, found: dict[str, Any]) -> None:
    """Record the entries found on the way in."""
    setattr(request, _FOUND, found)


def prefetched(request: Request, key: str | None) -> Any:
    """The value found for `key` on the way in; None when it was not read, or not there."""
    return getattr(request, _FOUND, {}).get(key)
