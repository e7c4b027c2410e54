"""What ratings adds to games' pages (`core.panels`): in a finished game's banner, why it did
not move the ratings (README, "Fair play")."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from core.panels import Panel, panel_register
from games.models import Game
from ratings import selectors
from ratings.fair_play import Unrated
from ratings.presenters import unrated_reason_text


def unrated_reason_panel(request: HttpRequest, *, game_id: Any, **page: Any) -> Panel | None:
    """Why a finished game between people is not rated; None for a rated game, or one that is
    never rated (a computer seat, a study). Built as the game's board is rebuilt, so once per
    version of the game."""
    game = Game.objects.filter(pk=game_id).first()
    reason = None if game is None else selectors.unrated_reason(game=game)
    if reason is None or reason == Unrated.NOT_BETWEEN_PEOPLE:
        return None
    return Panel("ratings/_unrated_reason.html", {"reason": unrated_reason_text(reason)})


def panels_register() -> None:
    panel_register("game_over", unrated_reason_panel)
