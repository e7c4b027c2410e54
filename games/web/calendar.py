"""A player's calendar feed (`models.CalendarFeed`): the feed itself, read by calendar apps at
its secret address without signing in, and its panel on the settings page, whose forms make a
new address or turn the feed off (without JavaScript: plain POSTs that come back to the page).
"""

from __future__ import annotations

import hashlib
import math
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.messages import get_messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST, require_safe
from rest_framework.throttling import SimpleRateThrottle

from accounts.http import AuthenticatedHttpRequest
from core import slots
from core.pages.form_answers import answer
from core.pages.holes import CSRF_HOLE
from core.slots import Panel
from games import throttles
from games.presenters.calendar import calendar_feed_ics
from games.presenters.times import user_zone_activated
from games.selectors.calendar import (
    TOKEN_PATTERN,
    calendar_feed_find,
    calendar_feed_of,
    calendar_games,
    token_digest,
)
from games.services.players import calendar_feed_renew, calendar_feed_turn_off

CACHE_SECONDS = 300
"""How long a calendar app (or a proxy on the player's side) may keep the feed without asking."""


class CalendarFeedThrottle(SimpleRateThrottle):
    """Reads of one feed address (`calendar_feed` rate): calendar apps poll, a few times an
    hour at most; beyond the rate, 429 with Retry-After. Counted per address (by the token's
    digest), before the feed is looked up, so that a flood costs no query."""

    scope = "calendar_feed"

    def __init__(self, token: str) -> None:
        super().__init__()
        self.ident = token_digest(token)

    def get_cache_key(self, request: Any, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.ident}


class CalendarFeedChangeThrottle(throttles.GameThrottle):
    """A player's new addresses and turnings off (`calendar_feed_change` rate)."""

    scope = "calendar_feed_change"

    def message(self) -> str:
        minutes = max(1, math.ceil((self.wait() or 0) / 60))
        return _(
            "You have changed your calendar address as often as you may for now: try again in"
            " %(minutes)s minutes."
        ) % {"minutes": minutes}


def _plain(text: str, status: int) -> HttpResponse:
    response = HttpResponse(text, status=status, content_type="text/plain; charset=utf-8")
    response["X-Robots-Tag"] = "noindex"
    response["Cache-Control"] = "private, no-store"
    # Django's request log would write this 4xx with its path, which holds the token: no
    # secret in a log (a refused address says nothing worth an operator's reading either).
    response._has_been_logged = True  # type: ignore[attr-defined]
    return response


def _not_found() -> HttpResponse:
    # The same answer for a token of the wrong shape, an unknown one and a replaced one.
    return _plain(_("There is no calendar at this address."), 404)


def _etag_matches(header: str, etag: str) -> bool:
    """Whether If-None-Match names `etag` (weakly: the gzip middleware marks it weak)."""
    tags = [tag.strip() for tag in header.split(",")]
    return "*" in tags or any(tag.removeprefix("W/") == etag for tag in tags)


@require_safe
def calendar_feed(request: HttpRequest, token: str) -> HttpResponse:
    """The feed (`presenters.calendar`) in its player's language: their token is the only
    credential asked. 304 when the calendar app has these bytes already."""
    if not TOKEN_PATTERN.fullmatch(token):
        return _not_found()
    limit = CalendarFeedThrottle(token)
    if not limit.allow_request(request, None):  # type: ignore[arg-type]  # a page, no view
        wait = math.ceil(limit.wait() or 60)
        response = _plain(
            _("This calendar was read too often: try again in %(minutes)s minutes.")
            % {"minutes": max(1, math.ceil(wait / 60))},
            429,
        )
        response["Retry-After"] = str(wait)
        return response
    feed = calendar_feed_find(token)
    if feed is None:
        return _not_found()
    language = feed.user.profile.language if hasattr(feed.user, "profile") else ""
    if language not in dict(settings.LANGUAGES):
        language = settings.LANGUAGE_CODE
    with translation.override(language), user_zone_activated(feed.user):
        body = calendar_feed_ics(
            user_id=feed.user_id,
            games=calendar_games(user_id=feed.user_id),
            entries=slots.calendar_feed_entries.collect(user_id=feed.user_id),
        )
    etag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
    if _etag_matches(request.headers.get("If-None-Match", ""), etag):
        response = HttpResponse(status=304)
    else:
        response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
        response["Content-Disposition"] = 'inline; filename="azul.ics"'
    response["ETag"] = etag
    response["Cache-Control"] = f"private, max-age={CACHE_SECONDS}"
    response["X-Robots-Tag"] = "noindex"
    return response


PLACE = "calendar-feed"
"""Where the forms' answers are shown on the settings page (`core.pages.form_answers`)."""


def _back() -> HttpResponse:
    # No fragment: the answer's focus scrolls to it (a fragment would win over it).
    return redirect("accounts:settings")


@login_required
@require_POST
def calendar_feed_new(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The settings page's "Make a new address" (and the first one): the old address, if any,
    stops working at once."""
    try:
        throttles.check(request, CalendarFeedChangeThrottle)
    except throttles.TooManyRequests as exc:
        answer(request, messages.ERROR, exc.message, place=PLACE)
        return _back()
    had_one = calendar_feed_of(user=request.user) is not None
    calendar_feed_renew(user=request.user)
    answer(
        request,
        messages.SUCCESS,
        _("Your calendar has a new address: the old one no longer works.")
        if had_one
        else _("Your calendar is ready: subscribe to its address in your calendar app."),
        place=PLACE,
    )
    return _back()


@login_required
@require_POST
def calendar_feed_off(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The settings page's "Turn off": the address stops working at once."""
    try:
        throttles.check(request, CalendarFeedChangeThrottle)
    except throttles.TooManyRequests as exc:
        answer(request, messages.ERROR, exc.message, place=PLACE)
        return _back()
    if calendar_feed_turn_off(user=request.user):
        text = _("Your calendar is turned off: its address no longer works.")
        answer(request, messages.SUCCESS, text, place=PLACE)
    return _back()


def feed_urls(token: str) -> dict[str, str]:
    """The feed's address, and the same as a webcal:// link (which calendar apps open as a
    subscription)."""
    url = settings.SITE_URL + reverse("games:calendar_feed", args=[token])
    return {"url": url, "webcal_url": "webcal://" + url.split("://", 1)[1]}


def settings_page_panel(request: HttpRequest, **page: Any) -> Panel | None:
    """The settings page's calendar panel: the address, or the button that makes one."""
    if not request.user.is_authenticated:
        return None
    feed = calendar_feed_of(user=request.user)  # type: ignore[arg-type]  # signed in
    context = {
        "feed": feed_urls(feed.token) if feed is not None else None,
        "messages": get_messages(request),
        "csrf_token": CSRF_HOLE,  # filled for this request by `core.slots`
    }
    return Panel.rendered(render_to_string("games/_calendar_settings.html", context))
