"""The history of finished games, and a player's record over them."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from typing import Any, TypedDict

from django.db.models import Avg, Count, Max, Prefetch, Q, QuerySet

from accounts.models import User
from games.models import Game, Seat

HISTORY_PAGE_SIZE = 20
HISTORY_COUNT_SECONDS = 600
"""How long a count of finished games is kept (`history_count_key`): its key changes when a
game finishes; this bounds what a game's removal leaves stale (an account's deletion)."""


# What a row of the history reads (`presenters.game.game_overview`), and no more: building the
# users and profiles whole took a third of a page's time at 100,000 games (`make
# bench-history`). A field read that is not here costs a query per row, which the history's
# query budget test counts.
_GAME_FIELDS = (
    "id", "status", "variant", "num_players", "days_per_move", "created_at", "started_at",
    "finished_at", "ply", "turn_deadline", "created_by_id",
)  # fmt: skip
_SEAT_FIELDS = (
    "game_id", "position", "kind", "user_id", "invitation", "bot_level", "name", "final_score",
    "place", "timeouts", "autoplay", "resigned_at", "rating_before", "rating_after",
    "user__username", "user__profile__display_name", "user__profile__vacation_until",
)  # fmt: skip


def finished_games() -> QuerySet[Game]:
    """Every finished game that was played (not a study), newest first, with its seats: filter
    it (`games.filters.GameHistoryFilter`), paginate it, then `presenters.lists.history_rows`.
    Read along `game_status_finished_idx`. The cached state is not read: a row shows the final
    scores that the seats keep."""
    seats = Prefetch(
        "seats",
        queryset=Seat.with_players().only(*_SEAT_FIELDS),
        to_attr="seat_list",
    )
    # The creator by a query of its own, for the page's games only: joined, PostgreSQL looks
    # them up for every game the page's offset skips too (2 of page 50's 3 ms).
    creators = Prefetch("created_by", queryset=User.objects.select_related(None).only("username"))
    return (
        Game.objects.only(*_GAME_FIELDS)
        # `Game.seat_list` declares the prefetch's attribute, which the stubs' plugin reads as
        # a second definition.
        .prefetch_related(creators, seats)  # type: ignore[no-redef]
        .filter(status=Game.Status.FINISHED, is_study=False)
        .order_by("-finished_at", "-id")
    )


def finished_version() -> str:
    """What changes whenever a game finishes: the newest finished game's id (one read of
    `game_status_finished_idx`'s first entry). Counts over the finished games and what they
    settle (the leaderboard's) are kept under keys that name it."""
    newest = (
        Game.objects.filter(status=Game.Status.FINISHED, is_study=False)
        .order_by("-finished_at", "-id")
        .values_list("pk", flat=True)
        .first()
    )
    return str(newest)


def history_count_key(filters: Mapping[str, Any]) -> str:
    """The cache key of the number of finished games that `filters` (the cleaned data of
    `games.filters.GameHistoryFilter`; empty: every game) select, as the history stands now
    (`finished_version`)."""
    chosen = {name: value for name, value in filters.items() if value not in (None, "")}
    digest = hashlib.sha256(json.dumps(chosen, sort_keys=True, default=str).encode()).hexdigest()[
        :32
    ]
    return f"games:history-count:{finished_version()}:{digest}"


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
