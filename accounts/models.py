import zoneinfo
from functools import cache

from django.conf import settings
from django.contrib.auth.models import AbstractUser
from django.contrib.auth.models import UserManager as BaseUserManager
from django.core.exceptions import ValidationError
from django.db import models


class UserManager(BaseUserManager):
    def get_queryset(self) -> models.QuerySet:
        # Pages show the signed-in player's display name and dates in their time zone: the
        # profile comes with the user in the query that loads it for each request.
        return super().get_queryset().select_related("profile")


class User(AbstractUser):
    """The site's user. Kept as our own model from the start so that adding a field later does
    not mean swapping AUTH_USER_MODEL under live data; preferences live on `Profile`."""

    objects = UserManager()


@cache
def time_zone_names() -> tuple[str, ...]:
    return tuple(sorted(zoneinfo.available_timezones()))


def time_zone_choices() -> list[tuple[str, str]]:
    return [(name, name.replace("_", " ")) for name in time_zone_names()]


def validate_time_zone(value: str) -> None:
    if value not in time_zone_names():
        raise ValidationError(
            "“%(value)s” is not a known time zone. Choose one from the list, such as "
            "Europe/Paris or America/New_York.",
            code="invalid_time_zone",
            params={"value": value},
        )


class Profile(models.Model):
    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="profile"
    )
    display_name = models.CharField(
        max_length=40, blank=True, help_text="Shown to other players instead of your username."
    )
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        choices=time_zone_choices,
        validators=[validate_time_zone],
        help_text="Deadlines and dates are shown in this time zone.",
    )
    notify_turn = models.BooleanField(
        "Email me when it is my turn", default=True, help_text="At most one email per move."
    )
    notify_reminder = models.BooleanField("Remind me before my turn deadline", default=True)
    notify_game_end = models.BooleanField("Email me when a game ends", default=True)

    def __str__(self) -> str:
        return f"Profile of {self.user}"

    @property
    def name(self) -> str:
        """What other players see: the display name, or the username when none is set."""
        return self.display_name or self.user.get_username()
