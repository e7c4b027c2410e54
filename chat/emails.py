"""The chat in the emails (`core.email_parts`, registered in `ChatConfig.ready`): a "your turn"
email carries the messages written since the player's last move. A message alone sends no
email."""

from __future__ import annotations

from typing import Any

from chat import selectors
from core.email_parts import email_part_register


def your_turn_part(
    *, user_id: Any, game: Any, **about: Any
) -> tuple[str, str, dict[str, Any]] | None:
    lines = selectors.messages_since_last_move(game=game, user_id=user_id)
    if not lines:
        return None
    context = {"lines": lines}
    return "chat/email/your_turn_part.html", "chat/email/your_turn_part.txt", context


def email_parts_register() -> None:
    email_part_register("your_turn", your_turn_part)
