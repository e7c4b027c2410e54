"""The answer when the database cannot be reached (it is down, refuses connections or does not
answer within DB_CONNECT_TIMEOUT) or has no connection to spare (a pool that is exhausted,
`azul_site/asgi.py`): 503 with `Retry-After`, never a 500, so that clients back off and try
again. It is the site's `handler500`: Django calls it for any uncaught exception, with the
exception still being handled, wherever it was raised (a view, or a middleware that reads the
session or the signed-in player before the view), and this passes every other one to Django's
own 500 page.

Nothing here touches the database or renders a template whose context reads it: browsers get
`unavailable.html` in the request's language (its cookie or Accept-Language), rendered without
the request; scripts (the API, or a client that asks for JSON) get the API's error shape. An
outage would otherwise log a traceback for every request: this logs one warning line each."""

from __future__ import annotations

import logging
import sys

from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.utils import translation
from django.utils.translation import gettext as _
from django.views import defaults

RETRY_AFTER_SECONDS = 5

logger = logging.getLogger(__name__)


def server_error(request: HttpRequest) -> HttpResponse:
    """503 with `Retry-After` when the request failed for want of a database connection; else
    Django's 500 page."""
    exc = sys.exc_info()[1]
    if not isinstance(exc, (OperationalError, InterfaceError)):
        return defaults.server_error(request)
    language = translation.get_language_from_request(request)
    with translation.override(language):
        message = _("The site is busy: try again in a few seconds.")
        response: HttpResponse
        if request.path.startswith("/api/") or "json" in request.headers.get("Accept", ""):
            response = JsonResponse({"detail": message, "code": "unavailable"}, status=503)
        else:
            page = loader.render_to_string(
                "unavailable.html", {"message": message, "language": language}
            )
            response = HttpResponse(page, status=503, content_type="text/html; charset=utf-8")
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    response["Content-Language"] = language
    reason = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    path = request.path.encode("unicode_escape").decode("ascii")  # no forged log lines
    logger.warning("503 for %s %s: no database connection (%s)", request.method, path, reason)
    # Django logs a 5xx it made from an exception with the traceback, unless it was logged.
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response
