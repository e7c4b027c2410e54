"""The history of finished games, and a player's record over them."""

from __future__ import annotations

from typing import TypedDict

from django.db.models import Avg, Count, Max, Q, QuerySet

from accounts.models import User
from games.models import Game, Seat

HISTORY_PAGE_SIZE = 20


def finished_games() -> QuerySet[Game]:
    """Every finished game that was played (not a study), newest first, with its seats: filter
    it (`games.filters.GameHistoryFilter`), paginate it, then `presenters.lists.history_rows`.
    Read along `game_status_finished_idx`. The cached state is not read: a row shows the final
    scores that the seats keep."""
    return (
        Game.objects.with_seats()
        .defer("state")
        .filter(status=Game.Status.FINISHED, is_study=False)
        .order_by("-finished_at", "-id")
    )


class PlayerStats(TypedDict):
    games: int
    wins: int
    average: float | None
    best: int | None
    win_rate: float


def player_stats(*, user: User) -> PlayerStats:
    """The player's finished games (not studies; against anyone), wins (first place, shared
    or not), win rate, and average and best final score, in one query."""
    totals = Seat.objects.filter(
        user=user, game__status=Game.Status.FINISHED, game__is_study=False
    ).aggregate(
        games=Count("pk"),
        wins=Count("pk", filter=Q(place=1)),
        average=Avg("final_score"),
        best=Max("final_score"),
    )
    games = totals["games"]
    return {
        "games": games,
        "wins": totals["wins"],
        "average": totals["average"],
        "best": totals["best"],
        "win_rate": totals["wins"] / games if games else 0.0,
    }
