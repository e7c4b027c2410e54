"""The one way a change to a game reaches the other apps (emails, ratings): games publishes an
event here, and the apps that care subscribe to it in their `AppConfig.ready` (for example
`notifications.receivers`, `ratings.receivers`). So `games` depends on none of them, and a reader
finds every effect of a game on the rest of the site in this file.

The events are Django signals sent synchronously, inside the write's transaction (lichess's
`Bus.publish`, but not deferred): what a receiver writes (a notification's outbox row, the
players' ratings) commits or rolls back with the game, and a receiver that fails fails the
write. A receiver that needs to act after the commit (a task, an email) asks for that itself
(`transaction.on_commit`).

Each event has a typed function that sends it (`tell_players`, `game_finished`,
`player_resigned`, `game_viewed`); games calls those, and receivers connect to the signal of the
same name with `on_` before it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.dispatch import Signal

from games import live_marks as marks
from games.models import Game, Seat

on_tell_players = Signal()
"""Players are to be told of something about a game (an email, by their choice): kind,
game_id, ply, recipient_ids, context, repeatable."""

on_game_finished = Signal()
"""A game has just finished, its seats' final places set and not yet saved: game, seats. Each
receiver returns the names of the seat fields it set, which the caller saves with the seats."""

on_player_resigned = Signal()
"""A player resigned a game: user_id, game_id. The game needs nothing more of them."""

on_game_viewed = Signal()
"""A player has the game in front of them (its page was shown to them): user_id, game_id."""


def tell_players(
    *,
    kind: str,
    game: Game,
    recipient_ids: Iterable[Any],
    repeatable: bool = False,
    context: dict[str, Any] | None = None,
) -> None:
    """Tell the players `recipient_ids` of `kind` (a `notifications.models.Notification.Kind`)
    about `game` at its ply, once per player, game, ply and kind.

    `repeatable` is for an event that may happen more than once at the same ply (an invitation
    declined or given again before the game starts, a resignation): each is told on its own,
    where the game's ply alone would make the second a repeat. `context` is what the message
    shows that the game does not keep (the move the server made at a timeout)."""
    recipients = list(recipient_ids)
    if recipients:
        on_tell_players.send(
            sender=Game,
            kind=kind,
            game_id=game.id,
            ply=game.ply,
            recipient_ids=recipients,
            context=context or {},
            repeatable=repeatable,
        )


def board_side_changed(*, game_id: Any) -> None:
    """Something shown beside the game's board changed (a chat message, one hidden): the board
    pages waiting on the game are told (`games.live_marks`), without the game's version, which
    orders game lists and wakes the computer players, changing."""
    marks.side_changed(game_id)


def game_finished(*, game: Game, seats: list[Seat]) -> tuple[str, ...]:
    """Publish that `game` has just finished, with its `seats` (final scores and places set, not
    saved yet); returns the seat fields the receivers set (the players' ratings before and after
    the game), for the caller to save with the seats in the same write."""
    responses = on_game_finished.send(sender=Game, game=game, seats=seats)
    return tuple(dict.fromkeys(name for _, fields in responses for name in fields or ()))


def player_resigned(*, user_id: Any, game_id: Any) -> None:
    """Publish that the player `user_id` resigned `game_id` (inside the resignation's write)."""
    on_player_resigned.send(sender=Game, user_id=user_id, game_id=game_id)


def game_viewed(*, user_id: Any, game_id: Any) -> None:
    """Publish that the player `user_id` has the game `game_id` in front of them: a GET may call
    it, so receivers must not write to the database."""
    on_game_viewed.send(sender=Game, user_id=user_id, game_id=game_id)
