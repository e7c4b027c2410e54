import hashlib
import zoneinfo
from datetime import datetime, timedelta
from functools import cache
from typing import Any, ClassVar

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.auth.models import UserManager as BaseUserManager
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from accounts.confusables import skeleton

# A deleted account's username (`accounts.deletion`): "~" is no character a username may hold
# (Django's username validator), so nobody can sign up with one, nor pass for a deleted player.
DELETED_USERNAME_PREFIX = "~deleted-"
# No two accounts' usernames look alike (`User.username_skeleton`), but those kept from before.
USERNAME_SKELETON_UNIQUE = "user_username_skeleton_unique"


class UserManager(BaseUserManager):
    def get_queryset(self) -> models.QuerySet:
        # Pages show the signed-in player's display name and dates in their time zone: the
        # profile comes with the user in the query that loads it for each request.
        return super().get_queryset().select_related("profile")


class User(AbstractUser):
    """The site's user. Kept as our own model from the start so that adding a field later does
    not mean swapping AUTH_USER_MODEL under live data; preferences live on `Profile`."""

    objects: ClassVar[UserManager] = UserManager()

    # `username` is also indexed for finding a player by its start (`UPPER(username)
    # text_pattern_ops` on PostgreSQL: migration 0007_player_search_indexes).

    # What the username looks like (`accounts.confusables.skeleton`), set on every save: a new
    # name confusable with it is found by one indexed look-up (`name_rules.check_not_confusable`).
    username_skeleton = models.TextField(default="", editable=False)
    # When the player deleted their account (`accounts.deletion`): the row stays, for the seats
    # and ratings of finished games that point at it, with its personal data gone, its username
    # replaced by a placeholder (`DELETED_USERNAME_PREFIX`) and the skeleton of the old one kept,
    # so that nobody can sign up as the player who left.
    deleted_at = models.DateTimeField(null=True, blank=True, editable=False)
    # An account whose username already looked like an older account's when the skeletons were
    # made unique (migration 0018): both names stay, and this one alone is out of the constraint.
    username_skeleton_shared = models.BooleanField(default=False, editable=False)

    class Meta(AbstractUser.Meta):
        indexes = [models.Index(fields=["username_skeleton"], name="user_username_skeleton_idx")]
        constraints = [
            # Two sign-ups at once with lookalike names both pass the form's check
            # (`name_rules.check_not_confusable`): the database takes one (`accounts.signup`).
            models.UniqueConstraint(
                fields=["username_skeleton"],
                condition=Q(username_skeleton_shared=False),
                name=USERNAME_SKELETON_UNIQUE,
            ),
        ]

    @property
    def is_deleted(self) -> bool:
        return self.deleted_at is not None

    def save(self, *args: Any, **kwargs: Any) -> None:
        if self.deleted_at is None:
            # A deleted account keeps the skeleton of the name it had: the name stays reserved.
            self.username_skeleton = skeleton(self.get_username())
        kwargs["update_fields"] = with_skeleton(
            kwargs.get("update_fields"), "username", "username_skeleton"
        )
        # Every way of setting a password ends here: the settings' form, the reset link, the
        # admin, `manage.py changepassword` (`set_password` marks `_password`; Django clears the
        # mark for a hash upgrade at login, which changes no password and so keeps the tokens).
        password_replaced = not self._state.adding and (
            getattr(self, "_password", None) is not None
            or getattr(self, "_password_made_unusable", False)
        )
        super().save(*args, **kwargs)
        if password_replaced:
            # A token made under the old password would outlive it: a stolen one must not.
            ApiToken.objects.filter(user=self).delete()
            self._password_made_unusable = False

    def set_unusable_password(self) -> None:
        super().set_unusable_password()
        self._password_made_unusable = True


def with_skeleton(update_fields: Any, name_field: str, skeleton_field: str) -> Any:
    """A save's `update_fields`, with the skeleton's field when they name the name's."""
    if update_fields is None or name_field not in update_fields:
        return update_fields
    return [*update_fields, skeleton_field]


@cache
def time_zone_names() -> tuple[str, ...]:
    return tuple(sorted(zoneinfo.available_timezones()))


def time_zone_choices() -> list[tuple[str, str]]:
    return [(name, name.replace("_", " ")) for name in time_zone_names()]


def validate_time_zone(value: str) -> None:
    if value not in time_zone_names():
        raise ValidationError(
            _(
                "“%(value)s” is not a known time zone. Choose one from the list, such as "
                "Europe/Paris or America/New_York."
            ),
            code="invalid_time_zone",
            params={"value": value},
        )


class Delivery(models.TextChoices):
    """How a player wants one kind of notification email."""

    IMMEDIATELY = "immediate", _("Immediately")
    DIGEST = "digest", _("In the daily digest")
    NEVER = "never", _("Never")


class ConfirmMoves(models.TextChoices):
    """Whether the board asks before it sends a move (static/games/board.js): the tiles shown
    placed, with Confirm and Cancel. "auto" asks on touch screens only, where a mis-tap is
    easy (the page's `(pointer: coarse)`)."""

    AUTO = "auto", _("On touch screens only")
    ON = "on", _("Always")
    OFF = "off", _("Never: one tap or click sends the move")


class Theme(models.TextChoices):
    """The site's colours: the device's light or dark setting (`prefers-color-scheme`), or one
    of them whatever the device says."""

    AUTO = "auto", _("As my device")
    LIGHT = "light", _("Light")
    DARK = "dark", _("Dark")


# The profile's per-kind delivery choices; the daily digest itself is on or off (`email_digest`).
DELIVERY_FIELDS = (
    "email_your_turn",
    "email_invitation",
    "email_game_started",
    "email_game_over",
    "email_reminder",
    "email_timeout",
    "email_chat",
    "email_events",
)


VACATION_DAYS_A_YEAR = 14


class Profile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    display_name = models.CharField(
        max_length=40, blank=True, help_text=_("Shown to other players instead of your username.")
    )
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        choices=time_zone_choices,
        validators=[validate_time_zone],
        help_text=_("Deadlines and dates are shown in this time zone."),
    )
    # The language of the emails this player gets (the pages follow the browser, or the
    # language switcher's cookie): the one they signed up in, then the one they last chose with
    # the switcher while signed in (azul_site.i18n.set_language).
    language = models.CharField(
        _("language"),
        max_length=8,
        choices=settings.LANGUAGES,
        default=settings.LANGUAGE_CODE,
    )
    # One column per kind of email, rather than one JSON document of preferences: each is a
    # plain choice the database checks and the model form validates and renders as it is, and
    # the notifications sweep can filter on them in SQL. A new kind is a new column (a migration),
    # which is also where its default for existing players is decided.
    email_your_turn = models.CharField(
        _("When it is my turn"),
        max_length=9,
        choices=Delivery.choices,
        default=Delivery.IMMEDIATELY,
        help_text=_("Sent a couple of minutes after the move, unless you have the game open."),
    )
    email_invitation = models.CharField(
        _("When I am invited to a game"),
        max_length=9,
        choices=Delivery.choices,
        default=Delivery.IMMEDIATELY,
    )
    email_game_started = models.CharField(
        _("When a game I joined starts"),
        max_length=9,
        choices=Delivery.choices,
        default=Delivery.IMMEDIATELY,
    )
    email_game_over = models.CharField(
        _("When a game ends"),
        max_length=9,
        choices=Delivery.choices,
        default=Delivery.IMMEDIATELY,
        help_text=_("With the final scores."),
    )
    email_reminder = models.CharField(
        _("When my time to move is running out"),
        max_length=9,
        choices=Delivery.choices,
        default=Delivery.IMMEDIATELY,
        # xgettext:no-python-format
        help_text=_("Once per turn, when 80% of the time for the move has passed."),
    )
    email_timeout = models.CharField(
        _("When the server moved for me"),
        max_length=9,
        choices=Delivery.choices,
        default=Delivery.IMMEDIATELY,
        help_text=_("After the time for a move ran out."),
    )
    # Off unless the player turns it on: a message alone sends no email (the next "your turn"
    # email carries it).
    email_chat = models.CharField(
        _("When a player writes in a game's chat"),
        max_length=9,
        choices=Delivery.choices,
        default=Delivery.NEVER,
        help_text=_(
            "One email for the messages of a couple of minutes, unless you have the game open."
        ),
    )
    # All an event tells its players (`notifications.models.EVENT_KINDS`), as one choice.
    email_events = models.CharField(
        _("When an event I entered has news"),
        max_length=9,
        choices=Delivery.choices,
        default=Delivery.IMMEDIATELY,
        help_text=_("Registration confirmed, its start, each new round and the final standings."),
    )
    email_digest = models.BooleanField(
        _("Send me a daily digest"),
        default=True,
        help_text=_(
            "At 08:00 in your time zone, only on days when a game is waiting for you "
            "or something was held for the digest."
        ),
    )
    confirm_moves = models.CharField(
        _("Confirm moves"),
        max_length=4,
        choices=ConfirmMoves.choices,
        default=ConfirmMoves.AUTO,
        help_text=_(
            "Before a move is sent, the board shows the tiles placed, with Confirm and Cancel."
        ),
    )
    theme = models.CharField(_("Colours"), max_length=5, choices=Theme.choices, default=Theme.AUTO)
    # After a move, go on to the game that has waited longest for the player (by deadline),
    # rather than stay on the board just played.
    next_game_after_move = models.BooleanField(
        _("After a move, go to my next game"),
        default=False,
        help_text=_("The game whose time runs out first among those waiting for your move."),
    )
    # Vacation: the player's clocks stop until then (VACATION_DAYS_A_YEAR at most, counted in
    # the calendar year each vacation starts).
    vacation_until = models.DateTimeField(null=True, blank=True)
    vacation_year = models.PositiveSmallIntegerField(null=True, blank=True)
    vacation_days_used = models.PositiveSmallIntegerField(default=0)
    # What the display name looks like ("" for none), set on every save, like the user's
    # `username_skeleton`.
    display_name_skeleton = models.TextField(default="", editable=False)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(
                    **{f"{name}__in": Delivery.values for name in DELIVERY_FIELDS},
                ),
                name="profile_email_delivery_choice",
            ),
            models.CheckConstraint(
                condition=Q(theme__in=Theme.values), name="profile_theme_choice"
            ),
        ]
        # `display_name` is indexed for finding a player by its start (`UPPER(display_name)
        # text_pattern_ops` on PostgreSQL: migration 0007_player_search_indexes).
        indexes = [
            models.Index(fields=["display_name_skeleton"], name="profile_name_skeleton_idx"),
        ]

    def __str__(self) -> str:
        return f"Profile of {self.user}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        self.display_name_skeleton = skeleton(self.display_name)
        kwargs["update_fields"] = with_skeleton(
            kwargs.get("update_fields"), "display_name", "display_name_skeleton"
        )
        super().save(*args, **kwargs)

    def on_vacation(self, now: Any) -> bool:
        return self.vacation_until is not None and self.vacation_until > now

    def vacation_left(self, now: datetime) -> timedelta:
        """How much longer the player's clocks stay stopped after `now` (none off vacation)."""
        if self.vacation_until is None or self.vacation_until <= now:
            return timedelta(0)
        return self.vacation_until - now

    def vacation_days_left(self, year: int) -> int:
        used = self.vacation_days_used if self.vacation_year == year else 0
        return max(0, VACATION_DAYS_A_YEAR - used)

    @property
    def name(self) -> str:
        """What other players see: the display name, or the username when none is set."""
        return self.display_name or self.user.get_username()


class Block(models.Model):
    """`blocker` does not want to hear from `blocked`: while either has blocked the other,
    neither can invite the other (a new game, a seat, a rematch) and the lobby keeps them apart
    (`games.services.setup.require_may_invite`). Games already made are left as they are."""

    blocker = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocks", db_index=False
    )
    blocked = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="blocked_by"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Also the index of a player's blocks (`blocker` first).
            models.UniqueConstraint(fields=["blocker", "blocked"], name="block_once"),
            models.CheckConstraint(
                condition=~Q(blocker=models.F("blocked")), name="block_not_oneself"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.blocker_id} blocks {self.blocked_id}"


class Follow(models.Model):
    """`follower` follows `followed` (one way, as on lichess): the new-game form and the invite
    boxes suggest `followed` first, and the home page shows their games waiting for players.
    At most ACCOUNTS_MAX_FOLLOWS per player; a block between the two removes it both ways and
    refuses a new one (`accounts.services.follow_create`)."""

    follower = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="follows", db_index=False
    )
    followed = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="followers"
    )
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        constraints = [
            # Also the index of a player's follows (`follower` first).
            models.UniqueConstraint(fields=["follower", "followed"], name="follow_once"),
            models.CheckConstraint(
                condition=~Q(follower=models.F("followed")), name="follow_not_oneself"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.follower_id} follows {self.followed_id}"


class ApiToken(models.Model):
    """A key a program sends as `Authorization: Token <key>` to act as `user` on the API
    (`accounts.authentication`). Only the key's SHA-256 is kept: the key itself is shown once, on
    the response that made it (`accounts.services.token_create`). A random key of 240 bits needs
    no slow hash: nothing can be guessed from its digest. Setting the password deletes the user's
    tokens (`User.save`)."""

    NAME_MAX = 60
    PREFIX_LENGTH = 8

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=NAME_MAX, blank=True)
    # The key's first characters, not secret: tells a player's tokens apart on the page.
    prefix = models.CharField(max_length=PREFIX_LENGTH)
    digest = models.CharField(max_length=64, unique=True)  # hex SHA-256 of the key
    created_at = models.DateTimeField(auto_now_add=True)
    # Written at most once a minute per token (`authentication.LAST_USED_EVERY`).
    last_used_at = models.DateTimeField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]

    def __str__(self) -> str:
        return f"{self.prefix}… of {self.user_id}"

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and self.expires_at <= now

    @staticmethod
    def digest_of(key: str) -> str:
        return hashlib.sha256(key.encode()).hexdigest()
