"""`{{ moment|local_time }}`: a time as the site shows it, always with its zone.

"23 Nov 2026, 14:05 KST" in the current time zone (the signed-in player's, which
`accounts.middleware.time_zone_middleware` activates; UTC for visitors; or the zone of an
enclosing `{% timezone %}`). An argument is a Django date format for the date and time:
`{{ game.turn_deadline|local_time:"D j M, H:i" }}` -> "Mon 23 Nov, 14:05 KST"
(`accounts.time_zones.local_time_text`).
"""

from __future__ import annotations

import datetime
from typing import Any

from django import template

from accounts.time_zones import DEFAULT_FORMAT, local_time_text

register = template.Library()


@register.filter(expects_localtime=False)
def local_time(value: Any, fmt: str = DEFAULT_FORMAT) -> str:
    if not isinstance(value, datetime.datetime):
        return ""
    return local_time_text(value, fmt)
