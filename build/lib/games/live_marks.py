"""Marks of what is shown beside a board and changes without the game changing (the chat): a
value in the cache per game, new at each change, which a board page waiting in `games.live`
watches along with the game's version. Outside `games.live`, so that the apps that follow games
set it through `games.effects.board_side_changed` without reaching into the live updates. The
game's ply and `updated_at` stay as they are: they order the game lists and wake the computer
players, which a chat message must not.

The cache is a helper: a mark lost (evicted, the cache down) reads as `NO_MARK` and wakes a page
once, harmlessly; a change missed is picked up by the chat's own poll."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterable
from typing import Any

from django.core.cache import cache

MARK_SECONDS = 24 * 3600
# The mark of a game with none in the cache: never "", which a page sends for "from now".
NO_MARK = "0"


def _key(game_id: Any) -> str:
    return f"live:side:{game_id}"


def side_changed(game_id: Any) -> None:
    """Something beside the game's board changed: pages waiting on the game are woken."""
    with contextlib.suppress(Exception):
        cache.set(_key(game_id), uuid.uuid4().hex, MARK_SECONDS)


def side_mark(game_id: Any) -> str:
    """The game's mark now (`NO_MARK` when none)."""
    try:
        return str(cache.get(_key(game_id)) or NO_MARK)
    except Exception:
        return NO_MARK


def side_marks(game_ids: Iterable[Any]) -> dict[Any, str]:
    """The marks of these games (one cache read); raises when the cache does not answer."""
    ids = list(game_ids)
    found = cache.get_many([_key(game_id) for game_id in ids])
    return {game_id: str(found.get(_key(game_id)) or NO_MARK) for game_id in ids}
