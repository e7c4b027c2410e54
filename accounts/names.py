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
