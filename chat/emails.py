"""The chat in the emails (`core.slots`, connected in `ChatConfig.ready`): a "your turn"
email carries the messages written since the player's last move; a chat email (for those who
turned them on) the messages written since the first it tells of."""

from __future__ import annotations

from typing import Any

from chat import selectors


def your_turn_part(
    *, user_id: Any, game: Any, **about: Any
) -> tuple[str, str, dict[str, Any]] | None:
    lines = selectors.messages_since_last_move(game=game, user_id=user_id)
    if not lines:
        return None
    context = {"lines": lines}
    return "chat/email/your_turn_part.html", "chat/email/your_turn_part.txt", context


def chat_message_part(
    *, user_id: Any, game: Any, first_message_id: Any = None, **about: Any
) -> tuple[str, str, dict[str, Any]] | None:
    if not isinstance(first_message_id, int):
        return None
    lines = selectors.messages_for_email(game=game, user_id=user_id, first_id=first_message_id)
    if not lines:
        return None
    context = {"lines": lines}
    return "chat/email/chat_message_part.html", "chat/email/chat_message_part.txt", context
