"""Template context for every page: how many games wait for the signed-in player."""

from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games.selectors import games_waiting_count


def games_waiting(request: HttpRequest) -> dict[str, Any]:
    """`games_waiting`: the number of games where it is the signed-in player's turn (0 for
    visitors). Counted only when a template shows it, so responses that render no page (the
    API) make no query for it, and once per page however often it is shown."""

    def count() -> int:
        user = getattr(request, "user", None)
        if user is None or not user.is_authenticated:
            return 0
        return games_waiting_count(user_id=user.pk)

    return {"games_waiting": SimpleLazyObject(count)}
