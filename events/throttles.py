"""How often one player may create events, enter and leave them, and act as an organiser
(`core.api.throttles`: one count per player and kind, shared by the API and the forms, so the
forms are no way around the API's limits; the rates `event_create`, `event_entry`,
`event_organise` in azul_site/settings/api.py). They cap attempts, refused ones too; what an
organiser has at once (`EVENTS_MAX_OPEN`, `EVENTS_MAX_PER_DAY`) is held by the services, in the
database."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy

from core.api import throttles as throttling
from events.errors import EventError


class TooManyEventRequests(throttling.TooManyRequests, EventError):
    """A player did something to events too often; `wait` is the seconds until they may again."""


class EventThrottle(throttling.PlayerThrottle):
    """One count per player and `scope`, for POSTs only (a view's GET is a read)."""


class EventCreateThrottle(EventThrottle):
    scope = "event_create"
    what = gettext_lazy("You have tried to create as many events as you may for now")


class EventEntryThrottle(EventThrottle):
    """Registering for an event and withdrawing from one (and joining and leaving leagues)."""

    scope = "event_entry"
    what = gettext_lazy("You have registered for and left events as often as you may for now")


class EventOrganiseThrottle(EventThrottle):
    """An organiser's cancelling of their event and removing of a player."""

    scope = "event_organise"
    what = gettext_lazy("You have changed your events as often as you may for now")


def check(request: Any, throttle: type[EventThrottle]) -> None:
    """For an HTML form: count the signed-in user's POST against `throttle`, or raise
    TooManyEventRequests (which the form shows as it shows any refusal)."""
    throttling.check(request, throttle, TooManyEventRequests)


EventThrottledMessages = throttling.ThrottledMessages
