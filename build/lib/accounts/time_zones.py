"""Time zones as players see them: the player's zone (UTC when they have none we know), the
settings page's picker, grouped by region, and the short label every time on the site ends with
("KST", "CET", "UTC+4").

`user_zone` is the one answer to "which zone are this player's times in": the middleware
activates it for each request (`accounts.middleware`), and an email, rendered outside any
request, activates its recipient's (`user_zone_activated`). Times are then shown in the active
zone (`local_time_text`, `{{ moment|local_time }}`).
"""

from __future__ import annotations

import datetime
import importlib.resources
import re
import zoneinfo
from contextlib import AbstractContextManager
from functools import cache
from pathlib import Path
from typing import Any

from django import forms
from django.utils import dateformat, timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import gettext_noop

from accounts.models import time_zone_names

# The IANA database's regions: its real, place-named zones are "Region/City". The rest of
# `zoneinfo.available_timezones()` are aliases kept for old software ("US/Eastern", "Cuba",
# "Etc/GMT+5", "EST5EDT"): still accepted (a stored or browser-reported one stays valid), not
# offered in the picker. Some region-named ones are old names too ("Asia/Calcutta" beside
# "Asia/Kolkata", "Europe/Kiev"): the picker offers only the zones the database lists for the
# world's countries (its zone.tab, `country_zone_names`).
REGIONS = (
    "Africa",
    "America",
    "Antarctica",
    "Arctic",
    "Asia",
    "Atlantic",
    "Australia",
    "Europe",
    "Indian",
    "Pacific",
)
UTC = "UTC"


def _city(name: str) -> str:
    """ "America/Argentina/Buenos_Aires" -> "Argentina / Buenos Aires"."""
    return name.partition("/")[2].replace("_", " ").replace("/", " / ")


def _zone_tab() -> str | None:
    """The time zone database's zone.tab (one line per country's zone, by its current name):
    the system's, where Python's `zoneinfo` reads the zones, else the `tzdata` package's."""
    for directory in zoneinfo.TZPATH:
        path = Path(directory) / "zone.tab"
        if path.is_file():
            return path.read_text(encoding="utf-8")
    try:
        return (importlib.resources.files("tzdata.zoneinfo") / "zone.tab").read_text("utf-8")
    except (ModuleNotFoundError, FileNotFoundError, OSError):
        return None


@cache
def country_zone_names() -> frozenset[str] | None:
    """The zones by their current names (Asia/Kolkata, not its old name Asia/Calcutta), as
    the database's zone.tab lists them for the countries; None when there is no zone.tab
    to read (the picker then offers every region-named zone)."""
    text = _zone_tab()
    if text is None:
        return None
    names = {
        line.split("\t")[2].strip()
        for line in text.splitlines()
        if line and not line.startswith("#") and line.count("\t") >= 2
    }
    return frozenset(names & set(time_zone_names())) or None


@cache
def _groups() -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    names = time_zone_names()
    current = country_zone_names()
    if current is not None:
        names = tuple(name for name in names if name in current)
    return tuple(
        (region, tuple((name, _city(name)) for name in names if name.startswith(region + "/")))
        for region in REGIONS
    )


def grouped_time_zone_choices(current: str | None = None) -> list:
    """The picker's choices: UTC, then each region's zones as an optgroup (Africa, America,
    ...), plus `current` on its own when it is a valid zone outside those (an alias)."""
    choices: list = [(UTC, "UTC")]
    choices += [(region, list(zones)) for region, zones in _groups()]
    offered = {name for _region, zones in _groups() for name, _label in zones}
    if current and current != UTC and current in time_zone_names() and current not in offered:
        choices.append((_("Other"), [(current, current.replace("_", " "))]))
    return choices


class TimeZoneField(forms.ChoiceField):
    """A choice of time zone: shown grouped by region, accepting any zone that
    `zoneinfo.available_timezones()` knows (as `Profile.time_zone` does)."""

    default_error_messages = {
        "invalid_choice": _(
            "“%(value)s” is not a known time zone. Choose one from the list, such as "
            "Europe/Paris or America/New_York."
        ),
    }

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("choices", grouped_time_zone_choices)
        super().__init__(**kwargs)

    def valid_value(self, value: str) -> bool:
        return value in time_zone_names()


def zone_label(moment: datetime.datetime) -> str:
    """The short name of `moment`'s zone at that moment: its abbreviation where the time zone
    database has one in letters ("KST", "CEST", "UTC"), else its offset ("UTC+4", "UTC-3:30")
    rather than the database's bare "+04"."""
    name = moment.tzname() or ""
    if name[:1].isalpha():
        return name
    offset = moment.utcoffset() or datetime.timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    if minutes == 0:
        return UTC
    sign = "+" if minutes > 0 else "-"
    hours, rest = divmod(abs(minutes), 60)
    return f"UTC{sign}{hours}" + (f":{rest:02d}" if rest else "")


def zone_or_utc(name: str | None) -> zoneinfo.ZoneInfo:
    """The zone called `name`, or UTC when there is none by that name (or no name)."""
    try:
        return zoneinfo.ZoneInfo(name or UTC)
    except (ValueError, zoneinfo.ZoneInfoNotFoundError):
        return zoneinfo.ZoneInfo(UTC)


def user_zone(user: Any) -> zoneinfo.ZoneInfo:
    """The zone `user`'s times are shown in: their profile's (`Profile.time_zone`), or UTC for
    a visitor who is not signed in, a user without a profile or a zone no longer known.

    Reads `user.profile`, which the queries that load users join (`UserManager`): no query of
    its own there."""
    profile = getattr(user, "profile", None) if user is not None else None
    return zone_or_utc(getattr(profile, "time_zone", None))


def user_zone_activated(user: Any) -> AbstractContextManager[None]:
    """`with user_zone_activated(recipient): ...`: render in `user`'s zone, as the middleware
    does for a request (for what is rendered outside one: emails, cached boards)."""
    return timezone.override(user_zone(user))


# The weekdays' short names, as a date format's `D` writes them. Marked here so that the site's
# catalog has them: Django's Korean gives the full name ("토요일") where a Korean date writes the
# short one ("3월 13일 (토)").
WEEKDAYS_SHORT = (
    gettext_noop("Mon"),
    gettext_noop("Tue"),
    gettext_noop("Wed"),
    gettext_noop("Thu"),
    gettext_noop("Fri"),
    gettext_noop("Sat"),
    gettext_noop("Sun"),
)

DEFAULT_FORMAT = "j M Y, H:i"
# A `T` in a date format that is not escaped by a backslash.
_ZONE_IN_FORMAT = re.compile(r"(?<!\\)((?:\\\\)*)T")


def _escaped(text: str) -> str:
    return "".join("\\" + char for char in text)


def local_time_text(moment: datetime.datetime, fmt: str = DEFAULT_FORMAT) -> str:
    """`moment` in the active zone, always with its zone: "23 Nov 2026, 14:05 KST".

    `fmt` is a Django date format for the date and time; the zone (`zone_label`: "UTC+4" where
    Django's `T` would print "+04") goes where the format has `T` (a translated format places
    it), else at the end. A naive `moment` is taken to be UTC."""
    if timezone.is_naive(moment):
        moment = timezone.make_aware(moment, datetime.UTC)
    local = timezone.localtime(moment)
    fmt = str(fmt or DEFAULT_FORMAT)
    label = zone_label(local)
    if _ZONE_IN_FORMAT.search(fmt):
        escaped = _ZONE_IN_FORMAT.sub(lambda m: m.group(1) + _escaped(label), fmt)
        return dateformat.format(local, escaped)
    return f"{dateformat.format(local, fmt)} {label}"
