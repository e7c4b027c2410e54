"""Template context for every page: how many games and invitations wait for the signed-in
player."""

from functools import cache
from typing import Any

from django.http import HttpRequest
from django.utils.functional import SimpleLazyObject

from games.selectors import games_waiting_count, invitations_waiting_count


def games_waiting(request: HttpRequest) -> dict[str, Any]:
    """`games_waiting`: the number of games where it is the signed-in player's turn (0 for
    visitors); `invitations_waiting`: the invitations waiting for their answer; `all_waiting`:
    both, the header's count. Counted only when a template shows them, so responses that
    render no page (the API) make no query for them, and once per page (one query for both,
    kept in the cache) however often they are shown."""

    def signed_in() -> Any:
        user = getattr(request, "user", None)
        return user.pk if user is not None and user.is_authenticated else None

    @cache
    def games() -> int:
        user_id = signed_in()
        return 0 if user_id is None else games_waiting_count(user_id=user_id)

    @cache
    def invitations() -> int:
        user_id = signed_in()
        return 0 if user_id is None else invitations_waiting_count(user_id=user_id)

    return {
        "games_waiting": SimpleLazyObject(games),
        "invitations_waiting": SimpleLazyObject(invitations),
        "all_waiting": SimpleLazyObject(lambda: games() + invitations()),
    }
