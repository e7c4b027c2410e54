from typing import Any

from django import template

from games.models import Game
from ratings import selectors

register = template.Library()


@register.filter
def rating_change(after: Any, before: Any) -> str:
    """`{{ after|rating_change:before }}`: "+14", "-3" or "±0"; "" when the game was unrated."""
    if after is None or before is None:
        return ""
    change = after - before
    return f"+{change}" if change > 0 else f"{change}" if change < 0 else "±0"


@register.simple_tag
def unrated_reason(game: Any) -> str:
    """`{% unrated_reason game %}`: why a finished game between people did not move the
    ratings (README, "Fair play"), or "" for a game that did, is not over, or is never rated
    (a computer seat, a study)."""
    if isinstance(game, dict):
        # The board's cached context carries the game as its id and status.
        if game.get("status") != Game.Status.FINISHED:
            return ""
        found = Game.objects.filter(pk=game["id"]).first()
        if found is None:
            return ""
        game = found
    return selectors.unrated_reason(game=game) or ""
