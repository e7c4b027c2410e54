"""A player's calendar feed as an iCalendar file (RFC 5545): one event per game waiting for
their move, ending at the turn's deadline, with an alarm an hour before it.

Text in the active language, times in UTC (calendar apps show them in the reader's zone), the
deadline as the site shows it (`Game.turn_deadline`, which a vacation moves). Nothing else of
the game is in it: who plays it, the deadline and its address.

Each event's UID is the game's and the turn's (its ply): a calendar that reads the feed again
updates the event, and a new turn of the same game is a new event. DTSTAMP and LAST-MODIFIED
are the game's last change, so the same games give the same bytes (the view's ETag). A vacation
moves a deadline without changing the game's row's `updated_at`, so those stay, and SEQUENCE is
left at its default (0): nothing stored counts a turn's deadline moves, and calendar apps
replace a subscribed feed's events with what each read of it says (SEQUENCE orders scheduling
messages, which this feed does not send).
"""

from __future__ import annotations

import datetime
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.urls import reverse
from django.utils.translation import gettext as _
from icalendar import Alarm, Calendar, Event, vDuration

from core.slots import CalendarEntry
from games.models import Game
from games.presenters.names import seat_names
from games.presenters.times import deadline_text

EVENT_LENGTH = datetime.timedelta(minutes=30)
"""How long an event lasts, ending at the deadline: long enough for calendars to show it as a
block at its time (an instant or an all-day event is easy to miss)."""

ALARM_BEFORE = datetime.timedelta(hours=1)
"""The event's alarm goes off this long before the deadline."""

REFRESH = datetime.timedelta(hours=1)
"""How often calendar apps are asked to read the feed again (where they listen)."""


def game_url(game_id: Any) -> str:
    return settings.SITE_URL + reverse("games:detail", args=[game_id])


def _opponents(game: Game, user_id: Any) -> str:
    names = seat_names(game.seat_list)
    mine = {seat.position for seat in game.seat_list if seat.user_id == user_id}
    return ", ".join(name for position, name in sorted(names.items()) if position not in mine)


def calendar_feed_ics(
    *, user_id: Any, games: Iterable[Game], entries: Iterable[CalendarEntry] = ()
) -> bytes:
    """The feed of `games` (`selectors.calendar.calendar_games`) for the player `user_id`, in the
    active language and time zone (for the deadline's words in each description), and the
    `entries` other apps add (`core.slots.calendar_feed_entries`: an event's start)."""
    host = urlsplit(settings.SITE_URL).hostname or "localhost"
    calendar = Calendar()
    calendar.add("prodid", f"-//{settings.SITE_NAME}//Calendar feed//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    name = _("%(site)s: your moves") % {"site": settings.SITE_NAME}
    calendar.add("name", name)
    calendar.add("x-wr-calname", name)
    calendar.add("refresh-interval", REFRESH, parameters={"VALUE": "DURATION"})
    calendar.add("x-published-ttl", vDuration(REFRESH).to_ical().decode())
    for game in games:
        deadline = game.turn_deadline
        if deadline is None:
            continue
        url = game_url(game.id)
        summary = _("Your move in Azul against %(opponents)s") % {
            "opponents": _opponents(game, user_id)
        }
        event = Event()
        event.add("uid", f"azul-{game.id}-{game.ply}@{host}")
        event.add("dtstamp", game.updated_at)
        event.add("last-modified", game.updated_at)
        event.add("dtstart", deadline - EVENT_LENGTH)
        event.add("dtend", deadline)
        event.add("summary", summary)
        event.add(
            "description",
            "\n".join(
                [
                    _("Your turn ends %(deadline)s.") % {"deadline": deadline_text(deadline)},
                    _("Open the game: %(url)s") % {"url": url},
                ]
            ),
        )
        event.add("url", url)
        # A reminder, not an appointment: the time stays free in the player's calendar.
        event.add("transp", "TRANSPARENT")
        alarm = Alarm()
        alarm.add("action", "DISPLAY")
        alarm.add("description", summary)
        alarm.add("trigger", -ALARM_BEFORE, parameters={"RELATED": "END"})
        event.add_component(alarm)
        calendar.add_component(event)
    for entry in entries:
        event = Event()
        event.add("uid", f"azul-{entry.key}@{host}")
        event.add("dtstamp", entry.stamp)
        event.add("last-modified", entry.stamp)
        event.add("dtstart", entry.at - EVENT_LENGTH)
        event.add("dtend", entry.at)
        event.add("summary", entry.summary)
        event.add("description", entry.description)
        event.add("url", entry.url)
        event.add("transp", "TRANSPARENT")
        calendar.add_component(event)
    return calendar.to_ical()
