"""Seed a large history: N players and M finished games with their logs, in bulk.

    manage.py seed_history --players 10000 --games 100000 [--seed S] [--flush]

Players are users `seedNNNNN` (password unusable) with their profiles. Each game is a real one:
a handful of games per kind (2-4 players, colored or gray wall) are played to the end with the
engine (seeded deals, uniformly random legal moves), and every generated game reuses one of those
logs with other players, so its log replays (`azul.replay`) to its stored state and its seats'
final scores and places are the engine's result. About 5% of the games have a computer at one
seat (unrated). Games end one after another over the last two years, each at its own instant.

Ratings are computed here, in order of finish, with the same arithmetic as `game_rate` and
`ratings_recompute` (`ratings.skill`), and written in bulk: each seat's rating before and after,
each player's `Rating`, their `PlayerRecord`s, and a `RatedGame` mark per rated game, so that
`ratings_recompute` finds no difference. Games, seats and log entries go in with PostgreSQL's COPY
(users, profiles and ratings with bulk_create): 100,000 games are ten million log entries, which
COPY writes in about a minute and bulk_create in many times that.

`--flush` first empties the users and games tables and everything that refers to them: for a
database of its own (the benchmark's), never a real one.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Iterable
from datetime import timedelta

import orjson
from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import connection, transaction
from django.db.models import Field, Model
from django.utils import timezone

import azul
from accounts.confusables import skeleton
from accounts.models import Profile
from games.models import Game, LogEntry, Seat
from ratings import skill
from ratings.models import PlayerRecord, RatedGame, Rating
from ratings.recompute import ratings_recompute
from ratings.services import record_kinds

BATCH = 10_000
TEMPLATES_PER_KIND = 4
COMPUTER_SHARE = 0.05
SPAN = timedelta(days=730)

# A real game to reuse: (first player, log entries as (kind, player, JSON), final state as JSON,
# each seat's (score, place)).
Template = tuple[int, list[tuple[str, int | None, str]], str, list[tuple[int, int]]]


def play_template(players: int, variant: str, first: int, rng: random.Random):
    """One real game played to its end: (log entries, final state dict, result)."""
    state = azul.new_game(players, variant, first)
    entries = []
    while state.phase != "over":
        if state.phase == "deal":
            tiles = azul.draw_tiles(state, rng)
            entries.append(azul.deal_entry(tiles))
            state = azul.deal(state, tiles=tiles)
        else:
            player = state.to_move[0]
            move = azul.random_move(state, rng, player)
            entries.append(azul.move_entry(player, move))
            state = azul.play(state, move, player)
    return entries, state.to_dict(), azul.result(state)


class Command(BaseCommand):
    help = "Generate N players and M finished games with real logs and ratings (bulk inserts)."

    def add_arguments(self, parser):
        parser.add_argument("--players", type=int, required=True)
        parser.add_argument("--games", type=int, required=True)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--flush", action="store_true", help="empty users and games first (own database only)"
        )

    def handle(self, *args, players: int, games: int, seed: int, flush: bool, **options):
        if players < 4:
            raise CommandError("--players must be at least 4")
        if connection.vendor != "postgresql":
            raise CommandError("seed_history writes with COPY: PostgreSQL only")
        started = time.perf_counter()
        rng = random.Random(seed)
        User = get_user_model()
        with transaction.atomic():
            if flush:
                tables = [User._meta.db_table, Game._meta.db_table]
                with connection.cursor() as cursor:
                    cursor.execute(f"TRUNCATE {', '.join(tables)} RESTART IDENTITY CASCADE")
            elif User.objects.filter(username__startswith="seed").exists():
                raise CommandError("seeded players exist already: use --flush (own database)")
            users = User.objects.bulk_create(
                [
                    User(
                        username=f"seed{i:05d}",
                        # bulk_create skips `User.save`, which sets it.
                        username_skeleton=skeleton(f"seed{i:05d}"),
                        email=f"seed{i:05d}@seed.test",
                        password="!",
                    )
                    for i in range(players)
                ],
                batch_size=BATCH,
            )
            Profile.objects.bulk_create([Profile(user=u) for u in users], batch_size=BATCH)
            user_ids = [u.pk for u in users]
            t_users = time.perf_counter()

            # Real games to reuse: (players, variant) -> [(first, entries as JSON, state JSON,
            # standings)].
            templates: dict[tuple[int, str], list[Template]] = {}
            for n in (2, 3, 4):
                for variant in ("colored", "gray"):
                    templates[n, variant] = []
                    for k in range(TEMPLATES_PER_KIND):
                        first = k % n
                        entries, state, outcome = play_template(n, variant, first, rng)
                        templates[n, variant].append(
                            (
                                first,
                                [
                                    (e["kind"], e.get("player"), orjson.dumps(e).decode())
                                    for e in entries
                                ],
                                orjson.dumps(state).decode(),
                                [(s.score, s.place) for s in outcome.standings],
                            )
                        )
            t_templates = time.perf_counter()

            now = timezone.now()
            start = now - SPAN
            step = SPAN / max(games, 1)
            initial = (skill.INITIAL_MU, skill.INITIAL_SIGMA)
            ratings: dict[int, tuple[float, float]] = {}
            records: dict[tuple[int, str, int], list[int]] = {}
            rated_games = []
            counts = {"log entries": 0, "seats": 0, "rated": 0}
            with connection.cursor() as cursor:
                raw = cursor.cursor
                # COPY runs one at a time on a connection: games first, then seats, then logs.
                game_rows, seat_rows, log_rows = [], [], []
                for i in range(games):
                    n = rng.choices((2, 3, 4), (50, 30, 20))[0]
                    variant = "gray" if rng.random() < 0.3 else "colored"
                    first, entries, state_json, standings = rng.choice(templates[n, variant])
                    game_id = uuid.UUID(int=rng.getrandbits(128), version=4)
                    finished = start + step * i + timedelta(microseconds=i % 1000)
                    started_at = finished - timedelta(days=rng.uniform(1, 30))
                    players_here = rng.sample(user_ids, n)
                    computer = rng.random() < COMPUTER_SHARE
                    seat_users: list[int | None] = list(players_here)
                    if computer:
                        seat_users[rng.randrange(1, n)] = None
                    creator = seat_users[0]
                    game_rows.append(
                        (
                            game_id,
                            variant,
                            n,
                            "finished",
                            3,
                            creator,
                            started_at - timedelta(hours=1),
                            started_at,
                            finished,
                            finished,
                            state_json,
                            len(entries),
                            None,
                            first,
                            False,
                        )
                    )
                    log_rows.append((game_id, entries, started_at))
                    pairs: list[tuple[int | None, int | None]] = [(None, None)] * n
                    if not computer:
                        # No computer seat: every seat is one of `players_here`.
                        rated = [
                            skill.RatedSeat(u, place, False)
                            for u, (_, place) in zip(players_here, standings, strict=True)
                        ]
                        before = [ratings.get(u, initial) for u in players_here]
                        after = skill.rate(before, skill.ranks(rated))
                        kinds = record_kinds(variant, n)
                        pairs = []
                        for u, old, new, won in zip(
                            players_here, before, after, skill.winners(rated), strict=True
                        ):
                            ratings[u] = new
                            pairs.append((round(skill.display(*old)), round(skill.display(*new))))
                            for kind in kinds:
                                record = records.setdefault((u, *kind), [0, 0])
                                record[0] += 1
                                record[1] += int(won)
                        rated_games.append(game_id)
                    for position, (u, (score, place), (r_before, r_after)) in enumerate(
                        zip(seat_users, standings, pairs, strict=True)
                    ):
                        seat_rows.append(
                            (
                                game_id,
                                position,
                                "human" if u is not None else "computer",
                                u,
                                "accepted" if u is not None else "none",
                                "random" if u is None else "",
                                "",
                                score,
                                place,
                                0,
                                False,
                                r_before,
                                r_after,
                            )
                        )
                t_plan = time.perf_counter()
                self._copy(raw, Game._meta.db_table, GAME_COLUMNS, game_rows)
                self._copy(raw, Seat._meta.db_table, SEAT_COLUMNS, seat_rows)
                # The logs, row by row from the templates they share (never all in memory).
                self._copy(
                    raw,
                    LogEntry._meta.db_table,
                    LOG_COLUMNS,
                    (
                        (game_id, number, kind, player, data, at, "")
                        for game_id, entries, at in log_rows
                        for number, (kind, player, data) in enumerate(entries)
                    ),
                )
                counts["log entries"] = sum(len(entries) for _, entries, _ in log_rows)
                counts["seats"] = len(seat_rows)
            t_copy = time.perf_counter()

            Rating.objects.bulk_create(
                [
                    Rating(user_id=u, mu=mu, sigma=sigma, rating=skill.display(mu, sigma))
                    for u, (mu, sigma) in ratings.items()
                ],
                batch_size=BATCH,
            )
            shown = {u: skill.display(mu, sigma) for u, (mu, sigma) in ratings.items()}
            PlayerRecord.objects.bulk_create(
                [
                    PlayerRecord(
                        user_id=u, variant=v, num_players=p, games=g, wins=w, rating=shown[u]
                    )
                    for (u, v, p), (g, w) in records.items()
                ],
                batch_size=BATCH,
            )
            RatedGame.objects.bulk_create(
                [RatedGame(game_id=pk) for pk in rated_games], batch_size=BATCH
            )
            counts["rated"] = len(rated_games)
            # The fair-play rules (pairs' games per day and week, opponents met) as
            # `ratings_recompute` applies them, so that it then finds no difference.
            counts["rated"] = ratings_recompute(fix=True).rated
        done = time.perf_counter()
        self.stdout.write(
            f"seeded {players} players, {games} finished games ({counts['rated']} rated), "
            f"{counts['seats']} seats, {counts['log entries']} log entries, "
            f"{len(ratings)} ratings, {len(records)} records in {done - started:.1f} s "
            f"(players {t_users - started:.1f} s, engine games {t_templates - t_users:.1f} s, "
            f"games and ratings in memory {t_plan - t_templates:.1f} s, "
            f"COPY {t_copy - t_plan:.1f} s, ratings rows and commit {done - t_copy:.1f} s)"
        )

    @staticmethod
    def _copy(raw, table: str, columns: tuple[str, ...], rows: Iterable[tuple]) -> None:
        with raw.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
            for row in rows:
                copy.write_row(row)


def _columns(model: type[Model], names: tuple[str, ...]) -> tuple[str, ...]:
    """The table columns of the model's fields `names` (each a concrete field), in order."""
    columns = []
    for name in names:
        field = model._meta.get_field(name)
        assert isinstance(field, Field) and field.column is not None, f"{name} has no column"
        columns.append(field.column)
    return tuple(columns)


GAME_COLUMNS = _columns(
    Game,
    (
        "id",
        "variant",
        "num_players",
        "status",
        "days_per_move",
        "created_by",
        "created_at",
        "started_at",
        "finished_at",
        "updated_at",
        "state",
        "ply",
        "turn_deadline",
        "first_player",
        "is_study",
    ),
)
SEAT_COLUMNS = _columns(
    Seat,
    (
        "game",
        "position",
        "kind",
        "user",
        "invitation",
        "bot_level",
        "name",
        "final_score",
        "place",
        "timeouts",
        "autoplay",
        "rating_before",
        "rating_after",
    ),
)
# Who made each move is left unknown (blank), as for the moves logged before the log said: the
# column's default is Django's, which COPY does not apply.
LOG_COLUMNS = _columns(
    LogEntry, ("game", "number", "kind", "player", "data", "created_at", "mover_kind")
)
