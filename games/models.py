"""Games, their seats and their move logs.

A game's log (`LogEntry`) is the record: every deal and every move, in order, never rewritten.
`Game.state` is a cache of the engine state after the whole log (`engine.replay`), kept so that
pages need not replay; `manage.py check_game_logs` proves the cache agrees with the log.
"""

import uuid
from typing import Any

from django.conf import settings
from django.db import models, transaction
from django.db.models import Q

from games import engine, rows
from games.jsoncodec import OrjsonDecoder, OrjsonEncoder


class GameQuerySet(models.QuerySet):
    def with_seats(self) -> "GameQuerySet":
        """Games with their creator, and their seats in order with users and profiles (+1 query)."""
        seats = models.Prefetch(
            "seats", queryset=Seat.objects.select_related("user__profile").order_by("position")
        )
        return self.select_related("created_by").prefetch_related(seats)

    def get_with_seats(self, pk: uuid.UUID, *, lock: bool = False) -> "Game":
        """One game with its seats in order, their users and profiles, and its creator (who sits
        at it), in one statement that returns one row: the game's, with its seats as an array
        (`rows.select_with_children`). Raises ``Game.DoesNotExist``.

        Users come with their username only and profiles with their display name only (what
        games show); their other fields are deferred, so read them some other way.

        Read by every move and by the game's views and boards when they are not cached, so
        written out in plain SQL (`games.rows`).

        With `lock`, the game's row is locked until the end of the transaction. The statement
        returns the game's row as it is once the lock is granted, but the seats as they were
        when it started, maybe before it waited for the lock. That is still how they are when the
        game is active and they were all filled: seats are filled only while a game is open,
        the one that fills the last starts it in the same transaction, and only the move that
        finishes it writes to them again. Otherwise they are read again.
        """
        found = _game_with_seats(pk, lock)
        if found is None:
            raise Game.DoesNotExist(f"no game {pk}")
        game, seats = found
        if lock and (game.status != Game.Status.ACTIVE or not all(s.is_filled for s in seats)):
            # A new statement sees what committed while this one waited; the row is locked now.
            game, seats = _game_with_seats(pk, False) or found
        game.attach_seats(seats)
        creator = next((s.user for s in seats if s.user_id == game.created_by_id), None)
        if creator is not None:
            Game.created_by.field.set_cached_value(game, creator)
        return game


# The relations read with a game's seats, and what games show of them: their players' names.
SEAT_RELATED = {"user": ["username"], "user__profile": ["display_name"]}


def _game_with_seats(pk: uuid.UUID, lock: bool) -> tuple["Game", list["Seat"]] | None:
    return rows.select_with_children(
        Game,
        pk,
        "seats",
        list(SEAT_RELATED),
        only=SEAT_RELATED,
        order_by=["position"],
        lock=lock,
    )


# Parsed engine states by game version, (pk, ply, updated_at): a game's state is a function of its
# log (append-only, `ply` entries long), and every write to a game changes `updated_at`. Parsing
# checks every field and costs more than reading the game, so each process keeps the states it
# parsed or wrote lately; they are immutable, so requests share them.
_PARSED_STATES_MAX = 2048
_parsed_states: dict[tuple[Any, ...], engine.State] = {}


def _remember_parsed(version: tuple[Any, ...], state: engine.State) -> None:
    if len(_parsed_states) >= _PARSED_STATES_MAX:
        _parsed_states.clear()
    _parsed_states[version] = state


DAYS_PER_MOVE_CHOICES = [(d, f"{d} day" if d == 1 else f"{d} days") for d in (1, 2, 3, 5, 7, 14)]


class Game(models.Model):
    class Variant(models.TextChoices):
        COLORED = "colored", "Colored wall"
        GRAY = "gray", "Gray wall"

    class Status(models.TextChoices):
        OPEN = "open", "Waiting for players"
        ACTIVE = "active", "In progress"
        FINISHED = "finished", "Finished"
        ABORTED = "aborted", "Cancelled"

    # Public id in URLs: not a sequential integer, so game ids say nothing about how many games
    # exist and cannot be walked.
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    variant = models.CharField(max_length=10, choices=Variant.choices, default=Variant.COLORED)
    num_players = models.PositiveSmallIntegerField(choices=[(n, str(n)) for n in (2, 3, 4)])
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.OPEN)
    days_per_move = models.PositiveSmallIntegerField(choices=DAYS_PER_MOVE_CHOICES, default=3)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="games_created"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField(auto_now=True)
    # The engine's `State.to_dict()` after the whole log; empty until the game starts.
    state = models.JSONField(default=dict, blank=True, encoder=OrjsonEncoder, decoder=OrjsonDecoder)
    # Number of log entries (deals and moves) so far: the next entry's number.
    ply = models.PositiveIntegerField(default=0)
    # Not indexed: nearly every move sets a new deadline, and an index on it would make every
    # move's UPDATE write a new entry in each of the table's indexes, where otherwise PostgreSQL
    # updates the row in place on its page (a HOT update; the table leaves room for that, see
    # migration 0003). Finding overdue games reads the active ones by status.
    turn_deadline = models.DateTimeField(null=True, blank=True)
    # Chosen at random when the game starts.
    first_player = models.PositiveSmallIntegerField(null=True, blank=True)

    objects = GameQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "-created_at"], name="game_status_created_idx"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(num_players__gte=2, num_players__lte=4), name="game_num_players_2_4"
            ),
            models.CheckConstraint(
                condition=Q(days_per_move__in=[d for d, _ in DAYS_PER_MOVE_CHOICES]),
                name="game_days_per_move_choice",
            ),
            models.CheckConstraint(
                condition=Q(variant__in=["colored", "gray"]), name="game_variant_choice"
            ),
            models.CheckConstraint(
                condition=Q(status__in=["open", "active", "finished", "aborted"]),
                name="game_status_choice",
            ),
        ]

    def __str__(self) -> str:
        return f"Game {self.id} ({self.num_players}p {self.variant}, {self.status})"

    def save(self, *args: Any, **kwargs: Any) -> None:
        super().save(*args, **kwargs)
        self.remember_engine_state_on_commit()

    @classmethod
    def from_db(cls, db: str | None, field_names: Any, values: Any) -> "Game":
        game = super().from_db(db, field_names, values)
        game.mark_as_read()
        return game

    def mark_as_read(self) -> None:
        """Take the fields as they are now for a version of the game as stored (read from the
        database, or from a snapshot of it), whose parsed state `engine_state` may know."""
        # Which version of the game `state` is, while it is the value read.
        self._loaded = (self.__dict__.get("state"), self._version())

    def _version(self) -> tuple[Any, ...]:
        """The key of `_parsed_states`."""
        return (self.pk, self.ply, self.updated_at)

    def engine_state(self) -> engine.State | None:
        """`state` as the engine's `State` (None before the game starts): parsed once per
        instance, and once per process for a version of the game read from the database."""
        parsed = self.__dict__.get("_engine_state")
        if parsed is not None and parsed[0] is self.state:
            return parsed[1]
        state = None
        if self.state:
            loaded = self.__dict__.get("_loaded")
            version = loaded[1] if loaded is not None and loaded[0] is self.state else None
            state = _parsed_states.get(version) if version is not None else None
            if state is None:
                state = engine.State.from_dict(self.state)
                if version is not None:
                    _remember_parsed(version, state)
        self._engine_state = (self.state, state)
        return state

    def set_engine_state(self, state: engine.State) -> None:
        """Set `state` from the engine's `State` (which the engine never mutates)."""
        self.state = state.to_dict()
        self._engine_state = (self.state, state)

    def attach_engine_state(self, state: engine.State | None) -> None:
        """Take `state` as `state` parsed, without parsing it: for a game whose fields and parsed
        state were kept together (a snapshot)."""
        self._engine_state = (self.state, state)

    def remember_engine_state_on_commit(self) -> None:
        """The game was just written: once that commits, the next read of this version in this
        process need not parse its state."""
        parsed = self.__dict__.get("_engine_state")
        if parsed is not None and parsed[0] is self.state and parsed[1] is not None:
            version, state = self._version(), parsed[1]
            transaction.on_commit(lambda: _remember_parsed(version, state), using=self._state.db)

    def attach_seats(self, seats: list["Seat"]) -> None:
        """Make `seats` (all of this game's, in order, each already linked to it) what
        `self.seats.all()` and `seat_list()` return, without a query: the cache
        `prefetch_related("seats")` fills."""
        # A bare QuerySet: the related manager's own would build its filter for nothing.
        prefetched = models.QuerySet(model=Seat)
        prefetched._result_cache = seats
        prefetched._prefetch_done = True
        self._prefetched_objects_cache = {"seats": prefetched}

    def seat_list(self) -> list["Seat"]:
        """`list(self.seats.all())`, taken straight from the seats prefetched or attached when
        there are (without the related manager that `self.seats` builds on each use)."""
        prefetched = self.__dict__.get("_prefetched_objects_cache", {}).get("seats")
        if prefetched is not None and prefetched._result_cache is not None:
            return list(prefetched._result_cache)
        return list(self.seats.all())


class Seat(models.Model):
    class Kind(models.TextChoices):
        HUMAN = "human", "Human"
        COMPUTER = "computer", "Computer"

    class Invitation(models.TextChoices):
        NONE = "none", "Not invited"
        PENDING = "pending", "Invited"
        ACCEPTED = "accepted", "Accepted"
        DECLINED = "declined", "Declined"

    class BotLevel(models.TextChoices):
        # The levels of `games.engine.bots.LEVELS` (a test keeps the two lists equal).
        RANDOM = "random", "Random"
        GREEDY = "greedy", "Greedy"
        MEDIUM = "medium", "Medium"
        STRONG = "strong", "Strong"

    # No index of its own: the unique (game, position) index serves lookups by game.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats", db_index=False)
    position = models.PositiveSmallIntegerField()
    kind = models.CharField(max_length=10, choices=Kind.choices, default=Kind.HUMAN)
    # Null: an open seat that any player may join (human seats only).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="seats",
    )
    invitation = models.CharField(
        max_length=10, choices=Invitation.choices, default=Invitation.NONE
    )
    bot_level = models.CharField(
        max_length=20, choices=BotLevel.choices, default=BotLevel.RANDOM, blank=True
    )
    final_score = models.IntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["game", "position"]
        constraints = [
            models.UniqueConstraint(fields=["game", "position"], name="seat_unique_position"),
            models.UniqueConstraint(
                fields=["game", "user"],
                condition=Q(user__isnull=False),
                name="seat_one_per_user",
            ),
            models.CheckConstraint(condition=Q(position__lte=3), name="seat_position_0_3"),
            models.CheckConstraint(
                condition=~Q(kind="computer") | Q(user__isnull=True),
                name="seat_computer_has_no_user",
            ),
        ]

    def __str__(self) -> str:
        return f"Seat {self.position} of {self.game_id}"

    @property
    def is_filled(self) -> bool:
        """A computer, or a player who joined or accepted an invitation."""
        if self.kind == self.Kind.COMPUTER:
            return True
        return self.user_id is not None and self.invitation != self.Invitation.PENDING

    @property
    def is_open(self) -> bool:
        return self.kind == self.Kind.HUMAN and self.user_id is None


class LogEntry(models.Model):
    """One entry of a game's log, as the engine writes it. Append-only: never updated."""

    class Kind(models.TextChoices):
        DEAL = "deal", "Deal"
        MOVE = "move", "Move"

    # No index of its own: the unique (game, number) index serves lookups by game, and every
    # move writes one index less.
    game = models.ForeignKey(
        Game, on_delete=models.CASCADE, related_name="log_entries", db_index=False
    )
    number = models.PositiveIntegerField()
    kind = models.CharField(max_length=4, choices=Kind.choices)
    player = models.PositiveSmallIntegerField(null=True, blank=True)
    # {"kind": "deal", "tiles": [[colour, ...], ...]} or {"kind": "move", "player": p, "move": ...}
    data = models.JSONField(encoder=OrjsonEncoder, decoder=OrjsonDecoder)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["game", "number"]
        verbose_name_plural = "log entries"
        constraints = [
            # The backstop against two writers appending the same ply.
            models.UniqueConstraint(fields=["game", "number"], name="logentry_unique_number"),
            models.CheckConstraint(
                condition=Q(kind="deal", player__isnull=True)
                | Q(kind="move", player__isnull=False),
                name="logentry_player_iff_move",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.game_id} #{self.number} {self.kind}"

    def save(self, *args, **kwargs) -> None:
        if not self._state.adding:
            raise ValueError("log entries are never rewritten")
        super().save(*args, **kwargs)
