"""How often one player may create events, enter and leave them, and act as an organiser: one
count per player and kind, in the cache, shared by the API (DRF throttles on its views) and the
HTML forms (`check`), so the forms are no way around the API's limits. The rates are DRF's
`DEFAULT_THROTTLE_RATES` (`event_create`, `event_entry`, `event_organise`;
azul_site/settings/api.py). They cap attempts, refused ones too; what an organiser has at once
(`EVENTS_MAX_OPEN`, `EVENTS_MAX_PER_DAY`) is held by the services, in the database."""

from __future__ import annotations

import math
from typing import Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from events.errors import EventError


class TooManyEventRequests(EventError):
    """A player did something too often; `wait` is the seconds until they may again."""

    status_code = 429
    code = "throttled"

    def __init__(self, message: str, wait: float) -> None:
        self.wait = wait
        super().__init__(message)

    @property
    def extra(self) -> dict[str, Any]:
        return {"retry_after": math.ceil(self.wait)}


def _message(scope: str, wait: float) -> str:
    minutes = max(1, math.ceil(wait / 60))
    what = {
        "event_create": _("You have tried to create as many events as you may for now"),
        "event_entry": _("You have registered for and left events as often as you may for now"),
        "event_organise": _("You have changed your events as often as you may for now"),
    }[scope]
    return _("%(what)s: try again in %(minutes)s minutes.") % {"what": what, "minutes": minutes}


class EventThrottle(SimpleRateThrottle):
    """One count per player and `scope`, for POSTs only (a view's GET is a read)."""

    scope = ""

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        user = request.user
        if not (user and user.is_authenticated):
            return None  # writes need signing in: the API answers 401 anyway
        return self.cache_format % {"scope": self.scope, "ident": user.pk}

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method != "POST":
            return True
        return super().allow_request(request, view)

    def message(self) -> str:
        return _message(self.scope, self.wait() or 0)


class EventCreateThrottle(EventThrottle):
    scope = "event_create"


class EventEntryThrottle(EventThrottle):
    """Registering for an event and withdrawing from one."""

    scope = "event_entry"


class EventOrganiseThrottle(EventThrottle):
    """An organiser's cancelling of their event and removing of a player."""

    scope = "event_organise"


def check(request: Any, throttle: type[EventThrottle]) -> None:
    """For an HTML form: count the signed-in user's POST against `throttle`, or raise
    TooManyEventRequests (which the form shows as it shows any refusal)."""
    checker = throttle()
    if not checker.allow_request(request, None):
        raise TooManyEventRequests(checker.message(), checker.wait() or 0)


class EventThrottledMessages:
    """For an API view: the site's throttles and the view's `event_throttles` (counted for
    POSTs); an event throttle's refusal says which limit, with `Retry-After`."""

    event_throttles: tuple[type[EventThrottle], ...] = ()

    def get_throttles(self) -> list[Any]:
        return [*super().get_throttles(), *(t() for t in self.event_throttles)]  # type: ignore[misc]

    def check_throttles(self, request: Request) -> None:
        for throttle in self.get_throttles():
            if not throttle.allow_request(request, self):
                wait = throttle.wait()
                if isinstance(throttle, EventThrottle):
                    raise Throttled(wait, detail=throttle.message())
                self.throttled(request, wait)  # type: ignore[attr-defined]
