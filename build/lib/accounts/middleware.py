"""Every page in the signed-in player's time zone, and in their language."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.urls import Resolver404, resolve
from django.utils import timezone, translation
from django.utils.decorators import sync_and_async_middleware

from accounts.time_zones import user_zone


def _zone_of(user: Any) -> zoneinfo.ZoneInfo | None:
    """The signed-in player's zone (`user_zone`: their profile's, which comes with the user in
    the query that authenticates the request, `accounts.models.UserManager`, so no query of its
    own); None for a visitor, who gets the site's zone (UTC), which every time shown names."""
    return user_zone(user) if user.is_authenticated else None


def shows_no_times(view: Callable[..., Any]) -> Callable[..., Any]:
    """Marks a view whose answers show no time (the board's live wait): the middleware then
    reads no user for it. A burst of such requests (one account's thousands of refused waits)
    costs a session read each, not a database connection for the user's row."""
    view.shows_no_times = True  # type: ignore[attr-defined]
    return view


def _shows_times(request: HttpRequest) -> bool:
    # Every page passes here: only a live wait's address is resolved (once more than the
    # handler does), not every page's.
    if not request.path_info.endswith("/live/"):
        return True
    try:
        view = resolve(request.path_info).func
    except Resolver404:
        return True  # the 404 page
    return not getattr(view, "shows_no_times", False)


@sync_and_async_middleware
def time_zone_middleware(get_response: Callable[..., Any]) -> Callable[..., Any]:
    """Activates the player's time zone for the request, so that every time a template shows
    (`|date`, `|local_time`) is in it, as Django's documentation advises."""
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponse:
            if not _shows_times(request):
                return await get_response(request)
            zone = _zone_of(await request.auser())
            if zone is None:
                return await get_response(request)
            with timezone.override(zone):
                return await get_response(request)

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponse:
        if not _shows_times(request):
            return get_response(request)
        zone = _zone_of(request.user)
        if zone is None:
            return get_response(request)
        with timezone.override(zone):
            return get_response(request)

    return middleware


SIGN_IN_LANGUAGE = "_azul_sign_in_language"
"""Where `language_at_sign_in` leaves the language of a player who just signed in, on the
request, for `sign_in_language_middleware` to keep in the response's language cookie."""


def language_at_sign_in(request: HttpRequest, language: str) -> None:
    """A player signed in on `request`: the rest of it, and their next pages in this browser,
    are in `language` (their profile's)."""
    if language in dict(settings.LANGUAGES):
        translation.activate(language)
        request.LANGUAGE_CODE = language
        setattr(request, SIGN_IN_LANGUAGE, language)


def language_cookie_set(response: HttpResponse, language: str) -> HttpResponse:
    """The language switcher's cookie, set as Django's `set_language` sets it."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME,
        language,
        max_age=settings.LANGUAGE_COOKIE_AGE,
        path=settings.LANGUAGE_COOKIE_PATH,
        domain=settings.LANGUAGE_COOKIE_DOMAIN,
        secure=settings.LANGUAGE_COOKIE_SECURE,
        httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,  # type: ignore[arg-type]
    )
    return response


def _with_sign_in_language(request: HttpRequest, response: HttpResponse) -> HttpResponse:
    language = getattr(request, SIGN_IN_LANGUAGE, None)
    if language is None or request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) == language:
        return response
    return language_cookie_set(response, language)


@sync_and_async_middleware
def sign_in_language_middleware(get_response: Callable[..., Any]) -> Callable[..., Any]:
    """Whoever signs in gets their profile's language (`Profile.language`: the one they signed
    up in, or last chose with the switcher or on the settings page) in this browser from then
    on, whatever it asked for before: the sign-in's response sets the language cookie
    (`accounts.signals` marks the request). Other requests pass untouched."""
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponse:
            return _with_sign_in_language(request, await get_response(request))

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponse:
        return _with_sign_in_language(request, get_response(request))

    return middleware
