"""Writes for ratings.

`game_rate` rates a game in the transaction that records its result (`ratings.receivers` calls
it when a move finishes the game: `games.effects.game_finished`): once per game, under the lock
of the players' `Rating` rows, which every rating write takes in user order (the game's own row
is locked before, by the caller). `ratings.recompute` rebuilds every rating from the history of
finished games, and `ratings.fair_play` says which games between people count."""

from __future__ import annotations

import logging
from collections import Counter
from datetime import datetime, timedelta

from django.conf import settings
from django.db import transaction
from django.db.models import Min
from django.utils import timezone

from games.models import Game, Seat
from ratings import fair_play, levels, selectors, skill
from ratings.models import (
    ANY_PLAYERS,
    ANY_VARIANT,
    LevelRating,
    PlayerRecord,
    RatedGame,
    Rating,
)

logger = logging.getLogger(__name__)

# The seat fields `game_rate` sets, for the caller's write of the seats.
SEAT_FIELDS = ("rating_before", "rating_after")


def record_kinds(variant: str, num_players: int) -> tuple[tuple[str, int], ...]:
    """The kinds of game (variant, players) whose records a game of this kind counts in."""
    return (
        (variant, num_players),
        (variant, ANY_PLAYERS),
        (ANY_VARIANT, num_players),
        (ANY_VARIANT, ANY_PLAYERS),
    )


def _rated_seat(seat: Seat) -> skill.RatedSeat:
    """A seat of a rated game (`skill.is_rated`: a person's), which has its place once the game
    is over."""
    assert seat.user_id is not None and seat.place is not None, "a rated seat of a finished game"
    return skill.RatedSeat(seat.user_id, seat.place, seat.autoplay)


class _PairOverLimit(Exception):
    """Two of the game's players have had their rated games together of the day or week."""


def _lock_and_count_pairs(
    game: Game, user_ids: list[int]
) -> tuple[dict[int, Rating], Counter[int]]:
    """The players' ratings, locked, and how many new opponents each meets in this game;
    `_PairOverLimit` when a pair is over its limit.

    A player's first rated game creates their rating; then every player's row is locked, in
    user order like every rating write, so that two games sharing a player rate one after the
    other. Under the players' locks, every earlier rated game of theirs is committed: the
    games each pair has had rated together are counted then."""
    Rating.objects.bulk_create([Rating(user_id=pk) for pk in user_ids], ignore_conflicts=True)
    ratings = {
        r.user_id: r
        for r in Rating.objects.select_for_update().filter(user_id__in=user_ids).order_by("user_id")
    }
    at = game.finished_at or timezone.now()
    new_opponents: Counter[int] = Counter()
    for a, b in fair_play.pairs(user_ids):
        ever, day, week = fair_play.pair_counts(a, b, at=at, exclude=game.pk)
        if fair_play.pair_over_limit(day, week):
            raise _PairOverLimit
        if not ever:
            new_opponents.update((a, b))
    return ratings, new_opponents


def game_rate(*, game: Game, seats: list[Seat]) -> bool:
    """Rate a game that has just finished, with its seats (final places set): update its players'
    ratings and records, and set each seat's `rating_before` and `rating_after` (the caller
    writes the seats, `SEAT_FIELDS`). Must run in the transaction that records the result, with
    the game's row locked.

    Does nothing for an unrated game, or one already rated (a retried finish): returns whether it
    rated the game."""
    # The rules that read the game alone (a game between people, long enough) come first, and
    # take no lock; the pair limit is counted below, under the players' locks.
    if fair_play.game_unrated(game=game, seats=seats) is not None:
        return False
    if RatedGame.objects.filter(game_id=game.pk).exists():
        return False
    rated = [_rated_seat(s) for s in seats]
    user_ids = sorted(s.user_id for s in rated)
    try:
        # In a savepoint: a game over its pair's limit leaves no rating row behind for a
        # player whose first game it was (`ratings_recompute` would find a rating with no game).
        with transaction.atomic():
            ratings, new_opponents = _lock_and_count_pairs(game, user_ids)
    except _PairOverLimit:
        return False
    # The unique mark first: if it were ever there already, nothing below is written.
    RatedGame.objects.create(game=game)

    before = [(ratings[s.user_id].mu, ratings[s.user_id].sigma) for s in rated]
    after = skill.rate(before, skill.ranks(rated))
    now = timezone.now()
    for seat, rated_seat, old, new in zip(seats, rated, before, after, strict=True):
        rating = ratings[rated_seat.user_id]
        rating.mu, rating.sigma = new
        rating.rating = skill.display(*new)
        rating.opponents += new_opponents[rated_seat.user_id]
        rating.updated_at = now
        seat.rating_before = round(skill.display(*old))
        seat.rating_after = round(rating.rating)
    Rating.objects.bulk_update(
        ratings.values(), ["mu", "sigma", "rating", "opponents", "updated_at"]
    )

    # Every record of these players carries their new rating; this game's kinds count it.
    records = {
        (r.user_id, r.variant, r.num_players): r
        for r in PlayerRecord.objects.filter(user_id__in=user_ids)
    }
    for rated_seat, won in zip(rated, skill.winners(rated), strict=True):
        for variant, players in record_kinds(game.variant, game.num_players):
            key = (rated_seat.user_id, variant, players)
            record = records.get(key)
            if record is None:
                record = records[key] = PlayerRecord(
                    user_id=rated_seat.user_id, variant=variant, num_players=players
                )
            record.games += 1
            record.wins += int(won)
    for record in records.values():
        record.rating = ratings[record.user_id].rating
    PlayerRecord.objects.bulk_create(
        records.values(),
        update_conflicts=True,
        unique_fields=["user", "variant", "num_players"],
        update_fields=["games", "wins", "rating"],
    )
    return True


def levels_rate() -> list[LevelRating]:
    """Fit every computer level's rating again from all its results (`selectors.level_results`,
    `levels.fit`) and store them: safe to run twice, and at any time (the sweep runs it every
    RATINGS_LEVELS_EVERY_SECONDS). Writes the 5 rows in one transaction."""
    results = selectors.level_results()
    fitted = levels.fit(results.pairings)
    now = timezone.now()
    rows = []
    for level in levels.LEVELS:
        found, record = fitted[level], results.records[level]
        rows.append(
            LevelRating(
                level=level,
                mu=found.mu,
                sigma=found.sigma,
                rating=found.rating,
                games=len(record.games),
                people=len(record.people),
                wins=record.wins,
                losses=record.losses,
                ties=record.ties,
                updated_at=now,
            )
        )
    with transaction.atomic():
        LevelRating.objects.bulk_create(
            rows,
            update_conflicts=True,
            unique_fields=["level"],
            update_fields=[
                "mu",
                "sigma",
                "rating",
                "games",
                "people",
                "wins",
                "losses",
                "ties",
                "updated_at",
            ],
        )
    return rows


def levels_rate_if_due(now: datetime | None = None) -> bool:
    """`levels_rate` if the last fit is older than RATINGS_LEVELS_EVERY_SECONDS (or never ran):
    what the sweep calls. Returns whether it ran."""
    now = now or timezone.now()
    last = LevelRating.objects.aggregate(last=Min("updated_at"))["last"]
    if last is not None and now - last < timedelta(seconds=settings.RATINGS_LEVELS_EVERY_SECONDS):
        return False
    levels_rate()
    return True
