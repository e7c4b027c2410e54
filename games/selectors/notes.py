"""A player's private notes on a game (`services.players`), read by that player only."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import AnonymousUser
from django.db.models import OuterRef, Subquery

from accounts.models import User
from games.errors import GameNotFound
from games.models import GameNote, Seat
from games.selectors.games import parse_game_id


def seated(*, game_id: Any, user: User | AnonymousUser) -> bool:
    """Whether `user` holds a seat of the game (taken, not merely invited to): 1 query."""
    if not user.is_authenticated:
        return False
    return (
        Seat.objects.filter(game_id=parse_game_id(game_id), user_id=user.pk)
        .exclude(invitation=Seat.Invitation.PENDING)
        .exists()
    )


def game_note(*, game_id: Any, user: User) -> GameNote | None:
    """`user`'s notes on the game (None when they wrote none); GameNotFound when they hold no
    seat of it, whether or not the game exists: 2 queries."""
    if not seated(game_id=game_id, user=user):
        raise GameNotFound()
    return GameNote.objects.filter(game_id=parse_game_id(game_id), user_id=user.pk).first()


def seated_note_text(*, game_id: Any, user: User | AnonymousUser) -> str | None:
    """The text of `user`'s notes on the game ("" for none), or None when they hold no seat of
    it: 1 query (the board page's)."""
    if not user.is_authenticated:
        return None
    note = GameNote.objects.filter(game_id=OuterRef("game_id"), user_id=user.pk)
    row = (
        Seat.objects.filter(game_id=parse_game_id(game_id), user_id=user.pk)
        .exclude(invitation=Seat.Invitation.PENDING)
        .values_list("pk", Subquery(note.values("text")[:1]))
        .first()
    )
    return None if row is None else row[1] or ""
