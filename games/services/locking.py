"""The game row every write starts from: read (and locked) with its seats, and the questions
every service asks of those seats."""

from __future__ import annotations

from collections.abc import Collection
from functools import partial
from typing import Any

from django.db import transaction

import azul
from accounts.models import User
from games.errors import GameNotFound
from games.models import Game, Seat
from games.selectors import games_waiting_forget, parse_game_id


def read_game(game_id: Any, *, lock: bool) -> Game:
    """The game with its seats and their players as `seat_list` (so that the caller can answer
    with the game as it is after the write, without reading it again); with `lock`, its row
    locked until the end of the transaction, and the seats read once the lock is granted.

    Two plain queries rather than `with_seats()`: the creator is one of the seats' players, and
    a prefetch costs a move more than the query it runs."""
    games = Game.objects.select_for_update() if lock else Game.objects.all()
    try:
        game = games.get(pk=parse_game_id(game_id))
    except Game.DoesNotExist:
        raise GameNotFound() from None
    game.seat_list = list(Seat.with_players().filter(game=game))
    creator = next((s.user for s in game.seat_list if s.user_id == game.created_by_id), None)
    if creator is not None:
        game.created_by = creator
    return game


def lock_game(game_id: Any) -> Game:
    """`read_game` with the game's row locked until the end of the transaction: the first
    statement of every write to a game.

    Any write may change whose turn it is or who is invited: the counts of games and
    invitations waiting (every page's header) of the people at the table as it is now, an
    invitee who declines or whose seat is given away included, are read afresh
    (`forget_waiting_counts`; a player newly invited to a seat: `seat_invite`)."""
    game = read_game(game_id, lock=True)
    forget_waiting_counts(game.seat_list)
    return game


def started_state(game: Game) -> azul.State:
    """The engine's state of a game that has started: every move, timeout and resignation is on
    one, which has its first deal (a game has no state only while it waits for players)."""
    state = game.engine_state()
    assert state is not None, f"game {game.pk} has not started"
    return state


def seat_of_user(seats: list[Seat], user: User) -> Seat | None:
    """The user's seat among `seats` (invited, accepted or playing), if they have one."""
    return next((s for s in seats if s.user_id is not None and s.user_id == user.pk), None)


def human_player_ids(seats: list[Seat], positions: Collection[int] | None = None) -> list[Any]:
    """The ids of the people who sit at `seats` (those at `positions`, if given): not the
    computer's seats, nor open or declined ones."""
    return [
        s.user_id
        for s in seats
        if s.user_id is not None
        and s.kind == Seat.Kind.HUMAN
        and (positions is None or s.position in positions)
    ]


def forget_waiting_counts(seats: list[Seat]) -> None:
    """Whose turn it is changed: the players' counts of games waiting for them are read afresh,
    now (for the rest of this transaction) and once it commits (in case a reader stored the
    count from before in between)."""
    players = human_player_ids(seats)
    games_waiting_forget(players)
    transaction.on_commit(partial(games_waiting_forget, players))
