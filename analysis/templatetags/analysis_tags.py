"""Template tags that put the analysis on the game page and on the replay's positions."""

from __future__ import annotations

from typing import Any

from django import template

from analysis import selectors
from games.models import Game

register = template.Library()


@register.inclusion_tag("analysis/_panel.html", takes_context=True)
def game_analysis(context: dict[str, Any], game_id: Any) -> dict[str, Any]:
    """The analysis panel of a finished game's page (nothing for a game in progress)."""
    game = Game.objects.with_seats().filter(pk=game_id).first()
    if game is None or game.status != Game.Status.FINISHED or game.is_study:
        return {"analysis": None}
    request = context.get("request")
    viewer = getattr(request, "user", None)
    return {
        "analysis": selectors.analysis_view(game=game, viewer=viewer),
        "game_id": game.pk,
        "csrf_token": context.get("csrf_token"),
    }


@register.inclusion_tag("analysis/_judged_move.html")
def judged_move(game: Game, ply: int) -> dict[str, Any]:
    """On a replay's position, the analysis of the move played from it, if there is one."""
    return {"judged": selectors.judged_move_at(game=game, ply=ply), "game": game}
