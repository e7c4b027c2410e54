"""Reads for accounts."""

from collections.abc import Sequence
from typing import Any

from django.db.models import Q, QuerySet, Value
from django.db.models.functions import Upper

from accounts.models import ApiToken, Block, Delivery, Follow, Profile, User
from accounts.names import player_name


def player_get(*, username: str) -> User | None:
    """The active player with this username (any letter case), with the profile joined."""
    return (
        User.objects.filter(username__iexact=username, is_active=True)
        .select_related("profile")
        .first()
    )


PLAYERS_NAMED_LIMIT = 20
"""At most this many players share a name in a search by name (display names are not unique)."""


def players_named(*, name: str) -> list[Any]:
    """The ids of the players (any, a deleted one too) that `name` names, any letter case: the
    player with that username, else those with that display name (display names are not
    unique); whom the history's filter by player means by a name as pages show it. One query,
    a union of two lookups each read along its name's index (`UPPER(name)`: migration
    0007_player_search_indexes), as an OR across the user and profile tables could use
    neither; at most `PLAYERS_NAMED_LIMIT` players."""
    name = name.strip()
    if not name:
        return []
    by_username = (
        User.objects.filter(username__iexact=name)
        .annotate(by_username=Value(True))
        .values_list("pk", "by_username")
    )
    by_name = (
        Profile.objects.filter(display_name__iexact=name)
        .annotate(by_username=Value(False))
        .values_list("user_id", "by_username")
    )
    found = list(by_username[:1].union(by_name[:PLAYERS_NAMED_LIMIT]))
    # A username names one player; a display name that equals it does not take their place.
    return [pk for pk, is_username in found if is_username] or [pk for pk, _ in found]


def profile_for(*, user: User) -> Profile:
    return Profile.objects.select_related("user").get(user=user)


def without_invitation_emails(*, users: Sequence[User | None]) -> list[User]:
    """Of `users` (their profiles loaded, as `UserManager` does; None for an empty seat), those
    who turned invitation emails off: an invitation reaches them only when they next visit the
    site. No query."""
    return [
        u
        for u in users
        if u is not None
        and getattr(getattr(u, "profile", None), "email_invitation", None) == Delivery.NEVER
    ]


def tokens_of(*, user: User) -> QuerySet[ApiToken]:
    """The user's API tokens, newest first. Only their digest is kept: no page can show a key
    again."""
    return ApiToken.objects.filter(user=user)


PLAYER_SEARCH_LIMIT = 10
PLAYER_SEARCH_MIN = 2
PLAYER_SEARCH_MAX = 150  # a username's longest


def players_search(*, prefix: str, exclude: User | None = None) -> list[dict[str, Any]]:
    """Up to `PLAYER_SEARCH_LIMIT` active players whose username or display name starts with
    `prefix` (any letter case), as `{"username", "display_name", "following"}` (the name shown
    to players: `accounts.names.player_name`): the players `exclude` (the one searching)
    follows first, then the others, each by username. Leaves out `exclude`.

    Three queries: one per name, each read along its prefix index (`PrefixSearch`), as an OR
    across the user and profile tables could use neither; and one among the players followed
    (a few hundred at most), so that they come first even among many of the same prefix."""
    players = User.objects.filter(is_active=True)
    friends: dict[Any, User] = {}
    if exclude is not None:
        players = players.exclude(pk=exclude.pk)
        friends = {
            user.pk: user
            for user in players.filter(pk__in=followed_ids(user_id=exclude.pk))
            .filter(Q(username__istartswith=prefix) | Q(profile__display_name__istartswith=prefix))
            .order_by(Upper("username"))[:PLAYER_SEARCH_LIMIT]
        }
    by_username = players.filter(username__istartswith=prefix).order_by(Upper("username"))
    by_name = players.filter(profile__display_name__istartswith=prefix).order_by(Upper("username"))
    found = {user.pk: user for user in by_username[:PLAYER_SEARCH_LIMIT]}
    found.update((user.pk, user) for user in by_name[:PLAYER_SEARCH_LIMIT])
    found.update(friends)
    users = sorted(
        found.values(), key=lambda user: (user.pk not in friends, user.get_username().upper())
    )
    return [
        {
            "username": user.get_username(),
            "display_name": player_name(user),
            "following": user.pk in friends,
        }
        for user in users[:PLAYER_SEARCH_LIMIT]
    ]


# -- blocks --------------------------------------------------------------------------------------


def blocks_of(*, user: User) -> QuerySet[Block]:
    """The players `user` has blocked, newest first, each with the blocked player and profile."""
    return Block.objects.filter(blocker=user).select_related("blocked__profile")


def block_exists(*, blocker: User, blocked: User) -> bool:
    return Block.objects.filter(blocker=blocker, blocked=blocked).exists()


def blocked_either_way(*, user_id: Any, other_ids: list[Any]) -> bool:
    """Whether `user_id` has blocked any of `other_ids`, or any of them has blocked `user_id`
    (one query; none for no others). Says nothing of which: a refusal must not tell who blocked
    whom."""
    others = [pk for pk in other_ids if pk is not None and pk != user_id]
    if not others:
        return False
    return Block.objects.filter(
        Q(blocker_id=user_id, blocked_id__in=others) | Q(blocked_id=user_id, blocker_id__in=others)
    ).exists()


def block_partners_q(*, user_id: Any, field: str) -> Q:
    """A condition on `field` (a user id, e.g. a seat's `user_id`) that holds for the players
    `user_id` has blocked or who have blocked `user_id`: two subqueries, for a queryset that
    leaves them out (the lobby)."""
    blocked = Block.objects.filter(blocker_id=user_id).values("blocked_id")
    blockers = Block.objects.filter(blocked_id=user_id).values("blocker_id")
    return Q(**{f"{field}__in": blocked}) | Q(**{f"{field}__in": blockers})


# -- follows -------------------------------------------------------------------------------------


def following_of(*, user: User) -> QuerySet[Follow]:
    """The players `user` follows, newest first, each with the followed player and profile."""
    return Follow.objects.filter(follower=user).select_related("followed__profile")


def follow_exists(*, follower: User, followed: User) -> bool:
    return Follow.objects.filter(follower=follower, followed=followed).exists()


def followed_ids(*, user_id: Any) -> QuerySet[Follow, Any]:
    """The ids of the players `user_id` follows, as a subquery (`field__in=`)."""
    return Follow.objects.filter(follower_id=user_id).values("followed_id")
