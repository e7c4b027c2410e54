"""How ratings show what a game did to them: the reason an unrated game gives, in words, and a
finished game's rating as the API answers it (`ratings.selectors.game_rating`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext

from games.presenters.names import public_username, seat_name
from ratings.fair_play import Unrated
from ratings.selectors import GameRating


def unrated_reason_text(reason: Unrated) -> str:
    """The reason a finished game is not rated, as a sentence in the active language."""
    if reason == Unrated.TOO_SHORT:
        return gettext(
            "Not rated: the game was resigned or abandoned before every player had made "
            "%(moves)s moves of their own."
        ) % {"moves": settings.RATINGS_MIN_OWN_MOVES}
    if reason == Unrated.PAIR_LIMIT:
        return gettext(
            "Not rated: only %(day)s games a day and %(week)s a week between the same players "
            "count in the ratings."
        ) % {
            "day": settings.RATINGS_PAIR_GAMES_PER_DAY,
            "week": settings.RATINGS_PAIR_GAMES_PER_WEEK,
        }
    return gettext(
        "Not rated: only games between people with accounts count in the ratings, not games "
        "with a computer player or studies."
    )


def game_rating_view(rating: GameRating) -> dict[str, Any]:
    """A finished game's rating as the API gives it (`serializers.GameRatingSerializer`)."""
    return {
        "rated": rating.rated,
        "reason": None if rating.reason is None else str(rating.reason),
        "reason_text": None if rating.reason is None else unrated_reason_text(rating.reason),
        "seats": [
            {
                "position": seat.seat.position,
                "username": public_username(seat.seat.user),
                "name": seat_name(seat.seat),
                "rating_before": seat.before,
                "rating_after": seat.after,
                "change": seat.change,
            }
            for seat in rating.seats
        ],
    }
