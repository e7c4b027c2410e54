"""Reads for ratings: the leaderboard, in a fixed number of queries whatever the number of
players.

One rating per player over all their rated games; a leaderboard for one kind of game (variant,
number of players) lists, in that rating's order, the players with at least `min_games()` rated
games of that kind, with their games and wins of that kind (README, "Ratings and
leaderboards").
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db.models import Q, QuerySet

from accounts.models import User
from accounts.names import player_name
from games.models import Game, Seat
from ratings.models import ANY_PLAYERS, ANY_VARIANT, PlayerRecord, Rating

PAGE_SIZE = 50


def min_games() -> int:
    """Rated games a player needs (of the kind shown) to appear on a leaderboard: the
    RATINGS_MIN_GAMES setting."""
    return settings.RATINGS_MIN_GAMES


def _kind(variant: str | None, num_players: int | None) -> Q:
    return Q(variant=variant or ANY_VARIANT, num_players=num_players or ANY_PLAYERS)


def leaderboard(*, variant: str | None = None, num_players: int | None = None) -> QuerySet:
    """The players on the leaderboard of one kind of game, best first (equal ratings by user
    id), with their users and profiles: paginate it, then `leaderboard_rows`.

    Read along `playerrecord_board_idx` (kind, rating descending, user), so a page costs its
    rows, not a sort of every player."""
    return (
        PlayerRecord.objects.filter(_kind(variant, num_players), games__gte=min_games())
        .select_related("user__profile")
        .order_by("-rating", "user_id")
    )


def _row(record: PlayerRecord, rank: int | None) -> dict[str, Any]:
    return {
        "rank": rank,
        "username": record.user.get_username(),
        "display_name": player_name(record.user),
        "rating": round(record.rating),
        "games": record.games,
        "wins": record.wins,
        "win_rate": record.wins / record.games if record.games else 0.0,
    }


def leaderboard_rows(records: Any, *, first_rank: int) -> list[dict[str, Any]]:
    """A page of `leaderboard()` as rows; `first_rank` is the rank of its first player."""
    return [_row(record, first_rank + i) for i, record in enumerate(records)]


def leaderboard_standing(
    *,
    user: User | AnonymousUser | None,
    variant: str | None = None,
    num_players: int | None = None,
) -> dict[str, Any] | None:
    """The user's own row of the leaderboard, wherever it falls (2 queries): their rank, or a
    null rank and `games_needed` while they have too few rated games of the kind to appear.
    None for a visitor, or a player with no rated game of the kind."""
    if user is None or not user.is_authenticated:
        return None
    record = (
        PlayerRecord.objects.filter(_kind(variant, num_players), user_id=user.pk)
        .select_related("user__profile")
        .first()
    )
    if record is None:
        return None
    needed = max(0, min_games() - record.games)
    rank = None
    if not needed:
        ahead = Q(rating__gt=record.rating) | Q(rating=record.rating, user_id__lt=record.user_id)
        rank = 1 + leaderboard(variant=variant, num_players=num_players).filter(ahead).count()
    return {**_row(record, rank), "games_needed": needed}


def player_rating(*, user: User) -> int | None:
    """The player's shown rating, rounded; None before their first rated game (1 query)."""
    value = Rating.objects.filter(user_id=user.pk).values_list("rating", flat=True).first()
    return round(value) if value is not None else None


def rating_history(*, user: User) -> list[tuple[datetime, int]]:
    """(when the game ended, the player's shown rating after it) for each of their rated games,
    oldest first (1 query)."""
    rows = (
        Seat.objects.filter(
            user_id=user.pk, rating_after__isnull=False, game__status=Game.Status.FINISHED
        )
        .order_by("game__finished_at", "game_id")
        .values_list("game__finished_at", "rating_after")
    )
    # The query leaves out what would be None (a seat not rated, a game not ended).
    return [(ended, rating) for ended, rating in rows if ended is not None and rating is not None]
