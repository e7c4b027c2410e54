"""Games, their seats and their move logs.

A game's log (`LogEntry`) is the record: every deal and every move, in order, never rewritten.
`Game.state` is a cache of the engine state after the whole log (`azul.replay`), kept so that
pages need not replay; `manage.py check_game_logs` proves the cache agrees with the log.
"""

import uuid
from collections.abc import Collection, Iterable
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

import azul
from games.jsoncodec import OrjsonDecoder, OrjsonEncoder


class GameQuerySet(models.QuerySet["Game"]):
    def with_seats(self) -> "GameQuerySet":
        """Games with their creator, and their seats in order as `seat_list` (`Seat.with_players`;
        +1 query)."""
        seats = models.Prefetch("seats", queryset=Seat.with_players(), to_attr="seat_list")
        return self.select_related("created_by").prefetch_related(seats)


def _days_label(days: int) -> str:
    return ngettext("%(days)d day", "%(days)d days", days) % {"days": days}


DAYS_PER_MOVE_CHOICES = [(d, lazy(_days_label, str)(d)) for d in (1, 2, 3, 5, 7, 14)]


class Game(models.Model):
    class Variant(models.TextChoices):
        COLORED = "colored", _("Colored wall")
        GRAY = "gray", _("Gray wall")

    class Status(models.TextChoices):
        OPEN = "open", _("Waiting for players")
        ACTIVE = "active", _("In progress")
        FINISHED = "finished", _("Finished")
        ABORTED = "aborted", _("Cancelled")

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
    # Chosen at random when the game starts (from the deal key, for a game with a seed).
    first_player = models.PositiveSmallIntegerField(null=True, blank=True)
    # Deals anyone can check (`azul.fairness`): the secret seed the game's deals are drawn from
    # (with the players' contributions), picked at creation, in hex, and its SHA-256, the
    # commitment, shown from the start. The seed is shown nowhere until the game is over
    # (`presenters.deals`); not editable, so no form (the admin's) shows it. Empty in a game
    # created before deals could be checked, and in a study: dealt as before, not verifiable.
    # Empty in the database's default too, so that rows written without them (the history's
    # bulk COPY, `seed_history`) are games whose deals are not verifiable.
    deal_seed = models.CharField(
        max_length=64, blank=True, default="", db_default="", editable=False
    )
    deal_commitment = models.CharField(
        max_length=64, blank=True, default="", db_default="", editable=False
    )
    # A game imported from an export (`games.record.study_import`): finished from the start, its
    # seats name players without being theirs, so it is in nobody's list of games, is never
    # rated and never played; it is there to be replayed.
    is_study = models.BooleanField(
        default=False, help_text=_("Imported from an export to be replayed: unrated, not played.")
    )
    # False for a game its players agreed to play unrated (an unrated event's table): it never
    # counts for ratings (`ratings.fair_play.game_unrated`).
    for_ratings = models.BooleanField(
        default=True, db_default=True, help_text=_("Counts for ratings when between people.")
    )
    # The finished game this one replays with the same players and settings
    # (`services.game_rematch`): a player who asks for a rematch twice is sent to the one they
    # have. Indexed only where set (`game_rematch_of_idx`).
    rematch_of = models.ForeignKey(
        "self",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="rematches",
        db_index=False,
    )

    objects = GameQuerySet.as_manager()

    # The game's seats in order, with their players (`Seat.with_players`): set by the reads that
    # the views and services use (`GameQuerySet.with_seats`, `services.playing.read_game`).
    seat_list: list["Seat"]

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "-created_at"], name="game_status_created_idx"),
            # The history of finished games, newest first (`selectors.finished_games`): a page
            # reads the index from the top rather than sorting every finished game.
            models.Index(
                fields=["status", "-finished_at", "-id"],
                condition=Q(is_study=False),
                name="game_status_finished_idx",
            ),
            models.Index(
                fields=["rematch_of"],
                condition=Q(rematch_of__isnull=False),
                name="game_rematch_of_idx",
            ),
            # A player's imports, newest first: their label (`created_by`, the importer) and the
            # count of the last day's against GAMES_MAX_IMPORTS_PER_DAY (`record.study_import`).
            models.Index(
                fields=["created_by", "-created_at"],
                condition=Q(is_study=True),
                name="game_study_importer_idx",
            ),
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
            models.CheckConstraint(
                condition=Q(is_study=False) | Q(status="finished"), name="game_study_is_finished"
            ),
        ]

    def __str__(self) -> str:
        return f"Game {self.id} ({self.num_players}p {self.variant}, {self.status})"

    def engine_state(self) -> azul.State | None:
        """`state` as the engine's `State` (None before the game starts), parsed once per
        instance: a move and the view that answers it both read it several times."""
        parsed = self.__dict__.get("_engine_state")
        if parsed is not None and parsed[0] is self.state:
            return parsed[1]
        state = azul.State.from_dict(self.state) if self.state else None
        self._engine_state = (self.state, state)
        return state

    def set_engine_state(self, state: azul.State) -> None:
        """Set `state` from the engine's `State` (which the engine never mutates)."""
        self.state = state.to_dict()
        self._engine_state = (self.state, state)

    def started_state(self) -> azul.State:
        """The engine's state of a game that has started: every move, timeout and resignation is
        on one, which has its first deal (a game has no state only while it waits for players)."""
        state = self.engine_state()
        assert state is not None, f"game {self.pk} has not started"
        return state


class Seat(models.Model):
    class Kind(models.TextChoices):
        HUMAN = "human", _("Human")
        COMPUTER = "computer", _("Computer")

    class Invitation(models.TextChoices):
        NONE = "none", _("Not invited")
        PENDING = "pending", _("Invited")
        ACCEPTED = "accepted", _("Accepted")
        DECLINED = "declined", _("Declined")

    class BotLevel(models.TextChoices):
        # The levels of `azul.ai.bots.LEVELS` (a test keeps the two lists equal).
        RANDOM = "random", _("Random")
        GREEDY = "greedy", _("Greedy")
        MEDIUM = "medium", _("Medium")
        STRONG = "strong", _("Strong")
        MASTER = "master", _("Master")

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
    # The player's name as a study game's export gave it (`Game.is_study`): those seats have no
    # user, so that an imported game counts for nobody's account.
    name = models.CharField(max_length=150, blank=True, default="")
    final_score = models.IntegerField(null=True, blank=True)
    place = models.PositiveSmallIntegerField(null=True, blank=True)
    # Moves the server made for this seat's player when their time ran out; at the third, the
    # computer (greedy) plays the seat to the end, and the result still counts it as theirs.
    timeouts = models.PositiveSmallIntegerField(default=0)
    autoplay = models.BooleanField(
        default=False,
        help_text=_(
            "Played by the computer since its player's third timeout, or since they resigned."
        ),
    )
    # When the player resigned (`services.game_resign`): from then the computer (greedy) plays
    # the seat to the end (`autoplay`), and the result ranks it after every seat that did not
    # resign, whatever its score (`standings.resigned_last`).
    resigned_at = models.DateTimeField(null=True, blank=True)
    # The player who declined the invitation to this seat: the seat keeps no user then (so the
    # player is free of the game), and waits for its creator to invite someone else or open it
    # (`services.seat_invite`, `services.seat_open`).
    declined_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
    )
    # The player's shown rating before and after this game (`ratings.skill.display`, rounded),
    # written with the result; null for an unrated game.
    rating_before = models.IntegerField(null=True, blank=True)
    rating_after = models.IntegerField(null=True, blank=True)
    # What the player mixed into the game's deals as they took their seat (`azul.fairness`):
    # empty for a computer's seat, and until a player takes the seat.
    deal_contribution = models.CharField(
        max_length=64, blank=True, default="", db_default="", editable=False
    )

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

    @classmethod
    def with_players(cls) -> models.QuerySet["Seat"]:
        """Seats in order, with their players' users and profiles (what games show of them)."""
        return cls.objects.select_related("user__profile").order_by("position")

    @staticmethod
    def of_user(seats: Iterable["Seat"], user: Any) -> "Seat | None":
        """`user`'s seat among `seats` (invited, accepted or playing), if they have one."""
        return next((s for s in seats if s.user_id is not None and s.user_id == user.pk), None)

    @classmethod
    def human_player_ids(
        cls, seats: Iterable["Seat"], positions: Collection[int] | None = None
    ) -> list[Any]:
        """The ids of the people who sit at `seats` (those at `positions`, if given): not the
        computer's seats, nor open or declined ones."""
        return [
            s.user_id
            for s in seats
            if s.user_id is not None
            and s.kind == cls.Kind.HUMAN
            and (positions is None or s.position in positions)
        ]

    @staticmethod
    def computer_to_move(seats: Iterable["Seat"], to_move: Collection[int]) -> "Seat | None":
        """The seat among `seats` the computer plays that is to move (its position in
        `to_move`), if any (the first, when several tile)."""
        return next((s for s in seats if s.played_by_computer and s.position in to_move), None)

    @property
    def is_filled(self) -> bool:
        """A computer, or a player who joined or accepted an invitation."""
        if self.kind == self.Kind.COMPUTER:
            return True
        return self.user_id is not None and self.invitation != self.Invitation.PENDING

    @property
    def is_open(self) -> bool:
        """A seat anyone may join from the lobby: not one whose invitation was declined (its
        creator decides what becomes of it), nor a study's named seat."""
        return (
            self.kind == self.Kind.HUMAN
            and self.user_id is None
            and not self.name
            and self.invitation != self.Invitation.DECLINED
        )

    @property
    def is_declined(self) -> bool:
        """The invitation to this seat was declined, and the creator has not chosen since."""
        return self.user_id is None and self.invitation == self.Invitation.DECLINED

    @property
    def played_by_computer(self) -> bool:
        """A computer seat, or a player's seat the computer took over (after three timeouts, or
        when they resigned)."""
        return self.kind == self.Kind.COMPUTER or self.autoplay

    @property
    def bot(self) -> str:
        """The computer level that plays this seat, or that moves for its player at a timeout."""
        return self.bot_level if self.kind == self.Kind.COMPUTER else self.BotLevel.GREEDY


class LogEntry(models.Model):
    """One entry of a game's log, as the engine writes it. Append-only: never updated."""

    class Kind(models.TextChoices):
        DEAL = "deal", _("Deal")
        MOVE = "move", _("Move")

    class Mover(models.TextChoices):
        PERSON = "person", _("Person")
        COMPUTER = "computer", _("Computer")
        SERVER = "server", _("Server")

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
    # Who made a move, as it was written (`services.playing.play_in_memory`): a person (and
    # `mover`, their account), the computer, or the server at a timeout. Blank for a deal, and
    # for the moves written before the log said (unknown: `check_game_logs` skips them).
    mover_kind = models.CharField(max_length=8, choices=Mover.choices, blank=True, default="")
    # The account that made a person's move: what `check_game_logs` holds the seat's account
    # to. A record of the id as written, so neither an index nor a constraint: a move's insert
    # and an account's removal cost what they did before.
    mover = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.DO_NOTHING,
        null=True,
        blank=True,
        related_name="+",
        db_index=False,
        db_constraint=False,
    )

    class Meta:
        ordering = ["game", "number"]
        verbose_name_plural = _("log entries")
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


class InvitationDecline(models.Model):
    """A player declined an invitation: for INVITATION_DECLINE_COOLDOWN_DAYS the player who
    invited them cannot invite them again (`services.setup.require_may_invite`). Kept apart
    from the seat, whose `declined_by` goes when the seat is given to someone else."""

    invitee = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    inviter = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+", db_index=False)
    declined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        indexes = [
            # "Has this player declined an invitation of mine lately?"
            models.Index(
                fields=["inviter", "invitee", "-declined_at"], name="decline_by_inviter_idx"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.invitee_id} declined {self.inviter_id}'s invitation to {self.game_id}"


class GameNote(models.Model):
    """A player's private notes on a game (plans, reminders): one per player and game, shown
    to that player only; in no export of the game, in the player's data download, gone with
    their account (`services.players`)."""

    MAX_LENGTH = 5000

    # No index of its own: the unique (game, user) index serves lookups by game.
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="+", db_index=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.TextField(max_length=MAX_LENGTH, blank=True)
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["game", "user"], name="gamenote_one_per_player"),
        ]

    def __str__(self) -> str:
        return f"Notes of {self.user_id} on {self.game_id}"


class CalendarFeed(models.Model):
    """A player's calendar feed (`games.web.calendar`): the secret address of an iCalendar file
    of the deadlines of the games waiting for their move, for a calendar app to subscribe to.
    The token in the address is the only credential (calendar apps cannot sign in), so it is
    long and random; a new one (`services.players.calendar_feed_renew`) replaces it, and the old
    address answers 404 at once.

    The token is kept as it is, because the settings page shows the address again; requests
    find the feed by the token's SHA-256 (`digest`, unique), so the index lookup compares
    digests, which say nothing about the token, rather than the token itself."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="calendar_feed"
    )
    token = models.CharField(max_length=64, editable=False)
    digest = models.CharField(max_length=64, editable=False)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        # A constraint rather than `unique=True`, which would add a second index for LIKE.
        constraints = [
            models.UniqueConstraint(fields=["digest"], name="calendarfeed_digest_unique"),
        ]

    def __str__(self) -> str:
        return f"Calendar feed of {self.user_id}"
