"""A player's private notes on a game: written by that player only, while they hold a seat of
it (a player who resigned or whose game ended keeps theirs). Nobody else learns whether a game
has notes: every refusal to someone without a seat is the game's 404."""

from __future__ import annotations

import unicodedata
from typing import Any

from django.utils.translation import gettext as _

from accounts.models import User
from games.errors import GameNotFound, InvalidAction
from games.models import GameNote
from games.selectors.notes import seated

# What a textarea may hold besides printable text: its line breaks and tabs.
ALLOWED_CONTROLS = frozenset("\n\t")


def note_text_clean(text: Any) -> str:
    """The note as it is kept (line breaks made "\\n"); InvalidAction (400) when it is not text,
    is too long or holds a control character other than a line break or a tab."""
    if not isinstance(text, str):
        raise InvalidAction(_("Notes must be text."))
    # Browsers send a textarea's line breaks as "\r\n".
    text = text.replace("\r\n", "\n")
    if len(text) > GameNote.MAX_LENGTH:
        raise InvalidAction(
            _("Notes can be at most %(limit)d characters long (these are %(length)d).")
            % {"limit": GameNote.MAX_LENGTH, "length": len(text)}
        )
    if any(unicodedata.category(c) == "Cc" and c not in ALLOWED_CONTROLS for c in text):
        raise InvalidAction(
            _("Notes cannot hold control characters other than line breaks and tabs.")
        )
    return text


def game_note_save(*, game_id: Any, user: User, text: Any) -> GameNote:
    """Keep `text` as `user`'s notes on the game (replacing what was there); GameNotFound when
    they hold no seat of it."""
    clean = note_text_clean(text)
    if not seated(game_id=game_id, user=user):
        raise GameNotFound()
    note, _created = GameNote.objects.update_or_create(
        game_id=game_id, user=user, defaults={"text": clean}
    )
    return note


def player_notes_forget(*, user_id: Any) -> None:
    """A player deletes their account: their notes go."""
    GameNote.objects.filter(user_id=user_id).delete()
