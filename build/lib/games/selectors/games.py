"""One game: finding it by its id, its version (what everything cached for it is keyed by), and
what its seats allow the viewer (their seat, their legal moves)."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db import DatabaseError
from django.utils import translation

import azul
from accounts.models import User
from games.errors import GameNotFound
from games.models import Game, Seat

VIEW_CACHE_SECONDS = 600
"""How long a game's view (the API's) or its rendered board (the page's) is kept for reuse. Both
are cached under the game's version (`GameVersion`), so they never show an older game."""


def parse_game_id(game_id: Any) -> uuid.UUID:
    """A game id as given (a URL part, a JSON value) as the key it is; GameNotFound when it
    cannot be one."""
    try:
        return game_id if isinstance(game_id, uuid.UUID) else uuid.UUID(str(game_id))
    except (ValueError, TypeError, AttributeError):
        raise GameNotFound() from None


def game_ply(*, game_id: Any) -> int | None:
    """The game's ply now (1 query), or None when there is no such game."""
    try:
        return Game.objects.filter(pk=parse_game_id(game_id)).values_list("ply", flat=True).first()
    except (GameNotFound, DatabaseError):
        return None


def game_get(*, game_id: Any) -> Game:
    """The game with its seats, their users and profiles (2 queries); GameNotFound otherwise."""
    try:
        return Game.objects.with_seats().get(pk=parse_game_id(game_id))
    except Game.DoesNotExist:
        raise GameNotFound() from None


@dataclass(frozen=True)
class GameVersion:
    """Which version of a game a viewer sees: what the views and boards cached for it are keyed
    by. A game's `updated_at` changes with every write to it (a seat taken or an invitation
    answered included), and with every change of a name it shows
    (`services.games_touch_for_player`).

    Keyed by the viewer rather than by their seat, which would cost a join to find: players
    share nothing anyway, and a watcher's first look at a version builds their own copy."""

    id: uuid.UUID
    ply: int
    updated_at: Any
    created_by_id: Any
    viewer_id: Any  # None for a visitor who is not signed in

    @property
    def started(self) -> bool:
        return self.ply > 0  # the first deal is the first log entry

    @property
    def key(self) -> str:
        # With the language: what is cached under it is text in the language of the request.
        return (
            f"{self.id}:{self.ply}:{self.updated_at.timestamp():.6f}:{self.viewer_id}"
            f":{translation.get_language()}"
        )


def game_version(*, game_id: Any, viewer: User | AnonymousUser | None) -> GameVersion:
    """The game's current version as `viewer` sees it, in one small query; GameNotFound
    otherwise."""
    pk = parse_game_id(game_id)
    try:
        ply, updated_at, created_by_id = Game.objects.values_list(
            "ply", "updated_at", "created_by_id"
        ).get(pk=pk)
    except Game.DoesNotExist:
        raise GameNotFound() from None
    viewer_id = viewer.pk if viewer is not None and viewer.is_authenticated else None
    return GameVersion(pk, ply, updated_at, created_by_id, viewer_id)


def viewer_seat(game: Game, viewer: User | AnonymousUser | None) -> Seat | None:
    """The viewer's seat at the game (taken, not merely invited to), from `game.seat_list`."""
    if viewer is None or not viewer.is_authenticated:
        return None
    return next(
        (
            s
            for s in game.seat_list
            if s.user_id == viewer.pk and s.invitation != Seat.Invitation.PENDING
        ),
        None,
    )


def resigned_positions(game: Game) -> list[int]:
    """The positions of the seats whose players resigned (`game.seat_list`, no query)."""
    return [s.position for s in game.seat_list if s.resigned_at is not None]


def seat_legal_moves(game: Game, state: azul.State | None, seat: Seat | None) -> list[str]:
    """The legal moves of `seat` in notation; empty unless it is that seat's player's turn in an
    active game."""
    if game.status != Game.Status.ACTIVE or seat is None or state is None:
        return []
    if seat.position not in state.to_move or seat.resigned_at is not None:
        return []  # a resigned seat is the computer's to play
    return [str(m) for m in azul.legal_moves(state, seat.position)]


def legal_moves_for(*, game: Game, viewer: User | AnonymousUser | None) -> list[str]:
    """The viewer's legal moves in notation; empty unless it is their turn in an active game."""
    return seat_legal_moves(game, game.engine_state(), viewer_seat(game, viewer))
