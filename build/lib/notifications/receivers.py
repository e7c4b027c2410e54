"""What notifications does about a change to a game: the receivers of `games.effects`, connected
in `NotificationsConfig.ready`. Each runs inside the game's write (so an outbox row commits or
rolls back with the change), except `game_viewed`, which a page's GET sends and which writes no
row."""

from __future__ import annotations

from typing import Any

from games import effects
from notifications import seen, selectors, services
from notifications.models import Notification


def tell_players(
    sender: Any,
    *,
    kind: str,
    game_id: Any,
    ply: int,
    recipient_ids: list[Any],
    context: dict[str, Any],
    repeatable: bool,
    **kwargs: Any,
) -> None:
    """An email per recipient (by their choice), in the outbox: one per player, game, ply and
    kind, or for an event that may come again at the same ply, one per event
    (`services.event_ply`)."""
    if kind == Notification.Kind.GAME_CANCELLED:
        services.invitations_drop(game_id=game_id)
        recipient_ids = selectors.told_of_cancelled_game(
            game_id=game_id, recipient_ids=recipient_ids
        )
    if kind == Notification.Kind.CHAT_MESSAGE:
        recipient_ids = selectors.without_chat_email_waiting(
            game_id=game_id, recipient_ids=recipient_ids
        )
    if repeatable:
        ply = services.event_ply(game_id=game_id, kind=kind, at_least=ply)
    services.notify_players(
        recipient_ids=recipient_ids, kind=kind, game_id=game_id, ply=ply, context=context
    )


def player_resigned(sender: Any, *, user_id: Any, game_id: Any, **kwargs: Any) -> None:
    """Their "your turn" and reminder emails about this game are no longer needed."""
    services.turn_emails_skip(user_id=user_id, game_id=game_id)


def game_viewed(sender: Any, *, user_id: Any, game_id: Any, **kwargs: Any) -> None:
    """The player has seen the game: their "your turn" and reminder emails about it written
    before now are not needed (a mark in the cache; no row is written)."""
    seen.game_viewed_mark(user_id=user_id, game_id=game_id)


def connect() -> None:
    effects.on_tell_players.connect(tell_players, dispatch_uid="notifications.tell_players")
    effects.on_player_resigned.connect(
        player_resigned, dispatch_uid="notifications.player_resigned"
    )
    effects.on_game_viewed.connect(game_viewed, dispatch_uid="notifications.game_viewed")
