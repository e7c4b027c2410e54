"""Whose turn it is, read in SQL across games: the seats to move, how many games wait for a
player (every page's navigation and title show it), and the games waiting for a computer."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db.models import Count, Q, QuerySet

from core.outages.cache import cached
from games.models import Game, Seat

MAX_PLAYERS = 4


def seats_to_move() -> QuerySet[Seat]:
    """Seats whose player is to move in their game, read in SQL from the game's stored engine
    state.

    This is the one SQL copy of the engine's `State.to_move`, kept because the sweeps, the
    digests and the count below must filter thousands of games in the database rather than load
    each one's state. `Game.state` is `azul.State.to_dict()`, which does not store `to_move`:
    `State.to_move` is the `current` player in the take phase, and in the tile phase (gray wall,
    where players tile at once) every player whose board still has a `tiling_line`. So a seat at
    `position` is to move when one of those holds for its position. A test checks this against
    the engine.
    """
    return Seat.objects.filter(_to_move())


def _to_move() -> Q:
    """`seats_to_move`'s condition on a seat."""
    condition = Q()
    for position in range(MAX_PLAYERS):
        condition |= Q(position=position) & (
            Q(game__state__phase="take", game__state__current=position)
            | Q(
                game__state__phase="tile",
                **{f"game__state__boards__{position}__tiling_line__in": [1, 2, 3, 4, 5]},
            )
        )
    return condition


WAITING_COUNT_SECONDS = 60
"""How long a player's counts of games and invitations waiting for them are kept. Every write to
a game drops the counts of its players and invitees (`games_waiting_forget`); this bounds how
long a count read just before such a write and stored just after it can be wrong."""


def _waiting_key(user_id: Any) -> str:
    return f"games:waiting-and-invited:{user_id}"


def _waiting_counts(user_id: Any) -> tuple[int, int]:
    """How many active games wait for this player's move, and how many invitations for their
    answer. Counted in SQL from the games' states (one query for both: costlier to build than
    most pages' other queries together), so kept in the cache between the writes that change
    them."""

    def count() -> tuple[int, int]:
        counts = Seat.objects.filter(user_id=user_id).aggregate(
            games=Count(
                "pk",
                filter=_to_move()
                & Q(autoplay=False, resigned_at__isnull=True, game__status=Game.Status.ACTIVE),
            ),
            invitations=Count(
                "pk",
                filter=Q(invitation=Seat.Invitation.PENDING, game__status=Game.Status.OPEN),
            ),
        )
        return counts["games"], counts["invitations"]

    games, invitations = cached(_waiting_key(user_id), count, WAITING_COUNT_SECONDS)
    return games, invitations


def games_waiting_count(*, user_id: Any) -> int:
    """How many active games wait for this player's move: what every page's navigation and
    title show (with `invitations_waiting_count`), and the games its link leads through
    (`next_game.next_game_id`): not a seat the computer plays for them (after three timeouts,
    or once they resigned)."""
    return _waiting_counts(user_id)[0]


def invitations_waiting_count(*, user_id: Any) -> int:
    """How many invitations to a game wait for this player's answer (kept with
    `games_waiting_count`, read with it in one query)."""
    return _waiting_counts(user_id)[1]


def games_waiting_forget(user_ids: list[Any]) -> None:
    """These players' turns or invitations changed: their counts are read afresh."""
    cache.delete_many([_waiting_key(pk) for pk in user_ids])


@dataclass(frozen=True)
class ComputerTurn:
    """A game waiting for a computer seat's move: at which ply, whose game it is (its creator,
    who asked for the computer), and since when it waits (the game's last write)."""

    game_id: Any
    ply: int
    owner_id: Any
    waiting_since: datetime


COMPUTER_TURNS_LIMIT = 5000
"""At most this many waiting turns read at once (as many as a sweep sends)."""


def computer_turns_waiting(levels: Collection[str]) -> list[ComputerTurn]:
    """The active games whose seat to move is a computer at one of `levels`, oldest first."""
    rows = (
        seats_to_move()
        .filter(kind=Seat.Kind.COMPUTER, bot_level__in=list(levels))
        .filter(game__status=Game.Status.ACTIVE)
        .values_list("game_id", "game__ply", "game__created_by_id", "game__updated_at")
        .order_by("game__updated_at")
        .distinct()[:COMPUTER_TURNS_LIMIT]
    )
    return [ComputerTurn(*row) for row in rows]
