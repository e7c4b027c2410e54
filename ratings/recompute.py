"""Recomputing every rating from the history of finished games, in order of finish, with the same
rules as `ratings.services.game_rate` (`manage.py ratings_recompute [--fix]`)."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from itertools import groupby
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from games.models import Game, Seat
from ratings import fair_play, skill
from ratings.models import PlayerRecord, RatedGame, Rating
from ratings.services import SEAT_FIELDS, record_kinds

logger = logging.getLogger(__name__)


# Stored and recomputed skills agree when they differ by less than this: both are made by the
# same arithmetic in the same order, so in practice they agree exactly.
TOLERANCE = 1e-9
EXAMPLES = 20


@dataclass
class Recomputed:
    """Every rating, record, seat rating and mark as the history of finished games makes them."""

    ratings: dict[int, tuple[float, float]] = field(default_factory=dict)
    opponents: dict[int, set[int]] = field(default_factory=dict)
    records: dict[tuple[int, str, int], list[int]] = field(default_factory=dict)
    # seat id -> (before, after), and each seat's stored pair, for every seat of a finished game
    seats: dict[int, tuple[int | None, int | None]] = field(default_factory=dict)
    stored_seats: dict[int, tuple[int | None, int | None]] = field(default_factory=dict)
    seat_games: dict[int, Any] = field(default_factory=dict)
    rated_games: set[Any] = field(default_factory=set)
    games: int = 0


@dataclass
class RecomputeReport:
    games: int  # finished games read
    rated: int  # of them, the games that count in the ratings
    players: int  # players with a rating
    # Differences per kind ("ratings", "records", "seats", "rated games"), and a few examples.
    differences: dict[str, int]
    examples: list[str]
    fixed: bool

    @property
    def total(self) -> int:
        return sum(self.differences.values())


def _history() -> Iterator[list[Mapping[str, Any]]]:
    """The seats of every finished game, a list per game, in order of finish (the order the
    ratings were updated in as the games ended). One query, read in chunks."""
    seats = (
        Seat.objects.filter(game__status=Game.Status.FINISHED)
        .order_by("game__finished_at", "game_id", "position")
        .values(
            "id",
            "game_id",
            "game__finished_at",
            "position",
            "resigned_at",
            "timeouts",
            "game__variant",
            "game__num_players",
            "game__for_ratings",
            "kind",
            "user_id",
            "place",
            "autoplay",
            "rating_before",
            "rating_after",
        )
    )
    for _, game_seats in groupby(seats.iterator(chunk_size=5000), key=lambda s: s["game_id"]):
        yield list(game_seats)


def _abandoned_moves() -> dict[Any, list[tuple[int, datetime]]]:
    """The moves of every finished game with a seat the computer took over (resigned or timed
    out), which `fair_play.too_short` reads (1 query)."""
    abandoned = Seat.objects.filter(game__status=Game.Status.FINISHED, autoplay=True)
    return fair_play.game_moves(abandoned.values_list("game_id", flat=True))


def _recompute(
    history: Iterable[list[Mapping[str, Any]]],
    moves: Mapping[Any, list[tuple[int, datetime]]] | None = None,
) -> Recomputed:
    """The ratings as the history makes them, under the same rules as `game_rate`: in order of
    finish, a game too short is skipped, and so is one between a pair that had its day's or
    week's rated games before it (counted over the games rated so far)."""
    out = Recomputed()
    moves = {} if moves is None else moves
    # Each pair's rated games' finishing times, in order.
    together: dict[tuple[int, int], list[datetime]] = {}
    for seats in history:
        out.games += 1
        game_id = seats[0]["game_id"]
        for s in seats:
            out.stored_seats[s["id"]] = (s["rating_before"], s["rating_after"])
            out.seats[s["id"]] = (None, None)
            out.seat_games[s["id"]] = game_id
        if not skill.is_rated([s["kind"] for s in seats], [s["user_id"] for s in seats]):
            continue
        if not seats[0].get("game__for_ratings", True):
            continue
        facts = [
            fair_play.SeatFacts(
                s["position"], s["user_id"], s["autoplay"], s["resigned_at"], s["timeouts"]
            )
            for s in seats
        ]
        if fair_play.too_short(facts, moves.get(game_id, [])):
            continue
        at = seats[0]["game__finished_at"] or timezone.now()
        game_pairs = fair_play.pairs(s["user_id"] for s in seats)
        if any(
            fair_play.pair_over_limit(
                sum(t > at - fair_play.DAY for t in together.get(pair, ())),
                sum(t > at - fair_play.WEEK for t in together.get(pair, ())),
            )
            for pair in game_pairs
        ):
            continue
        for a, b in game_pairs:
            together.setdefault((a, b), []).append(at)
            out.opponents.setdefault(a, set()).add(b)
            out.opponents.setdefault(b, set()).add(a)
        rated = [skill.RatedSeat(s["user_id"], s["place"], s["autoplay"]) for s in seats]
        out.rated_games.add(game_id)
        initial = (skill.INITIAL_MU, skill.INITIAL_SIGMA)
        before = [out.ratings.get(s.user_id, initial) for s in rated]
        after = skill.rate(before, skill.ranks(rated))
        kinds = record_kinds(seats[0]["game__variant"], seats[0]["game__num_players"])
        won = skill.winners(rated)
        for s, old, new, win in zip(seats, before, after, won, strict=True):
            out.ratings[s["user_id"]] = new
            out.seats[s["id"]] = (round(skill.display(*old)), round(skill.display(*new)))
            for variant, players in kinds:
                counts = out.records.setdefault((s["user_id"], variant, players), [0, 0])
                counts[0] += 1
                counts[1] += int(win)
    return out


def _close(a: float, b: float) -> bool:
    return abs(a - b) <= TOLERANCE * max(1.0, abs(a), abs(b))


def ratings_recompute(*, fix: bool = False) -> RecomputeReport:
    """Recompute every rating from the finished games, in order of finish, and compare with the
    stored ratings, records, seats' ratings and rated-game marks; with `fix`, write the
    recomputed ones wherever they differ.

    With `fix` the ratings table is locked for the whole run (on PostgreSQL), so no game is rated
    meanwhile: a game finishing during a fix waits for it. Without, the comparison reads one
    snapshot of the database."""
    outermost = not connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql":
            with connection.cursor() as cursor:
                if fix:
                    # Blocks every rating write (they all start by inserting into this table),
                    # not reads.
                    cursor.execute(f"LOCK TABLE {Rating._meta.db_table} IN EXCLUSIVE MODE")
                elif outermost:
                    # One snapshot for the history and the stored values it is compared with.
                    cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        return _compare_and_fix(_recompute(_history(), _abandoned_moves()), fix)


def _compare_and_fix(want: Recomputed, fix: bool) -> RecomputeReport:
    examples: list[str] = []

    def note(line: str) -> None:
        if len(examples) < EXAMPLES:
            examples.append(line)

    # Ratings.
    stored = {r.user_id: r for r in Rating.objects.all()}
    ratings_wrong: list[Rating] = []
    for user_id, (mu, sigma) in want.ratings.items():
        row = stored.get(user_id)
        opponents = len(want.opponents.get(user_id, ()))
        if row is None:
            note(f"player {user_id}: no rating stored, recomputed mu {mu:.4f} sigma {sigma:.4f}")
        elif not (_close(row.mu, mu) and _close(row.sigma, sigma)):
            note(
                f"player {user_id}: stored mu {row.mu:.4f} sigma {row.sigma:.4f}, "
                f"recomputed mu {mu:.4f} sigma {sigma:.4f}"
            )
        elif row.opponents != opponents:
            note(f"player {user_id}: stored {row.opponents} opponents, recomputed {opponents}")
        else:
            continue
        ratings_wrong.append(
            Rating(
                user_id=user_id,
                mu=mu,
                sigma=sigma,
                rating=skill.display(mu, sigma),
                opponents=opponents,
            )
        )
    ratings_extra = [pk for pk in stored if pk not in want.ratings]
    for pk in ratings_extra[:EXAMPLES]:
        note(f"player {pk}: a rating is stored but they have no rated game")

    # Records, with each player's recomputed rating.
    shown = {pk: skill.display(mu, sigma) for pk, (mu, sigma) in want.ratings.items()}
    stored_records = {(r.user_id, r.variant, r.num_players): r for r in PlayerRecord.objects.all()}
    records_wrong: list[PlayerRecord] = []
    for key, (games, wins) in want.records.items():
        record = stored_records.get(key)
        rating = shown[key[0]]
        if (
            record is None
            or (record.games, record.wins) != (games, wins)
            or not _close(record.rating, rating)
        ):
            have = "none" if record is None else f"{record.games} games, {record.wins} wins"
            note(f"record {key}: stored {have}, recomputed {games} games, {wins} wins")
            records_wrong.append(
                PlayerRecord(
                    user_id=key[0],
                    variant=key[1],
                    num_players=key[2],
                    games=games,
                    wins=wins,
                    rating=rating,
                )
            )
    records_extra = [r.pk for key, r in stored_records.items() if key not in want.records]
    if records_extra:
        note(f"{len(records_extra)} stored records have no rated game behind them")

    # Seats' ratings.
    seats_wrong = [pk for pk, pair in want.seats.items() if want.stored_seats[pk] != pair]
    for pk in seats_wrong[:EXAMPLES]:
        note(
            f"seat {pk} of game {want.seat_games[pk]}: stored {want.stored_seats[pk]}, "
            f"recomputed {want.seats[pk]}"
        )

    # Rated-game marks.
    marked = set(RatedGame.objects.values_list("game_id", flat=True))
    marks_missing = want.rated_games - marked
    marks_extra = marked - want.rated_games
    for game_id in list(marks_missing)[:EXAMPLES]:
        note(f"game {game_id}: finished and rated by the history, but not marked as rated")
    for game_id in list(marks_extra)[:EXAMPLES]:
        note(f"game {game_id}: marked as rated, but the history does not rate it")

    report = RecomputeReport(
        games=want.games,
        rated=len(want.rated_games),
        players=len(want.ratings),
        differences={
            "ratings": len(ratings_wrong) + len(ratings_extra),
            "records": len(records_wrong) + len(records_extra),
            "seats": len(seats_wrong),
            "rated games": len(marks_missing) + len(marks_extra),
        },
        examples=examples,
        fixed=False,
    )
    if fix and report.total:
        _fix(want, ratings_wrong, ratings_extra, records_wrong, records_extra, seats_wrong)
        RatedGame.objects.filter(game_id__in=marks_extra).delete()
        RatedGame.objects.bulk_create(
            [RatedGame(game_id=pk) for pk in marks_missing], batch_size=1000
        )
        report.fixed = True
        logger.warning("ratings_recompute fixed %s differences", report.total)
    return report


def _fix(
    want: Recomputed,
    ratings_wrong: list[Rating],
    ratings_extra: list[Any],
    records_wrong: list[PlayerRecord],
    records_extra: list[Any],
    seats_wrong: list[int],
) -> None:
    Rating.objects.filter(user_id__in=ratings_extra).delete()
    Rating.objects.bulk_create(
        ratings_wrong,
        update_conflicts=True,
        unique_fields=["user"],
        update_fields=["mu", "sigma", "rating", "opponents"],
        batch_size=1000,
    )
    PlayerRecord.objects.filter(pk__in=records_extra).delete()
    PlayerRecord.objects.bulk_create(
        records_wrong,
        update_conflicts=True,
        unique_fields=["user", "variant", "num_players"],
        update_fields=["games", "wins", "rating"],
        batch_size=1000,
    )
    seats = [
        Seat(pk=pk, rating_before=want.seats[pk][0], rating_after=want.seats[pk][1])
        for pk in seats_wrong
    ]
    Seat.objects.bulk_update(seats, list(SEAT_FIELDS), batch_size=1000)
    # A game shows its seats' ratings: a new version of each game changed, so that boards cached
    # for the old one are not shown again.
    games = {want.seat_games[pk] for pk in seats_wrong}
    Game.objects.filter(pk__in=games).update(updated_at=timezone.now())
