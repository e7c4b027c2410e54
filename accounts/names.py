"""How a player is named to other players: one function for every page, list and email."""

from __future__ import annotations

from django.contrib.auth.base_user import AbstractBaseUser


def player_name(user: AbstractBaseUser | None) -> str:
    """The player's display name, or their username when they chose none ("" for no user).

    Reads `user.profile`, which the queries that list players join (`UserManager`,
    `Seat.with_players`): no query of its own there. Usernames stay where they identify an
    account (URLs, the invitation field, the API's `username`)."""
    if user is None:
        return ""
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
    """ "Alice L. (@alice)"; just the name when it is the username (or no username is known)."""
    if not username or name == username:
        return name or username
    return f"{name} (@{username})"
