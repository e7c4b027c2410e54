"""How often one player may create, join and rematch games and invite to a seat: one count per
player and kind, in the cache, shared by the API (DRF throttle classes on its views) and the HTML
forms (`check`), so the forms are no way around the API's limits. The rates are DRF's
`DEFAULT_THROTTLE_RATES` (`game_create`, `game_join`, `game_rematch`, `game_invite`;
azul_site/settings/api.py). With Redis away a throttle cannot count and lets the request through;
the caps on what a player has at once (`services.setup`) hold regardless, in the database."""

from __future__ import annotations

import math
from typing import Any

from django.utils.translation import gettext as _
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle

from games.errors import GameError


class TooManyRequests(GameError):
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
        "game_create": _("You have created as many games as you may for now"),
        "game_join": _("You have joined as many games as you may for now"),
        "game_rematch": _("You have asked for as many rematches as you may for now"),
        "game_invite": _("You have invited as many players to seats as you may for now"),
        "game_notes": _("You have saved your notes as often as you may for now"),
    }[scope]
    return _("%(what)s: try again in %(minutes)s minutes.") % {"what": what, "minutes": minutes}


class GameThrottle(SimpleRateThrottle):
    """One count per player and `scope`, for POSTs only (a view's GET is not a creation)."""

    scope = ""

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        user = request.user
        if not (user and user.is_authenticated):
            return None  # the API answers 401 anyway, and the forms need signing in
        return self.cache_format % {"scope": self.scope, "ident": user.pk}

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method != "POST":
            return True
        return super().allow_request(request, view)

    def message(self) -> str:
        return _message(self.scope, self.wait() or 0)


class GameCreateThrottle(GameThrottle):
    scope = "game_create"


class GameJoinThrottle(GameThrottle):
    scope = "game_join"


class GameRematchThrottle(GameThrottle):
    scope = "game_rematch"


class GameInviteThrottle(GameThrottle):
    """Inviting someone to a seat of a game waiting for players (`services.seat_invite`)."""

    scope = "game_invite"


class GameNotesThrottle(GameThrottle):
    """Saving one's private notes on a game (`services.game_note_save`): a PUT on the API, a
    POST from the board page's form."""

    scope = "game_notes"

    def allow_request(self, request: Any, view: Any) -> bool:
        if request.method not in ("POST", "PUT"):
            return True
        return SimpleRateThrottle.allow_request(self, request, view)


class ReplayPointsThrottle(SimpleRateThrottle):
    """Every point of a replay at once (`games.web.pages.game_replay_points`) is the costliest
    read of the site (about a second for 80 plies), open to visitors for finished games: counted
    per player, or per address for a visitor. Past the rate the page's script steps through the
    replay a page at a time, as without it."""

    scope = "replay_points"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        user = request.user
        ident = user.pk if user and user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}


def replay_points_refused(request: Any) -> float | None:
    """Count this load of a replay's points: None when allowed, else the seconds to wait."""
    limit = ReplayPointsThrottle()
    if limit.allow_request(request, None):  # type: ignore[arg-type]  # no view: a page's
        return None
    return limit.wait() or 1.0


def check(request: Any, throttle: type[GameThrottle]) -> None:
    """For an HTML form: count the signed-in user's POST against `throttle`, or raise
    TooManyRequests (which the form shows as it shows any refusal)."""
    checker = throttle()
    if not checker.allow_request(request, None):
        raise TooManyRequests(checker.message(), checker.wait() or 0)


class ThrottledMessages:
    """For an API view: the site's throttles and the view's `game_throttles` (counted for POSTs);
    a game throttle's refusal says which limit, with `Retry-After`."""

    game_throttles: tuple[type[GameThrottle], ...] = ()

    def get_throttles(self) -> list[Any]:
        return [*super().get_throttles(), *(t() for t in self.game_throttles)]  # type: ignore[misc]

    def check_throttles(self, request: Request) -> None:
        for throttle in self.get_throttles():  # type: ignore[attr-defined]
            if not throttle.allow_request(request, self):
                wait = throttle.wait()
                if isinstance(throttle, GameThrottle):
                    raise Throttled(wait, detail=throttle.message())
                self.throttled(request, wait)  # type: ignore[attr-defined]


__all__ = [
    "GameCreateThrottle",
    "GameInviteThrottle",
    "GameJoinThrottle",
    "GameNotesThrottle",
    "GameRematchThrottle",
    "GameThrottle",
    "TooManyRequests",
    "check",
]
