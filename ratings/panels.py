"""What ratings adds to games' pages (`core.slots`): in a finished game's banner, why it did
not move the ratings (README, "Fair play"); on the new-game form, the computer levels' ratings."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from django.urls import reverse

from core.slots import Panel
from games.models import Game
from ratings import presenters, selectors
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


def level_ratings_panel(request: HttpRequest, **page: Any) -> Panel:
    """The computer levels' ratings, on the new-game form, with the player's own (2 queries)."""
    mine = selectors.player_skill(user=request.user)
    return Panel(
        "ratings/_new_game_levels.html",
        {
            "rows": [presenters.level_row(row) for row in selectors.level_ratings()],
            "my_rating": None if mine is None else mine.rating,
            "levels_url": reverse("ratings:levels"),
        },
    )
