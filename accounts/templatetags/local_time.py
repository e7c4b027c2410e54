"""`{{ moment|local_time }}`: a time as the site shows it, always with its zone.

"23 Nov 2026, 14:05 KST" in the current time zone (the signed-in player's, which
`accounts.middleware.time_zone_middleware` activates; UTC for visitors; or the zone of an
enclosing `{% timezone %}`). An argument is a Django date format for the date and time:
`{{ game.turn_deadline|local_time:"D j M, H:i" }}` -> "Mon 23 Nov, 14:05 KST". The zone goes
where the format has `T` (a translated format places it), else at the end; either way it is
`accounts.time_zones.zone_label`'s ("UTC+4" where Django's `T` would print "+04").
"""

from __future__ import annotations

import datetime
import re

from django import template
from django.utils import dateformat, timezone

from accounts.time_zones import zone_label

register = template.Library()

DEFAULT_FORMAT = "j M Y, H:i"
# A `T` in a date format that is not escaped by a backslash.
_ZONE = re.compile(r"(?<!\\)((?:\\\\)*)T")


def _escaped(text: str) -> str:
    return "".join("\\" + char for char in text)


@register.filter(expects_localtime=False)
def local_time(value, fmt: str = DEFAULT_FORMAT) -> str:
    if not isinstance(value, datetime.datetime):
        return ""
    if timezone.is_naive(value):
        value = timezone.make_aware(value, datetime.UTC)
    local = timezone.localtime(value)
    fmt = str(fmt or DEFAULT_FORMAT)
    label = zone_label(local)
    if _ZONE.search(fmt):
        return dateformat.format(local, _ZONE.sub(lambda m: m.group(1) + _escaped(label), fmt))
    return f"{dateformat.format(local, fmt)} {label}"
