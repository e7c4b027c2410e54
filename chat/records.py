"""The chat in a game's export (`core.slots`): only when every player let spectators read
it, as an export of a finished game is public."""

from __future__ import annotations

from typing import Any

from django.utils import translation

from chat import selectors


def export_addition(*, game: Any, **about: Any) -> dict[str, Any]:
    """`chat`: the messages, or None when not every player allowed it."""
    # In no language in particular, as the export's seat names ("deleted player").
    with translation.override(None):
        messages = selectors.export_messages(game=game)
    return {"chat": messages}
