"""The installable app: its manifest, its service worker and the page the worker shows offline.

The worker (static/pwa/sw.js) is served from the site's root, so that it may control every
page. It keeps the static files and the offline page alone, never a page of a signed-in player
or the API; it shows push notices (notifications.push) and opens the game a notice is about.
"""

from __future__ import annotations

import functools
import hashlib
import json

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.templatetags.static import static
from django.urls import reverse
from django.utils.cache import get_conditional_response, patch_vary_headers
from django.utils.translation import get_language, get_language_bidi, gettext, pgettext
from django.views.decorators.http import require_safe

# The light theme's header (site.css: --header-bg), which the browser's bar takes, and page
# (--paper), which an installed app shows while it starts. Pages name the dark theme's header
# too (templates/pwa/_theme_color.html).
THEME_COLOR = "#1d2433"
BACKGROUND_COLOR = "#f6f3ec"
SW_SOURCE = "pwa/sw.js"
# The line of sw.js the view replaces with what the worker must know of this deployment.
SW_CONFIG_LINE = 'const CONFIG = {"version": "dev"};'
# The static files an offline page needs, kept when the worker installs.
OFFLINE_STATIC = ["css/site.css", "favicon.svg", "pwa/icon-192.png", "pwa/badge-96.png"]


def _icons() -> list[dict[str, str]]:
    icons = []
    for size in (192, 512):
        for purpose, name in (("any", "icon"), ("maskable", "maskable")):
            icons.append(
                {
                    "src": static(f"pwa/{name}-{size}.png"),
                    "sizes": f"{size}x{size}",
                    "type": "image/png",
                    "purpose": purpose,
                }
            )
    return icons


@require_safe
def manifest(request: HttpRequest) -> JsonResponse:
    """The web app manifest, in the reader's language."""
    body = {
        "id": "/",
        "name": gettext("Azul by correspondence"),
        "short_name": pgettext("the installed app's name, under its icon", "Azul"),
        "description": gettext(
            "Play the tile-drafting board game Azul by correspondence with friends, strangers "
            "or the computer: take your turn whenever it suits you."
        ),
        "lang": get_language(),
        "dir": "rtl" if get_language_bidi() else "ltr",
        "start_url": "/",
        "scope": "/",
        "display": "standalone",
        "theme_color": THEME_COLOR,
        "background_color": BACKGROUND_COLOR,
        "categories": ["games"],
        "icons": _icons(),
    }
    response = JsonResponse(body, content_type="application/manifest+json")
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    response["Cache-Control"] = "max-age=3600"
    return response


@functools.cache
def _service_worker(precache: tuple[str, ...], icon: str, badge: str) -> str:
    path = finders.find(SW_SOURCE)
    if not path:
        raise FileNotFoundError(SW_SOURCE)
    with open(path, encoding="utf-8") as source:
        text = source.read()
    # The version changes with the worker's code and with the URLs it keeps (in production a
    # static file's URL carries its hash): a new version installs, and drops the old caches.
    version = hashlib.sha256((text + "\n".join(precache)).encode()).hexdigest()[:12]
    config = {
        "version": version,
        "precache": list(precache),
        "offline": precache[0],
        "static": settings.STATIC_URL
        if settings.STATIC_URL.startswith("/")
        else "/" + settings.STATIC_URL,
        "icon": icon,
        "badge": badge,
    }
    if SW_CONFIG_LINE not in text:
        raise ValueError(f"{SW_SOURCE} lost its configuration line")
    return text.replace(SW_CONFIG_LINE, f"const CONFIG = {json.dumps(config)};", 1)


@require_safe
def service_worker(request: HttpRequest) -> HttpResponse:
    """/sw.js: the service worker, at the root so that its scope is the whole site. No-cache:
    the browser asks each time it checks for a new version (it answers 304 when unchanged)."""
    precache = (reverse("offline"), *(static(name) for name in OFFLINE_STATIC))
    if settings.DEBUG:
        _service_worker.cache_clear()  # the file is being edited
    text = _service_worker(precache, static("pwa/icon-192.png"), static("pwa/badge-96.png"))
    etag = '"' + hashlib.sha256(text.encode()).hexdigest()[:16] + '"'
    response = HttpResponse(text, content_type="application/javascript; charset=utf-8")
    response["Cache-Control"] = "no-cache"
    response["ETag"] = etag
    return get_conditional_response(request, etag=etag, response=response) or response


@require_safe
def offline(request: HttpRequest) -> HttpResponse:
    """What the worker shows for a page it cannot fetch. The same for everyone (the worker
    keeps it): no name, no count of games, whoever is signed in."""
    response = render(request, "pwa/offline.html")
    patch_vary_headers(response, ("Accept-Language", "Cookie"))
    return response
