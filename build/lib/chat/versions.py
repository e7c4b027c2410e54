"""Versions of what the chat panel shows, kept in the cache, so that a board page whose chat has
not changed reads its panel from the cache with no query (as the analysis panel does).

A game's version changes with its messages (a new one, one hidden); a viewer's with their mutes,
their blocks and their spectators setting; spectators' pages follow one site-wide version of the
players' settings, which change seldom. A version missing from the cache (evicted, or the cache
down) is a new one: a panel kept under an older one is never read again."""

from __future__ import annotations

import uuid
from typing import Any

from django.core.cache import cache

VERSION_SECONDS = 24 * 3600


def _game_key(game_id: Any) -> str:
    return f"chat:v:game:{game_id}"


def _user_key(user_id: Any) -> str:
    return f"chat:v:user:{user_id}"


SETTINGS_KEY = "chat:v:settings"


def versions_key(*, game_id: Any, user_id: Any) -> str:
    """The versions of the game's chat, the viewer's chat settings and the players' settings,
    as one key part (a cache that does not answer gives new ones each time: nothing is read
    back)."""
    keys = [_game_key(game_id), _user_key(user_id), SETTINGS_KEY]
    found = cache.get_many(keys)
    missing = {key: uuid.uuid4().hex for key in keys if key not in found}
    if missing:
        cache.set_many(missing, VERSION_SECONDS)
    return ":".join(str({**found, **missing}[key]) for key in keys)


def game_changed(game_id: Any) -> None:
    cache.delete(_game_key(game_id))


def user_changed(user_id: Any) -> None:
    cache.delete(_user_key(user_id))


def settings_changed() -> None:
    cache.delete(SETTINGS_KEY)
