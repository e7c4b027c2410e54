"""How a player is named to other players: one function for every page, list and email."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser
from django.utils.translation import gettext as _

from accounts.models import DELETED_USERNAME_PREFIX


def deleted_player_name() -> str:
    """How every page, list and email names a player who deleted their account."""
    return _("deleted player")


def is_deleted_username(username: str | None) -> bool:
    return username is not None and username.startswith(DELETED_USERNAME_PREFIX)


def public_username(user: AbstractBaseUser | None) -> str | None:
    """The username that identifies the player to others (links to their page, the API's
    `username`): None for no user, and for a deleted account, whose placeholder names nobody."""
    if user is None:
        return None
    username = user.get_username()
    return None if is_deleted_username(username) else username


def player_name(user: AbstractBaseUser | None) -> str:
    """The player's display name, or their username when they chose none ("" for no user).

    Reads `user.profile`, which the queries that list players join (`UserManager`,
    `Seat.with_players`): no query of its own there. Usernames stay where they identify an
    account (URLs, the invitation field, the API's `username`)."""
    if user is None:
        return ""
    if is_deleted_username(user.get_username()):
        return deleted_player_name()
    profile = getattr(user, "profile", None)
    return (profile.display_name if profile is not None else "") or user.get_username()


def player_label(user: AbstractBaseUser | None) -> str:
    """The player as emails name them: the display name with the username beside it, "Alice L.
    (@alice)", so that no display name can pass for another player; the username alone when
    they chose no display name ("" for no user)."""
    if user is None:
        return ""
    username = user.get_username()
    return name_with_username(player_name(user), username)


def name_with_username(name: str, username: str) -> str:
    """ "Alice L. (@alice)"; just the name when it is the username (or no username is known);
    "deleted player" for a deleted account's placeholder."""
    if is_deleted_username(username):
        return deleted_player_name()
    if not username or name == username:
        return name or username
    return f"{name} (@{username})"
