"""A cache of signed-in users, and of which user an API token belongs to.

Every page and API call first learns who is asking: a user (with profile) for the session, or a
token's user for a script. From the database that is a query costing more than the rest of a
cached board page, for data that changes rarely; so it is read through the cache, and every save
or delete of a user, a profile or a token drops what the cache holds about that user.

A token's user is cached under a digest of the key, never the key itself.

Only on a cache that every process shares (Redis), or in a single process: with one in-memory
cache per worker, a worker would not see another's invalidation (a deactivated user, a revoked
token). `USER_CACHE_SECONDS` (0 = off) bounds how long a change made behind the ORM's back (a
queryset `update()`) can go unseen.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.cache import cache
from django.db.models.signals import post_delete, post_save
from django.dispatch import receiver
from rest_framework.authtoken.models import Token

from accounts.models import Profile
from azul_site.cache import delete_now_and_after_commit, get_many_and_count_hit


def _seconds() -> int:
    return settings.USER_CACHE_SECONDS


def _user_key(pk: Any) -> str:
    return f"accounts:user:{pk}"


def _digest(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


def _token_key(key: str, digest: str | None = None) -> str:
    return "accounts:token:" + (digest or _digest(key))


# Token digest -> owner's pk, for tokens this process has seen: a key belongs to one user for
# good (revoking deletes it), so this needs no invalidation, only a bound.
_TOKEN_OWNERS_MAX = 10_000
_token_owners: dict[str, Any] = {}


def user_get(pk: Any) -> AbstractBaseUser | None:
    """The user with this primary key, profile loaded (any `is_active`), or None."""
    if _seconds():
        user = cache.get(_user_key(pk))
        if user is not None:
            return user
    User = get_user_model()
    try:
        user = User._default_manager.get(pk=pk)
    except (User.DoesNotExist, ValueError, TypeError):
        return None
    if _seconds():
        # add, not set: a writer that dropped the entry since this read must not see it back.
        cache.add(_user_key(pk), user, _seconds())
    return user


def _token_user_from_db(key: str) -> AbstractBaseUser | None:
    user_pk = Token.objects.filter(key=key).values_list("user_id", flat=True).first()
    return user_get(user_pk) if user_pk is not None else None


def user_for_token(
    key: str,
    *,
    counter_for: Callable[[Any], tuple[str, int] | None] | None = None,
    also_get: Sequence[str] = (),
) -> tuple[AbstractBaseUser | None, dict[str, int], dict[str, Any]]:
    """The user the API token `key` belongs to (None for an unknown key), the hits counted, and
    the entries of `also_get` found in the cache, all read in one round trip.

    With `counter_for`, a function from a user's pk to a (counter, lifetime) pair, one hit is
    counted on the owner's counter in the same round trip as the lookup, when this process
    knows the owner from an earlier lookup; the second value is then {counter: count}.
    """
    if not isinstance(key, str):
        return None, {}, {}
    counted: dict[str, int] = {}
    if not _seconds():
        return _token_user_from_db(key), counted, cache.get_many(also_get) if also_get else {}
    digest = _digest(key)
    cache_key = _token_key(key, digest)
    owner = _token_owners.get(digest) if counter_for is not None else None
    counter = counter_for(owner) if owner is not None else None
    if counter is not None:
        found, counted[counter[0]] = get_many_and_count_hit([cache_key, *also_get], *counter)
    else:
        found = cache.get_many([cache_key, *also_get])
    user = found.pop(cache_key, None)
    if user is None:
        user = _token_user_from_db(key)
        if user is not None:
            cache.add(cache_key, user, _seconds())
    if user is not None:
        if len(_token_owners) >= _TOKEN_OWNERS_MAX:
            _token_owners.clear()
        _token_owners[digest] = user.pk
    return user, counted, found


def _forget_user(pk: Any) -> None:
    if _seconds():
        # The user, and the user as their token's owner.
        keys = [_user_key(pk)]
        keys += [
            _token_key(k) for k in Token.objects.filter(user_id=pk).values_list("key", flat=True)
        ]
        delete_now_and_after_commit(keys)


def _forget_token(key: str) -> None:
    if _seconds():
        delete_now_and_after_commit([_token_key(key)])


@receiver(post_save, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.cache.user_saved")
@receiver(post_delete, sender=settings.AUTH_USER_MODEL, dispatch_uid="accounts.cache.user_gone")
def _user_changed(sender: Any, instance: AbstractBaseUser, **kwargs: Any) -> None:
    _forget_user(instance.pk)


@receiver(post_save, sender=Profile, dispatch_uid="accounts.cache.profile_saved")
@receiver(post_delete, sender=Profile, dispatch_uid="accounts.cache.profile_gone")
def _profile_changed(sender: Any, instance: Profile, **kwargs: Any) -> None:
    _forget_user(instance.user_id)


@receiver(post_save, sender=Token, dispatch_uid="accounts.cache.token_saved")
@receiver(post_delete, sender=Token, dispatch_uid="accounts.cache.token_gone")
def _token_changed(sender: Any, instance: Token, **kwargs: Any) -> None:
    _forget_token(instance.key)
