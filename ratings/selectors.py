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
from functools import cache
from typing import Any

from django.conf import settings
from django.contrib.auth.models import AnonymousUser
from django.db import connection
from django.db.models import Count, Q, QuerySet

from accounts.models import User
from accounts.names import player_name
from core.outages.cache import cached
from games import selectors as game_selectors
from games.models import Game, Seat
from ratings import fair_play, levels
from ratings.models import (
    ANY_PLAYERS,
    ANY_VARIANT,
    LevelRating,
    PlayerRecord,
    RatedGame,
    Rating,
)

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


LEADERBOARD_COUNT_SECONDS = 600
"""How long a leaderboard's count of players is kept (`leaderboard_count_key`): its key changes
when a game finishes; this bounds what else leaves it stale (an account's deletion)."""


def leaderboard_count_key(*, variant: str | None = None, num_players: int | None = None) -> str:
    """The cache key of the number of players on the leaderboard of one kind of game: it names
    the newest finished game (`games.selectors.finished_version`: ratings and records change with
    a game's result) and the thresholds for being listed. Counting them costs 10-15 ms at 10,000
    players, on every page of the leaderboard (`make bench-history`)."""
    return (
        f"ratings:board-count:{game_selectors.finished_version()}:{variant or ''}:"
        f"{num_players or 0}:{min_games()}:{min_opponents()}"
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


@dataclass(frozen=True)
class PlayerSkill:
    mu: float
    sigma: float
    rating: int  # shown, rounded


def player_skill(*, user: User | AnonymousUser) -> PlayerSkill | None:
    """The signed-in player's skill and shown rating; None for a visitor or a player with no
    rated game yet (1 query, none for a visitor)."""
    if not user.is_authenticated:
        return None
    found = Rating.objects.filter(user_id=user.pk).values_list("mu", "sigma", "rating").first()
    return None if found is None else PlayerSkill(found[0], found[1], round(found[2]))


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


def lopsided_partners(
    *, user_id: Any, among: list[Any], min_games: int = 5, min_share: float = 0.8
) -> set[Any]:
    """Those of `among` with whom `user_id` makes a lopsided pair (`lopsided_pairs`' rule: at
    least `min_games` finished games together, one ahead in at least `min_share` of them), the
    fair-play signal of a second account farmed for wins. By the ORM, so that it runs on the
    development database too (2 queries)."""
    if not among:
        return set()
    finished = Seat.objects.filter(user_id=user_id, game__status=Game.Status.FINISHED)
    theirs = list(
        Seat.objects.filter(game_id__in=finished.values("game_id"), user_id__in=among)
        .exclude(user_id=user_id)
        .values_list("game_id", "user_id", "place")
    )
    mine = dict(
        finished.filter(game_id__in={game_id for game_id, _u, _p in theirs}).values_list(
            "game_id", "place"
        )
    )
    tally: dict[Any, list[int]] = {}
    for game_id, other, place in theirs:
        counts = tally.setdefault(other, [0, 0, 0])  # games, I was ahead, they were ahead
        counts[0] += 1
        my_place = mine.get(game_id)
        if my_place is not None and place is not None:
            counts[1] += my_place < place
            counts[2] += place < my_place
    return {
        other
        for other, (games, ahead, behind) in tally.items()
        if games >= min_games and max(ahead, behind) >= min_share * games
    }


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


@dataclass
class LevelRecord:
    """A level's results against people that its fit takes (pairs of seats, its side)."""

    games: set[Any]
    people: set[int]
    wins: int = 0
    losses: int = 0
    ties: int = 0


@dataclass(frozen=True)
class LevelResults:
    """What the levels' fit reads of the site (`ratings.levels.fit`): their results against
    people and against each other in the same games, weighted, and their records."""

    pairings: list[levels.Pairing]
    records: dict[str, LevelRecord]


def _level_seat_rows() -> dict[Any, list[tuple]]:
    """Each finished game with a computer seat and a person's seat: its seats (1 query)."""
    with_person = Seat.objects.filter(kind=Seat.Kind.HUMAN, user_id__isnull=False)
    games = Game.objects.filter(
        status=Game.Status.FINISHED,
        is_study=False,
        seats__kind=Seat.Kind.COMPUTER,
        pk__in=with_person.values("game_id"),
    )
    rows = Seat.objects.filter(game_id__in=games.values("pk")).values_list(
        "game_id",
        "position",
        "kind",
        "bot_level",
        "user_id",
        "place",
        "autoplay",
        "resigned_at",
        "timeouts",
    )
    out: dict[Any, list[tuple]] = {}
    for row in rows.iterator(chunk_size=2000):
        out.setdefault(row[0], []).append(row[1:])
    return out


def level_results() -> LevelResults:
    """Every finished game between people and computer levels that the levels' fit takes, as
    weighted pairings (3 queries, and 1 more for games where the computer took over a person's
    seat).

    Taken: the pairs of a level's seat with a person who has an established rating (rated games
    against RATINGS_MIN_OPPONENTS different people, so that a new account moves nothing) and
    played the game to its end (not a seat the computer took over), and with other levels in
    the same game; not a game resigned or abandoned in its first moves (`fair_play.too_short`).
    A game of n players weighs 1/(n - 1) a pair. Each person's games against one level weigh
    at most RATINGS_LEVEL_GAMES_PER_PERSON games in all."""
    games = _level_seat_rows()
    people = {
        user_id: (mu, sigma)
        for user_id, mu, sigma in Rating.objects.filter(
            opponents__gte=min_opponents(), user__deleted_at__isnull=True
        ).values_list("user_id", "mu", "sigma")
    }
    taken_over = [game for game, seats in games.items() if any(seat[5] for seat in seats)]
    moves = fair_play.game_moves(taken_over) if taken_over else {}

    # (level, person) -> [score, games] before the cap; (level, level) -> [score, games].
    against_people: dict[tuple[str, int], list[float]] = {}
    games_per_person: dict[tuple[str, int], set[Any]] = {}
    between_levels: dict[tuple[str, str], list[float]] = {}
    records = {level: LevelRecord(set(), set()) for level in levels.LEVELS}
    for game_id, seats in games.items():
        humans = [s for s in seats if s[1] == Seat.Kind.HUMAN]
        facts = [fair_play.SeatFacts(s[0], s[3] or 0, s[5], s[6], s[7]) for s in humans]
        if game_id in moves and fair_play.too_short(facts, moves[game_id]):
            continue
        weight = 1.0 / (len(seats) - 1)
        for level_seat in seats:
            level, place = level_seat[2], level_seat[4]
            if level_seat[1] != Seat.Kind.COMPUTER or level not in records or place is None:
                continue
            for other in seats:
                if other is level_seat or other[4] is None:
                    continue
                score = 1.0 if place < other[4] else 0.5 if place == other[4] else 0.0
                if other[1] == Seat.Kind.COMPUTER:
                    if other[2] in records and other[2] != level and other[0] > level_seat[0]:
                        pair = between_levels.setdefault((level, other[2]), [0.0, 0.0])
                        pair[0] += score * weight
                        pair[1] += weight
                    continue
                person = other[3]
                if person not in people or other[5]:
                    continue
                total = against_people.setdefault((level, person), [0.0, 0.0])
                total[0] += score * weight
                total[1] += weight
                games_per_person.setdefault((level, person), set()).add(game_id)
                record = records[level]
                record.games.add(game_id)
                record.people.add(person)
                record.wins += score == 1.0
                record.ties += score == 0.5
                record.losses += score == 0.0

    cap = settings.RATINGS_LEVEL_GAMES_PER_PERSON
    pairings = [run.pairing() for run in levels.calibration()]
    for (level, person), (score, weight_sum) in against_people.items():
        mu, sigma = people[person]
        share = min(1.0, cap / len(games_per_person[level, person]))
        pairings.append(levels.Pairing(level, None, score, weight_sum, mu, sigma, share))
    for (a, b), (score, weight_sum) in between_levels.items():
        pairings.append(levels.Pairing(a, b, score, weight_sum))
    return LevelResults(pairings, records)


@dataclass(frozen=True)
class LevelStanding:
    """A computer level's rating as pages and the API show it, with its record against
    people."""

    level: str
    rating: int
    mu: float
    sigma: float
    games: int = 0
    people: int = 0
    wins: int = 0
    losses: int = 0
    ties: int = 0
    updated_at: datetime | None = None


def level_ratings() -> list[LevelStanding]:
    """Every level's rating, weakest first (1 query): as last fitted (`services.levels_rate`),
    or, before the first fit, from the calibration arena alone."""
    stored = {row.level: row for row in LevelRating.objects.all()}
    if len(stored) < len(levels.LEVELS):
        return list(_calibration_only())
    return [
        LevelStanding(
            level=row.level,
            rating=round(row.rating),
            mu=row.mu,
            sigma=row.sigma,
            games=row.games,
            people=row.people,
            wins=row.wins,
            losses=row.losses,
            ties=row.ties,
            updated_at=row.updated_at,
        )
        for row in (stored[level] for level in levels.LEVELS)
    ]


@cache
def _calibration_only() -> tuple[LevelStanding, ...]:
    fitted = levels.fit(run.pairing() for run in levels.calibration())
    return tuple(
        LevelStanding(level, round(fitted[level].rating), fitted[level].mu, fitted[level].sigma)
        for level in levels.LEVELS
    )


def level_standing(*, level: str) -> LevelStanding | None:
    """One level's rating (`level_ratings`); None for a name that is no level."""
    return next((row for row in level_ratings() if row.level == level), None)


def level_steps(*, level: str) -> list[levels.ArenaPair]:
    """The calibration arena's runs of `level` against its neighbours, the one below first."""
    return [run for run in levels.calibration() if level in (run.stronger, run.weaker)]


def leaderboard_level_places(
    standings: list[LevelStanding], *, variant: str | None = None, num_players: int | None = None
) -> dict[str, int]:
    """Where each level falls on a leaderboard (`leaderboard()`): how many of its players are
    rated at least as high (1 query, over every player of the board: kept as the board's count
    is, under `leaderboard_count_key` and the levels' ratings)."""
    if not standings:
        return {}
    ratings = ",".join(f"{row.level}={row.rating}" for row in standings)
    key = f"{leaderboard_count_key(variant=variant, num_players=num_players)}:levels:{ratings}"

    def count() -> dict[str, int]:
        counts = leaderboard(variant=variant, num_players=num_players).aggregate(
            **{row.level: Count("pk", filter=Q(rating__gte=row.rating)) for row in standings}
        )
        return {row.level: counts[row.level] for row in standings}

    return cached(key, count, LEADERBOARD_COUNT_SECONDS)
