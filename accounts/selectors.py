"""Reads for accounts."""

from django.db.models.functions import Upper
from rest_framework.authtoken.models import Token

from accounts.models import Profile, User
from accounts.names import player_name


def player_get(*, username: str) -> User | None:
    """The active player with this username (any letter case), with the profile joined."""
    return (
        User.objects.filter(username__iexact=username, is_active=True)
        .select_related("profile")
        .first()
    )


def profile_for(*, user: User) -> Profile:
    return Profile.objects.select_related("user").get(user=user)


def token_for(*, user: User) -> Token | None:
    """The user's API token, if any. Pages show only its creation date, never the key again."""
    return Token.objects.filter(user=user).first()


PLAYER_SEARCH_LIMIT = 10
PLAYER_SEARCH_MIN = 2
PLAYER_SEARCH_MAX = 150  # a username's longest


def players_search(*, prefix: str, exclude: User | None = None) -> list[dict[str, str]]:
    """Up to `PLAYER_SEARCH_LIMIT` active players whose username or display name starts with
    `prefix` (any letter case), by username, as `{"username", "display_name"}` (the name shown to
    players: `accounts.names.player_name`). Leaves out `exclude` (the one searching).

    Two queries, one per name, each read along its prefix index (`PrefixSearch`): an OR across
    the user and profile tables could use neither."""
    players = User.objects.filter(is_active=True)
    if exclude is not None:
        players = players.exclude(pk=exclude.pk)
    by_username = players.filter(username__istartswith=prefix).order_by(Upper("username"))
    by_name = players.filter(profile__display_name__istartswith=prefix).order_by(Upper("username"))
    found = {user.pk: user for user in by_username[:PLAYER_SEARCH_LIMIT]}
    found.update((user.pk, user) for user in by_name[:PLAYER_SEARCH_LIMIT])
    users = sorted(found.values(), key=lambda user: user.get_username().upper())
    return [
        {"username": user.get_username(), "display_name": player_name(user)}
        for user in users[:PLAYER_SEARCH_LIMIT]
    ]
