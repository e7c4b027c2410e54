"""Every page in the signed-in player's time zone."""

from __future__ import annotations

from asgiref.sync import iscoroutinefunction
from django.utils import timezone
from django.utils.decorators import sync_and_async_middleware

from accounts.time_zones import zone_or_utc


def _zone_of(user):
    """The player's zone (their profile comes with the user: `accounts.models.UserManager`);
    visitors get the site's (UTC), which every time shown names."""
    if not user.is_authenticated:
        return None
    profile = getattr(user, "profile", None)
    return zone_or_utc(profile.time_zone) if profile is not None else None


@sync_and_async_middleware
def time_zone_middleware(get_response):
    """Activates the player's time zone for the request, so that every time a template shows
    (`|date`, `|local_time`) is in it, as Django's documentation advises."""
    if iscoroutinefunction(get_response):

        async def middleware(request):
            zone = _zone_of(await request.auser())
            if zone is None:
                return await get_response(request)
            with timezone.override(zone):
                return await get_response(request)

    else:

        def middleware(request):
            zone = _zone_of(request.user)
            if zone is None:
                return get_response(request)
            with timezone.override(zone):
                return get_response(request)

    return middleware
