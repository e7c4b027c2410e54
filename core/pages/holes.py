"""Markup kept in the cache for many requests, with the parts that differ per request left as
holes to fill when it is sent: the CSRF token of its forms (the board's markup, a finished game's
analysis panel)."""

from __future__ import annotations

from django.http import HttpRequest
from django.middleware.csrf import get_token

# No template writes a NUL character, and escaping leaves it as it is.
CSRF_HOLE = "\x00csrf-token\x00"


def csrf_filled(html: str, request: HttpRequest) -> str:
    """`html` with this request's CSRF token where the kept markup has the hole."""
    if CSRF_HOLE in html:
        return html.replace(CSRF_HOLE, get_token(request))
    return html
