"""Which games between people are rated (README, "Fair play"): not one resigned or abandoned
before every player made a few moves of their own, and only the first few games of the same two
players in a day and a week. Used as a game is rated (`ratings.services.game_rate`), by the
recompute, and by the reason the game page and the API give for an unrated game
(`unrated_reason`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from enum import StrEnum
from itertools import combinations
from typing import Any

from django.conf import settings
from django.db.models import Count, Q

from games.models import LogEntry, Seat
from ratings import skill
from ratings.models import RatedGame

DAY = timedelta(days=1)
WEEK = timedelta(days=7)


class Unrated(StrEnum):
    """Why a finished game is not rated: the stable codes the API gives."""

    # A computer seat, or a study (its players have no accounts): never rated.
    NOT_BETWEEN_PEOPLE = "not_between_people"
    # Resigned or abandoned before every player made RATINGS_MIN_OWN_MOVES moves (`too_short`).
    TOO_SHORT = "too_short"
    # The two players had had their rated games of the day or the week (`pair_over_limit`).
    PAIR_LIMIT = "pair_limit"
    # Its players agreed to play it unrated (a table of an unrated event: `Game.for_ratings`).
    UNRATED_GAME = "unrated_game"


@dataclass(frozen=True)
class SeatFacts:
    """What the fair-play rules read of a seat of a finished game."""

    position: int
    user_id: int
    autoplay: bool
    resigned_at: datetime | None
    timeouts: int


def too_short(seats: Sequence[SeatFacts], moves: Iterable[tuple[int, datetime]]) -> bool:
    """Whether a game was resigned or abandoned (a seat the computer took over) before every
    player had made RATINGS_MIN_OWN_MOVES moves of their own. `moves` are the game's moves as
    (player position, when). A player's own moves are those logged before the first
    resignation, less the moves the server made for them at a timeout."""
    if not any(s.autoplay for s in seats):
        return False
    resigned = [s.resigned_at for s in seats if s.resigned_at is not None]
    cutoff = min(resigned) if resigned else None
    made = Counter(player for player, at in moves if cutoff is None or at < cutoff)
    need = settings.RATINGS_MIN_OWN_MOVES
    return any(made[s.position] - s.timeouts < need for s in seats)


def pairs(user_ids: Iterable[int]) -> list[tuple[int, int]]:
    """The unordered pairs of players of a game, smaller id first."""
    return list(combinations(sorted(set(user_ids)), 2))


def pair_over_limit(day: int, week: int) -> bool:
    """Whether a pair that already has `day` rated games together in the last 24 hours and
    `week` in the last 7 days has used up its rated games (RATINGS_PAIR_GAMES_PER_DAY/WEEK)."""
    return (
        day >= settings.RATINGS_PAIR_GAMES_PER_DAY or week >= settings.RATINGS_PAIR_GAMES_PER_WEEK
    )


def seat_facts(seats: list[Seat]) -> list[SeatFacts]:
    return [
        SeatFacts(s.position, s.user_id or 0, s.autoplay, s.resigned_at, s.timeouts) for s in seats
    ]


def game_moves(game_ids: Iterable[Any]) -> dict[Any, list[tuple[int, datetime]]]:
    """Each game's moves, as (player position, when), in one query."""
    out: dict[Any, list[tuple[int, datetime]]] = {}
    rows = LogEntry.objects.filter(game_id__in=list(game_ids), kind=LogEntry.Kind.MOVE)
    for game_id, player, at in rows.values_list("game_id", "player", "created_at").iterator():
        if player is not None:  # a move always names its player (a constraint says so)
            out.setdefault(game_id, []).append((player, at))
    return out


def pair_counts(a: int, b: int, *, at: datetime, exclude: Any) -> tuple[int, int, int]:
    """Rated games of the two players together: ever, in the 24 hours and the 7 days before
    `at` (1 query)."""
    counts = (
        RatedGame.objects.filter(game__seats__user_id=a)
        .filter(game__seats__user_id=b)
        .exclude(game_id=exclude)
        .aggregate(
            ever=Count("pk"),
            day=Count("pk", filter=Q(game__finished_at__gt=at - DAY)),
            week=Count("pk", filter=Q(game__finished_at__gt=at - WEEK)),
        )
    )
    return counts["ever"], counts["day"], counts["week"]


def game_unrated(*, game: Any, seats: list[Seat]) -> Unrated | None:
    """What keeps a finished game out of the ratings by the game alone, the first rules
    `game_rate` applies, in its order: not a game between people, then too short (its moves
    read, 1 query, only when the computer took over a seat). None: the game counts, unless its
    players' pair has had its rated games (`pair_over_limit`), which `game_rate` counts under
    the players' locks."""
    if not skill.is_rated([s.kind for s in seats], [s.user_id for s in seats]):
        return Unrated.NOT_BETWEEN_PEOPLE
    if not getattr(game, "for_ratings", True):
        return Unrated.UNRATED_GAME
    facts = seat_facts(seats)
    if any(s.autoplay for s in facts) and too_short(facts, game_moves([game.pk]).get(game.pk, [])):
        return Unrated.TOO_SHORT
    return None


def unrated_reason(*, game: Any, seats: list[Seat], rated: bool) -> Unrated | None:
    """Why a finished game is not rated, `rated` saying whether it is (its `RatedGame`): None
    for a rated game, else the rule of `game_rate` that kept it out.

    The pair limit is the rule left when the game's own (`game_unrated`) did not: it was counted
    as the game ended, over the pair's games rated before it, and counting again now would
    also count those rated since."""
    if rated:
        return None
    return game_unrated(game=game, seats=seats) or Unrated.PAIR_LIMIT
