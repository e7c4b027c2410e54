"""Every page in the signed-in player's time zone."""

from __future__ import annotations

import zoneinfo
from collections.abc import Callable
from typing import Any

from asgiref.sync import iscoroutinefunction
from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from django.utils.decorators import sync_and_async_middleware

from accounts.time_zones import user_zone


def _zone_of(user: Any) -> zoneinfo.ZoneInfo | None:
    """The signed-in player's zone (`user_zone`: their profile's, which comes with the user in
    the query that authenticates the request, `accounts.models.UserManager`, so no query of its
    own); None for a visitor, who gets the site's zone (UTC), which every time shown names."""
    return user_zone(user) if user.is_authenticated else None


@sync_and_async_middleware
def time_zone_middleware(get_response: Callable[..., Any]) -> Callable[..., Any]:
    """Activates the player's time zone for the request, so that every time a template shows
    (`|date`, `|local_time`) is in it, as Django's documentation advises."""
    if iscoroutinefunction(get_response):

        async def async_middleware(request: HttpRequest) -> HttpResponse:
            zone = _zone_of(await request.auser())
            if zone is None:
                return await get_response(request)
            with timezone.override(zone):
                return await get_response(request)

        return async_middleware

    def middleware(request: HttpRequest) -> HttpResponse:
        zone = _zone_of(request.user)
        if zone is None:
            return get_response(request)
        with timezone.override(zone):
            return get_response(request)

    return middleware
