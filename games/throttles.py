"""How often one player may create, join and rematch games, invite to a seat and save notes
(`core.api.throttles`: one count per player and kind, shared by the API and the forms; the rates
`game_create`, `game_join`, `game_rematch`, `game_invite`, `game_notes` in
azul_site/settings/api.py), and the replay's points (per player or address). The caps on what a
player has at once (`services.setup`) hold regardless, in the database."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy
from rest_framework.throttling import SimpleRateThrottle

from core.api import throttles as throttling
from games.errors import GameError


class TooManyRequests(throttling.TooManyRequests, GameError):
    """A player did something to games too often; `wait` is the seconds until they may again."""


class GameThrottle(throttling.PlayerThrottle):
    """One count per player and `scope`, for POSTs only (a view's GET is not a creation)."""


class GameCreateThrottle(GameThrottle):
    scope = "game_create"
    what = gettext_lazy("You have created as many games as you may for now")


class GameJoinThrottle(GameThrottle):
    scope = "game_join"
    what = gettext_lazy("You have joined as many games as you may for now")


class GameRematchThrottle(GameThrottle):
    scope = "game_rematch"
    what = gettext_lazy("You have asked for as many rematches as you may for now")


class GameInviteThrottle(GameThrottle):
    """Inviting someone to a seat of a game waiting for players (`services.seat_invite`)."""

    scope = "game_invite"
    what = gettext_lazy("You have invited as many players to seats as you may for now")


class GameNotesThrottle(GameThrottle):
    """Saving one's private notes on a game (`services.game_note_save`): a PUT on the API, a
    POST from the board page's form."""

    scope = "game_notes"
    what = gettext_lazy("You have saved your notes as often as you may for now")
    methods = ("POST", "PUT")


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
    throttling.check(request, throttle, TooManyRequests)


ThrottledMessages = throttling.ThrottledMessages


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
