"""The events app's rows: events (tournaments, and a league season's divisions), their entries,
their tables (each an ordinary game) and byes; leagues, their members and seasons.

An event's games are games like any other (`games.Game`): the event only says which game is
which table of which round (`EventTable`), and reads their results when they end. The formats
that seat the tables are pure functions (`events.formats`); these rows are what they are given
and what they give back.
"""

from __future__ import annotations

from django.conf import settings
from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from games.models import DAYS_PER_MOVE_CHOICES, Game

NAME_MAX = 80
DESCRIPTION_MAX = 2000
CODE_MAX = 32
ENTRANTS_MAX = 1000
"""The most entrants an event takes: a Swiss round of 1,000 is paired in well under a second."""
ROUND_ROBIN_MAX = 32
"""The most entrants of a round robin "all at once": each plays every other at the same time."""


class Event(models.Model):
    class Format(models.TextChoices):
        ROUND_ROBIN = "round_robin", _("Round robin")
        SWISS = "swiss", _("Swiss")
        ELIMINATION = "elimination", _("Elimination by groups")

    class Status(models.TextChoices):
        REGISTRATION = "registration", _("Open for registration")
        RUNNING = "running", _("Running")
        FINISHED = "finished", _("Finished")
        CANCELLED = "cancelled", _("Cancelled")

    name = models.CharField(_("name"), max_length=NAME_MAX)
    description = models.TextField(_("description"), max_length=DESCRIPTION_MAX, blank=True)
    format = models.CharField(_("format"), max_length=12, choices=Format.choices)
    table_size = models.PositiveSmallIntegerField(
        _("players per table"), choices=[(n, str(n)) for n in (2, 3, 4)]
    )
    variant = models.CharField(
        _("wall"), max_length=10, choices=Game.Variant.choices, default=Game.Variant.COLORED
    )
    days_per_move = models.PositiveSmallIntegerField(
        _("days per move"), choices=DAYS_PER_MOVE_CHOICES, default=3
    )
    rated = models.BooleanField(_("rated"), default=True)
    max_entrants = models.PositiveSmallIntegerField(
        _("most players"), validators=[MinValueValidator(2), MaxValueValidator(ENTRANTS_MAX)]
    )
    rating_min = models.PositiveSmallIntegerField(_("lowest rating"), null=True, blank=True)
    rating_max = models.PositiveSmallIntegerField(_("highest rating"), null=True, blank=True)
    min_games = models.PositiveSmallIntegerField(_("games finished at least"), default=0)
    # Empty for an event anyone may enter; else entering needs it (a private event).
    invitation_code = models.CharField(
        _("invitation code"), max_length=CODE_MAX, blank=True, default=""
    )
    # When the event starts; null: as soon as it is full.
    starts_at = models.DateTimeField(_("starts"), null=True, blank=True)
    # Swiss: how many rounds. Elimination: how many of each table go on.
    rounds = models.PositiveSmallIntegerField(_("rounds"), null=True, blank=True)
    advance = models.PositiveSmallIntegerField(_("go on from each table"), null=True, blank=True)
    # Null for the site's own events (a league's divisions).
    organiser = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="events_organised",
    )
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.REGISTRATION)
    # The round being played (0 before the start); a round robin has one.
    current_round = models.PositiveSmallIntegerField(default=0)
    # A league's division: its season and level (1 is the top).
    season = models.ForeignKey(
        "Season", on_delete=models.CASCADE, null=True, blank=True, related_name="divisions"
    )
    level = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [
            models.Index(fields=["status", "-created_at"], name="event_status_created_idx"),
            # The sweep's events due to start.
            models.Index(
                fields=["starts_at"],
                condition=Q(status="registration"),
                name="event_due_idx",
            ),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(table_size__gte=2, table_size__lte=4), name="event_table_size_2_4"
            ),
            models.CheckConstraint(
                condition=Q(format__in=["round_robin", "swiss", "elimination"]),
                name="event_format_choice",
            ),
            models.CheckConstraint(
                condition=Q(rating_min__isnull=True)
                | Q(rating_max__isnull=True)
                | Q(rating_min__lte=models.F("rating_max")),
                name="event_rating_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    @property
    def is_private(self) -> bool:
        return bool(self.invitation_code)

    @property
    def is_open(self) -> bool:
        return self.status == self.Status.REGISTRATION


class Entry(models.Model):
    """A player registered for an event: withdrawn ones are kept (their results stand)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="entries")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="event_entries"
    )
    # The rating the player had when the event started (their seeding), or on entering.
    rating = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)
    withdrawn_at = models.DateTimeField(null=True, blank=True)
    # Removed by the organiser rather than withdrawn by themself.
    removed = models.BooleanField(default=False)

    class Meta:
        ordering = ["created_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["event", "user"], name="entry_once_per_event"),
        ]
        indexes = [models.Index(fields=["user", "-created_at"], name="entry_user_idx")]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.event_id}"

    @property
    def is_active(self) -> bool:
        return self.withdrawn_at is None


class EventTable(models.Model):
    """One table of one round of an event: an ordinary game (`game`), whose seats' order of
    play is the order the format chose."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="tables")
    round = models.PositiveSmallIntegerField()
    number = models.PositiveSmallIntegerField()
    game = models.OneToOneField(Game, on_delete=models.CASCADE, related_name="event_table")
    # The players in the order they move (user ids): the format's table, kept as it seated it.
    players = models.JSONField(default=list)

    class Meta:
        ordering = ["round", "number"]
        constraints = [
            models.UniqueConstraint(fields=["event", "round", "number"], name="event_table_once"),
        ]

    def __str__(self) -> str:
        return f"{self.event_id} round {self.round} table {self.number}"


class Bye(models.Model):
    """An entrant who sits a round out (a Swiss bye, or a seed going straight on)."""

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="byes")
    round = models.PositiveSmallIntegerField()
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["event", "round", "user"], name="bye_once_per_round"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} bye in {self.event_id} round {self.round}"


class League(models.Model):
    """A league of the site's: season after season, divisions of round robins placed by level."""

    name = models.CharField(max_length=NAME_MAX)
    slug = models.SlugField(unique=True)
    description = models.TextField(max_length=DESCRIPTION_MAX, blank=True)
    table_size = models.PositiveSmallIntegerField(
        choices=[(n, str(n)) for n in (2, 3, 4)], default=2
    )
    variant = models.CharField(
        max_length=10, choices=Game.Variant.choices, default=Game.Variant.COLORED
    )
    days_per_move = models.PositiveSmallIntegerField(choices=DAYS_PER_MOVE_CHOICES, default=3)
    season_days = models.PositiveSmallIntegerField(default=42)
    division_size = models.PositiveSmallIntegerField(
        default=6, validators=[MinValueValidator(4), MaxValueValidator(8)]
    )
    # How many of a division go up, and how many go down, at a season's end.
    movers = models.PositiveSmallIntegerField(default=1)
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return self.name


class LeagueMember(models.Model):
    """A player registered for a league's next seasons, until they leave it."""

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="members")
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="league_memberships"
    )
    joined_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["league", "user"], name="league_member_once"),
        ]

    def __str__(self) -> str:
        return f"{self.user_id} in {self.league_id}"


class Season(models.Model):
    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="seasons")
    number = models.PositiveSmallIntegerField()
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField()
    # Set once its divisions are finished and the next season formed from them.
    closed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["league", "-number"]
        constraints = [
            models.UniqueConstraint(fields=["league", "number"], name="season_once"),
        ]

    def __str__(self) -> str:
        return f"{self.league} {self.number}"
