"""Events for tests: made by the services, entered until full (the start runs on commit), and
played round by round through the games' own move path."""

from __future__ import annotations

from typing import Any

from django.test import TestCase

from events import services
from events.models import Event, EventTable
from tests.support import factories
from tests.support.play import play_to_end


def event_settings(**changes: Any) -> services.EventSettings:
    """A Swiss of two rounds for four at tables of two, with `changes`."""
    values: dict[str, Any] = {
        "name": "Winter Swiss",
        "format": "swiss",
        "table_size": 2,
        "max_entrants": 4,
    }
    values.update(changes)
    if values["format"] == "swiss":
        values.setdefault("rounds", 2)
    return services.EventSettings(**values)


def make_event(organiser: Any, **changes: Any) -> Event:
    return services.event_create(organiser=organiser, settings_=event_settings(**changes))


def new_players(count: int, prefix: str = "p") -> list[Any]:
    return [factories.user(f"{prefix}{n}") for n in range(count)]


def started_event(organiser: Any, entrants: list[Any], **changes: Any) -> Event:
    """An event with no start date, entered by `entrants` until full: it starts by the task its
    last entry sends on commit."""
    event = make_event(organiser, max_entrants=len(entrants), **changes)
    with TestCase.captureOnCommitCallbacks(execute=True):
        for user in entrants:
            services.entry_register(event_id=event.pk, user=user)
    event.refresh_from_db()
    return event


def play_round(event: Event) -> Event:
    """The current round played to its end: its last game's end sends the event on."""
    with TestCase.captureOnCommitCallbacks(execute=True):
        for table in EventTable.objects.filter(event=event, round=event.current_round):
            play_to_end(table.game_id, seed=table.number)
    event.refresh_from_db()
    return event
