"""Reads for ratings: the leaderboard, in a fixed number of queries whatever the number of
players.

One rating per player over all their rated games; a leaderboard for one kind of game (variant,
number of players) lists, in that rating's order, the players with at least `min_games()` rated
games of that kind, with their games and wins of that kind (README, "Ratings and
leaderboards").
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.db.models import Q, QuerySet

from accounts.models import User
from accounts.names import player_name
from games.models import Game, Seat
from ratings import fair_play
from ratings.models import ANY_PLAYERS, ANY_VARIANT, PlayerRecord, RatedGame, Rating

PAGE_SIZE = 50


def min_games() -> int:
    """Rated games a player needs (of the kind shown) to appear on a leaderboard: the
    RATINGS_MIN_GAMES setting."""
    return settings.RATINGS_MIN_GAMES


def min_opponents() -> int:
    """Different opponents a player needs (in rated games of any kind) to appear on a
    leaderboard: the RATINGS_MIN_OPPONENTS setting (README, "Fair play")."""
    return settings.RATINGS_MIN_OPPONENTS


def _kind(variant: str | None, num_players: int | None) -> Q:
    return Q(variant=variant or ANY_VARIANT, num_players=num_players or ANY_PLAYERS)


def leaderboard(*, variant: str | None = None, num_players: int | None = None) -> QuerySet:
    """The players on the leaderboard of one kind of game, best first (equal ratings by user
    id), with their users and profiles: paginate it, then `leaderboard_rows`.

    Read along `playerrecord_board_idx` (kind, rating descending, user), so a page costs its
    rows, not a sort of every player."""
    return (
        PlayerRecord.objects.filter(
            _kind(variant, num_players),
            games__gte=min_games(),
            user__rating__opponents__gte=min_opponents(),
            # A player who deleted their account is not listed (their games still count).
            user__deleted_at__isnull=True,
        )
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
    null rank and `games_needed` and `opponents_needed` while they have too few rated games of
    the kind, or too few different opponents, to appear. None for a visitor, or a player with no
    rated game of the kind."""
    if user is None or not user.is_authenticated:
        return None
    record = (
        PlayerRecord.objects.filter(_kind(variant, num_players), user_id=user.pk)
        .select_related("user__profile", "user__rating")
        .first()
    )
    if record is None:
        return None
    needed = max(0, min_games() - record.games)
    opponents = getattr(record.user, "rating", None)
    opponents_needed = max(0, min_opponents() - (opponents.opponents if opponents else 0))
    rank = None
    if not needed and not opponents_needed:
        ahead = Q(rating__gt=record.rating) | Q(rating=record.rating, user_id__lt=record.user_id)
        rank = 1 + leaderboard(variant=variant, num_players=num_players).filter(ahead).count()
    return {**_row(record, rank), "games_needed": needed, "opponents_needed": opponents_needed}


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


@dataclass(frozen=True)
class LopsidedPair:
    """Two players with many finished games together, nearly all won by one of them: what a
    player farming a second account of theirs leaves behind (README, "Fair play")."""

    winner: User
    loser: User
    games: int  # finished games of the two together, rated or not
    rated: int  # of them, rated
    wins: int  # of them, won by `winner` (placed ahead of `loser`)
    last: datetime | None  # when the last of them ended


def lopsided_pairs(
    *, min_games: int = 5, min_share: float = 0.8, limit: int = 100
) -> list[LopsidedPair]:
    """Pairs of players with at least `min_games` finished games together, of which one of them
    finished ahead in at least `min_share`: most games first (2 queries)."""
    seat = Seat._meta.db_table
    game = Game._meta.db_table
    rated = RatedGame._meta.db_table
    sql = f"""
        SELECT a.user_id, b.user_id, COUNT(*), COUNT(r.game_id),
               COUNT(*) FILTER (WHERE a.place < b.place),
               COUNT(*) FILTER (WHERE b.place < a.place),
               MAX(g.finished_at)
        FROM {seat} a
        JOIN {seat} b ON b.game_id = a.game_id AND b.user_id > a.user_id
        JOIN {game} g ON g.id = a.game_id
        LEFT JOIN {rated} r ON r.game_id = a.game_id
        WHERE g.status = %s
        GROUP BY a.user_id, b.user_id
        HAVING COUNT(*) >= %s
           AND GREATEST(COUNT(*) FILTER (WHERE a.place < b.place),
                        COUNT(*) FILTER (WHERE b.place < a.place)) >= %s * COUNT(*)
        ORDER BY COUNT(*) DESC, a.user_id, b.user_id
        LIMIT %s
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [Game.Status.FINISHED, min_games, min_share, limit])
        rows = cursor.fetchall()
    users = User.objects.in_bulk({pk for row in rows for pk in row[:2]})
    out = []
    for a, b, games, rated_games, a_wins, b_wins, last in rows:
        winner, loser, wins = (a, b, a_wins) if a_wins >= b_wins else (b, a, b_wins)
        out.append(LopsidedPair(users[winner], users[loser], games, rated_games, wins, last))
    return out


def _seats(game: Game) -> list[Seat]:
    return getattr(game, "seat_list", None) or list(game.seats.order_by("position"))


def unrated_reason(*, game: Game) -> fair_play.Unrated | None:
    """Why a finished game is not rated (`fair_play.unrated_reason`); None for a rated game, or
    one not over. At most 3 queries, for finished games only."""
    if game.status != Game.Status.FINISHED:
        return None
    return game_rating(game=game).reason


@dataclass(frozen=True)
class SeatRating:
    """A seat of a finished game, with its player's shown rating before and after the game
    (None when the game is not rated)."""

    seat: Seat
    before: int | None
    after: int | None

    @property
    def change(self) -> int | None:
        if self.before is None or self.after is None:
            return None
        return self.after - self.before


@dataclass(frozen=True)
class GameRating:
    """What a finished game did to the ratings: whether it is rated, why not, and each seat's
    rating before and after it."""

    rated: bool
    reason: fair_play.Unrated | None
    seats: list[SeatRating]


def game_rating(*, game: Game) -> GameRating:
    """`GameRating` of a finished game (`game.status` FINISHED), given with its seats and their
    users (`games.selectors.game_get`): 1 query, 2 when the computer took over a seat of an
    unrated game."""
    assert game.status == Game.Status.FINISHED, "a game is rated, or not, when it ends"
    seats = _seats(game)
    rated = RatedGame.objects.filter(game_id=game.pk).exists()
    return GameRating(
        rated=rated,
        reason=fair_play.unrated_reason(game=game, seats=seats, rated=rated),
        seats=[SeatRating(seat, seat.rating_before, seat.rating_after) for seat in seats],
    )
