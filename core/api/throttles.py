"""How often one player may do a thing that writes (create a game, enter an event, ...): one
count per player and kind (a throttle's `scope`), in the cache, shared by the API (DRF throttles
on its views, `ThrottledMessages`) and the HTML forms (`check`), so the forms are no way around
the API's limits. The rates are DRF's `DEFAULT_THROTTLE_RATES` (azul_site/settings/api.py). With
Redis away a throttle cannot count and lets the request through; the caps an app keeps on what a
player has at once hold regardless, in the database. Each app names its throttles and says what
each limits (`games.throttles`, `events.throttles`)."""

from __future__ import annotations

import math
from typing import Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from core.errors import ServiceError


class TooManyRequests(ServiceError):
    """A player did something too often; `wait` is the seconds until they may again."""

    status_code = 429
    code = "throttled"

    def __init__(self, message: str, wait: float) -> None:
        self.wait = wait
        super().__init__(message)

    @property
    def extra(self) -> dict[str, Any]:
        return {"retry_after": math.ceil(self.wait)}


class PlayerThrottle(SimpleRateThrottle):
    """One count per player and `scope`, for the `methods` that write (a view's GET is a read).
    `what` says what the limit is on ("You have created as many games as you may for now")."""

    scope = ""
    what: Any = ""
    methods: tuple[str, ...] = ("POST",)

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        user = request.user
        if not (user and user.is_authenticated):
            return None  # writes need signing in: the API answers 401 anyway
        return self.cache_format % {"scope": self.scope, "ident": user.pk}

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method not in self.methods:
            return True
        return super().allow_request(request, view)

    def message(self) -> str:
        minutes = max(1, math.ceil((self.wait() or 0) / 60))
        return _("%(what)s: try again in %(minutes)s minutes.") % {
            "what": self.what,
            "minutes": minutes,
        }


def check(
    request: Any, throttle: type[PlayerThrottle], error: type[TooManyRequests] = TooManyRequests
) -> None:
    """For an HTML form: count the signed-in user's request against `throttle`, or raise `error`
    (which the form shows as it shows any refusal)."""
    checker = throttle()
    if not checker.allow_request(request, None):
        raise error(checker.message(), checker.wait() or 0)


class ThrottledMessages:
    """For an API view: the site's throttles and the view's `player_throttles` (counted for the
    methods that write); a player throttle's refusal says which limit, with `Retry-After`."""

    player_throttles: tuple[type[PlayerThrottle], ...] = ()

    def get_throttles(self) -> list[Any]:
        return [*super().get_throttles(), *(t() for t in self.player_throttles)]  # type: ignore[misc]

    def check_throttles(self, request: Request) -> None:
        for throttle in self.get_throttles():
            if not throttle.allow_request(request, self):
                wait = throttle.wait()
                if isinstance(throttle, PlayerThrottle):
                    raise Throttled(wait, detail=throttle.message())
                self.throttled(request, wait)  # type: ignore[attr-defined]
