"""The events' panels on other apps' pages (`core.slots`, connected in `EventsConfig.ready`): on
a game's page, which event, round and table the game is; on a player's page, the events they
entered; in a player's calendar feed, when the events they entered start."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import User
from core.outages.cache import cached
from core.slots import CalendarEntry, Panel
from events import selectors
from events.models import Event

GAME_EVENT_SECONDS = 24 * 3600
"""How long a game's event is kept: a game is an event's table from its creation on, and an
event's name never changes, so only the cache's room limits it."""
PLAYER_EVENTS_SHOWN = 10
FINAL_RANKS_SECONDS = 7 * 24 * 3600
"""A finished event's ranks never change."""


def _game_event(game_id: Any) -> dict[str, Any] | None:
    table = selectors.event_of_game(game_id)
    if table is None:
        return None
    return {
        "event_id": table.event_id,
        "name": table.event.name,
        "round": table.round,
        "table": table.number,
        "round_robin": table.event.format == Event.Format.ROUND_ROBIN,
    }


def game_page_panel(request: HttpRequest, *, game_id: Any, **page: Any) -> Panel | None:
    """ "Game of <event>, round N, table M", with a link to the event's page; none for a game
    of no event. Kept in the cache (a game of no event as `{}`), so a board page asks the
    database once per game."""
    about = cached(f"events:game:{game_id}", lambda: _game_event(game_id) or {}, GAME_EVENT_SECONDS)
    if not about:
        return None
    return Panel("events/_game_panel.html", about)


def _final_ranks(event: Event) -> dict[int, int]:
    """The ranks of a finished event's players, by user id (kept: they never change)."""

    def ranks() -> dict[int, int]:
        return {line.user.pk: line.row.rank for line in selectors.standings_of(event)}

    return cached(f"events:final-ranks:{event.pk}", ranks, FINAL_RANKS_SECONDS)


def player_page_panel(request: HttpRequest, *, player: User, **page: Any) -> Panel | None:
    """The events `player` entered, newest first (the last `PLAYER_EVENTS_SHOWN`), each with
    its status and, once finished, their place. None for a player who entered none."""
    entries = list(selectors.player_events(player)[:PLAYER_EVENTS_SHOWN])
    if not entries:
        return None
    rows = []
    for entry in entries:
        event = entry.event
        finished = event.status == Event.Status.FINISHED
        rows.append(
            {
                "event": event,
                "withdrawn": not entry.is_active,
                "rank": _final_ranks(event).get(player.pk) if finished else None,
            }
        )
    # A league's divisions are events: a player in one has a league history to link to.
    leagues = any(entry.event.season_id is not None for entry in entries)
    return Panel("events/_player_panel.html", {"rows": rows, "player": player, "leagues": leagues})


def calendar_feed_entries(*, user_id: Any, **about: Any) -> list[CalendarEntry]:
    """A player's calendar feed: the start of each event they entered that has a start date and
    has not started (`core.slots.calendar_feed_entries`); its UID changes with the date."""
    entries = []
    for event in selectors.events_starting_for(user_id):
        assert event.starts_at is not None  # the selector's filter
        url = settings.SITE_URL + reverse("events:detail", args=[event.pk])
        entries.append(
            CalendarEntry(
                key=f"event-{event.pk}-{int(event.starts_at.timestamp())}",
                at=event.starts_at,
                summary=_("%(event)s starts") % {"event": event.name},
                description=_("The event you entered starts: %(url)s") % {"url": url},
                url=url,
                stamp=event.created_at,
            )
        )
    return entries
