"""How a time is shown: always in the viewer's zone, always saying which.

Which zone is a player's is decided once, in `accounts.time_zones` (`user_zone`: their
profile's, else UTC), below games so that accounts' own pages and the middleware that activates
it for each request use the same rule; it is re-exported here for games' pages and emails. What
is rendered outside a request (an email, a board cached for its viewer) activates the zone with
`user_zone_activated`; the texts below then read the active zone.
"""

from __future__ import annotations

import datetime

from django.utils import dateformat, timezone
from django.utils.translation import gettext as _

from accounts.time_zones import local_time_text, user_zone, user_zone_activated

__all__ = ["deadline_text", "local_time_text", "user_zone", "user_zone_activated"]


def deadline_text(moment: datetime.datetime | None) -> str:
    """A deadline as an email words it, in the active zone, named in full: "Sunday 23 November
    at 15:46 (Asia/Seoul)"; "" for no deadline."""
    if moment is None:
        return ""
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, datetime.UTC)
    zone = timezone.get_current_timezone()
    local = timezone.localtime(moment, zone)
    # Translators: a date format (https://docs.djangoproject.com/en/stable/ref/templates/builtins/#date)
    # for a deadline in an email: "Sunday 23 November at 15:46".
    when = dateformat.format(local, _("l j F \\a\\t H:i"))
    return f"{when} ({str(zone).replace('_', ' ')})"
