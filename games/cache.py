"""A read-through cache of each game with its seats, users and profiles.

The board page and the game API read a game far more often than anyone writes it, and building it
from the database (a four-table join) costs more than the rest of such a request. So readers take
it from the cache, and on a miss read the database and *add* it (never overwrite); writers, which
all hold the game's row lock (`games.services`), *publish* the game as it is once their
transaction commits, so a reader that read just before the commit cannot put an older game back
over it. `Game.save()` drops the cached game at once, for writes made anywhere else (the admin).

Only on a cache that every process shares (Redis), or in a single process: with one in-memory
cache per worker, one worker's writes would not reach the others. `GAME_CACHE_SECONDS` (0 = off)
also bounds how long a changed display name can lag on a board.
"""

from __future__ import annotations

import pickle
from typing import TYPE_CHECKING, Any

from django.conf import settings
from django.core.cache import cache
from django.db import transaction

from azul_site.cache import delete_now_and_after_commit

if TYPE_CHECKING:
    from games.models import Game


def _key(pk: Any) -> str:
    return f"games:game:{pk}"


def _seconds() -> int:
    return settings.GAME_CACHE_SECONDS


def _pickled(game: Game) -> bytes:
    """The game and its seats, without the prefetch's QuerySet (whose query would be pickled too,
    at more cost than the rows)."""
    seats = list(game.seats.all())
    prefetched = game.__dict__.pop("_prefetched_objects_cache", None)
    try:
        return pickle.dumps((game, seats), pickle.HIGHEST_PROTOCOL)
    finally:
        if prefetched is not None:
            game._prefetched_objects_cache = prefetched


def _unpickled(value: bytes) -> Game:
    game, seats = pickle.loads(value)
    game.attach_seats(seats)
    return game


def cached_game(pk: Any) -> Game | None:
    """The cached game with its seats (a fresh copy each call), or None."""
    value = cache.get(_key(pk)) if _seconds() else None
    return _unpickled(value) if value is not None else None


def remember(game: Game) -> None:
    """A reader found the game in the database: keep it, unless a writer published one since."""
    if _seconds():
        cache.add(_key(game.pk), _pickled(game), _seconds())


def publish_on_commit(game: Game) -> None:
    """Once the current transaction commits, `game` as it is then replaces any cached copy."""
    if _seconds():
        transaction.on_commit(lambda: cache.set(_key(game.pk), _pickled(game), _seconds()))


def forget_before_commit(pk: Any) -> None:
    """A writer changed the game and will publish it on commit; drop the cached copy now only if
    that commit is not at the end of the writer's own atomic block.

    Inside an enclosing transaction (a test's, which never commits), later reads in the same
    transaction would otherwise get the old game from the cache. A writer whose block is the
    outermost commits at once and publishes, so it need not spend a round trip on deleting.
    """
    if _seconds() and len(transaction.get_connection().atomic_blocks) > 1:
        forget(pk)


def forget(pk: Any) -> None:
    if _seconds():
        cache.delete(_key(pk))


def _forget_games_of(user_pk: Any) -> None:
    """A player's name or profile changed: drop the cached games where they sit and that can
    still change (a busy game would otherwise keep republishing the old name with every move)."""
    from games.models import Game, Seat

    if not _seconds() or user_pk is None:
        return
    live = [Game.Status.OPEN, Game.Status.ACTIVE]
    game_ids = list(
        Seat.objects.filter(user_id=user_pk, game__status__in=live).values_list(
            "game_id", flat=True
        )
    )
    if game_ids:
        delete_now_and_after_commit([_key(pk) for pk in game_ids])


def _user_saved(sender: Any, instance: Any, update_fields: Any = None, **kwargs: Any) -> None:
    if update_fields is not None and set(update_fields) <= {"last_login"}:
        return  # a login: nothing a game shows
    _forget_games_of(instance.pk)


def _profile_saved(sender: Any, instance: Any, **kwargs: Any) -> None:
    _forget_games_of(instance.user_id)


def connect_signals() -> None:
    from django.db.models.signals import post_save

    from accounts.models import Profile

    post_save.connect(_user_saved, sender=settings.AUTH_USER_MODEL, dispatch_uid="games.cache.user")
    post_save.connect(_profile_saved, sender=Profile, dispatch_uid="games.cache.profile")
