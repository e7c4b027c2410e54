"""A player's row as a lock, for the limits counted per player."""

from __future__ import annotations

from typing import Any

from accounts.models import User


def lock_player(user_id: Any) -> None:
    """Holds the player's row until the transaction ends: one write of a player's at a time
    counts their rows of a kind (games, tokens, blocks, follows, messages, imports, analyses)
    and adds one, so that requests sent at once cannot all take the last place."""
    User.objects.select_for_update().filter(pk=user_id).values_list("pk").first()
