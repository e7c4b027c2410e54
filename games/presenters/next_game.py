"""The "Next game" a board offers after a move (`selectors.next_game`): where it leads,
whether the site goes there by itself (the player's `next_game_after_move`), and what the next
game's page says of the game the player came from."""

from __future__ import annotations

from typing import Any, TypedDict
from urllib.parse import urlencode

from django.contrib.auth.models import AnonymousUser
from django.urls import reverse

from accounts.models import User
from games.errors import GameNotFound
from games.models import Game
from games.presenters.names import players_title, seat_names
from games.selectors.games import game_get, viewer_seat
from games.selectors.next_game import game_still_waits_for, next_game_id

MOVED_IN_PARAM = "moved_in"
"""The query parameter of the page the player moves on to: the game they moved in. The board's
script adds it too (static/games/board.js)."""


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


def arrival_url(onward: NextGame, *, moved_in: Any) -> str:
    """The next game's address, saying that the player comes from their move in `moved_in`."""
    return f"{onward['url']}?{urlencode({MOVED_IN_PARAM: str(moved_in)})}"


class MovedIn(TypedDict):
    url: str
    title: str  # who plays it: "alice v bob"


def moved_in_game(game_id: str | None, *, user: User | AnonymousUser) -> MovedIn | None:
    """The game the player came from (`MOVED_IN_PARAM`), to name it and link back to it; None
    for no such game or one where `user` holds no seat: the address is anyone's to write, so it
    names no game its reader may not see (2 queries)."""
    if not game_id or not user.is_authenticated:
        return None
    try:
        game = game_get(game_id=game_id)
    except GameNotFound:
        return None
    if viewer_seat(game, user) is None:
        return None
    names = seat_names(game.seat_list)
    return {
        "url": reverse("games:detail", args=[game.id]),
        "title": players_title([names[position] for position in sorted(names)]),
    }
