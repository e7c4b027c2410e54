"""Writes for ratings.

`game_rate` rates a game in the transaction that records its result (`ratings.receivers` calls
it when a move finishes the game: `games.effects.game_finished`): once per game, under the lock
of the players' `Rating` rows, which every rating write takes in user order (the game's own row
is locked before, by the caller). `ratings_recompute` rebuilds every rating from the history of
finished games."""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import combinations, groupby
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, Q
from django.utils import timezone

from games.models import Game, LogEntry, Seat
from ratings import skill
from ratings.models import ANY_PLAYERS, ANY_VARIANT, PlayerRecord, RatedGame, Rating

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


# -- fair play: which games between people count (README, "Fair play") ---------------------------

DAY = timedelta(days=1)
WEEK = timedelta(days=7)


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


def _pair_counts(a: int, b: int, *, at: datetime, exclude: Any) -> tuple[int, int, int]:
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


def _rated_seats(seats: list[Seat]) -> list[skill.RatedSeat] | None:
    """The seats as the rating sees them, or None for an unrated game (README, "Ratings and
    leaderboards")."""
    if not skill.is_rated([s.kind for s in seats], [s.user_id for s in seats]):
        return None
    return [_rated_seat(s) for s in seats]


def _rated_seat(seat: Seat) -> skill.RatedSeat:
    """A seat of a rated game (`skill.is_rated`: a person's), which has its place once the game
    is over."""
    assert seat.user_id is not None and seat.place is not None, "a rated seat of a finished game"
    return skill.RatedSeat(seat.user_id, seat.place, seat.autoplay)


def game_rate(*, game: Game, seats: list[Seat]) -> bool:
    """Rate a game that has just finished, with its seats (final places set): update its players'
    ratings and records, and set each seat's `rating_before` and `rating_after` (the caller
    writes the seats, `SEAT_FIELDS`). Must run in the transaction that records the result, with
    the game's row locked.

    Does nothing for an unrated game, or one already rated (a retried finish): returns whether it
    rated the game."""
    rated = _rated_seats(seats)
    if rated is None or RatedGame.objects.filter(game_id=game.pk).exists():
        return False
    facts = seat_facts(seats)
    if any(s.autoplay for s in facts) and too_short(facts, game_moves([game.pk]).get(game.pk, [])):
        return False
    user_ids = sorted(s.user_id for s in rated)
    # A player's first rated game creates their rating; then every player's row is locked, in
    # user order like every rating write, so that two games sharing a player rate one after the
    # other.
    Rating.objects.bulk_create([Rating(user_id=pk) for pk in user_ids], ignore_conflicts=True)
    ratings = {
        r.user_id: r
        for r in Rating.objects.select_for_update().filter(user_id__in=user_ids).order_by("user_id")
    }
    # Under the players' locks, every earlier rated game of theirs is committed: count the
    # games each pair has had rated together.
    at = game.finished_at or timezone.now()
    new_opponents: Counter[int] = Counter()
    for a, b in pairs(user_ids):
        ever, day, week = _pair_counts(a, b, at=at, exclude=game.pk)
        if pair_over_limit(day, week):
            return False
        if not ever:
            new_opponents.update((a, b))
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


# -- recomputing from the history ----------------------------------------------------------------

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
    out), which `too_short` reads (1 query)."""
    abandoned = Seat.objects.filter(game__status=Game.Status.FINISHED, autoplay=True)
    return game_moves(abandoned.values_list("game_id", flat=True))


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
        facts = [
            SeatFacts(s["position"], s["user_id"], s["autoplay"], s["resigned_at"], s["timeouts"])
            for s in seats
        ]
        if too_short(facts, moves.get(game_id, [])):
            continue
        at = seats[0]["game__finished_at"] or timezone.now()
        game_pairs = pairs(s["user_id"] for s in seats)
        if any(
            pair_over_limit(
                sum(t > at - DAY for t in together.get(pair, ())),
                sum(t > at - WEEK for t in together.get(pair, ())),
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
