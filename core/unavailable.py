"""The answer when the database cannot be reached or has no connection to spare (a pool that is
exhausted, `azul_site/asgi.py`): 503 with `Retry-After`, never a 500, so that clients back off
and try again. It is the site's `handler500`: Django calls it for any uncaught exception, with
the exception still being handled, and this passes every other one to Django's own 500 page.

Nothing here touches the database or renders a template whose context reads it."""

from __future__ import annotations

import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.utils.html import escape
from django.utils.translation import gettext as _
from django.views import defaults

RETRY_AFTER_SECONDS = 5


def server_error(request: HttpRequest) -> HttpResponse:
    """503 with `Retry-After` when the request failed for want of a database connection; else
    Django's 500 page."""
    exc = sys.exc_info()[1]
    if not isinstance(exc, (OperationalError, InterfaceError)):
        return defaults.server_error(request)
    message = _("The site is busy: try again in a few seconds.")
    response: HttpResponse
    if request.path.startswith("/api/") or "json" in request.headers.get("Accept", ""):
        response = JsonResponse({"detail": message, "code": "unavailable"}, status=503)
    else:
        response = HttpResponse(
            f"<!doctype html><title>503</title><p>{escape(message)}</p>",
            status=503,
            content_type="text/html; charset=utf-8",
        )
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response
