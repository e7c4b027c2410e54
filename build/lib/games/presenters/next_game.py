"""The "Next game" a board offers after a move (`selectors.next_game`): where it leads, and
whether the site goes there by itself (the player's `next_game_after_move`)."""

from __future__ import annotations

from typing import Any, TypedDict

from django.urls import reverse

from accounts.models import User
from games.models import Game
from games.selectors.next_game import game_still_waits_for, next_game_id


class NextGame(TypedDict):
    id: Any
    url: str


def next_game_link(*, user_id: Any, exclude: Any = None) -> NextGame | None:
    """The player's next game (`selectors.next_game_id`) as the board links to it (1 query)."""
    game_id = next_game_id(user_id=user_id, exclude=exclude)
    if game_id is None:
        return None
    return {"id": game_id, "url": reverse("games:detail", args=[game_id])}


def next_game_after_move(*, game: Game, user: User) -> NextGame | None:
    """After `user` moved in `game` (as `services.move_submit` returns it), the game to go on
    to; None when `game` is still theirs to play (`game_still_waits_for`), or no other game
    waits for them (0 or 1 query)."""
    if game_still_waits_for(game, user.pk):
        return None
    return next_game_link(user_id=user.pk, exclude=game.pk)


def goes_on_by_itself(user: User) -> bool:
    """Whether the player asked to be taken to their next game after each move."""
    profile = getattr(user, "profile", None)
    return bool(getattr(profile, "next_game_after_move", False))
