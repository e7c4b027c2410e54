"""A player's private notes on a game: only they read or write them, and only while they hold a
seat of the game; anyone else gets the game's 404, which says nothing of whether it has notes."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from accounts.http import AuthenticatedRequest
from core.api.responses import validated_input
from games import selectors, services
from games.api.base import ERRORS, GameApiBase
from games.models import GameNote
from games.throttles import GameNotesThrottle, ThrottledMessages


class GameNoteSerializer(serializers.Serializer):
    text = serializers.CharField(
        help_text="the notes, plain text: line breaks and tabs but no other control characters;"
        " empty when there are none"
    )
    updated_at = serializers.DateTimeField(
        allow_null=True, help_text="when they were last saved; null when never"
    )


class TextOnlyField(serializers.CharField):
    """A string, as the schema says: not a number or a boolean made one (DRF's CharField
    would take `0` as "0")."""

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class GameNoteInputSerializer(serializers.Serializer):
    text = TextOnlyField(
        allow_blank=True,
        trim_whitespace=False,
        max_length=GameNote.MAX_LENGTH,
        help_text="the whole notes, replacing what was there (empty to clear them)",
    )


def _note_view(note: GameNote | None) -> dict[str, object]:
    return {"text": note.text if note else "", "updated_at": note.updated_at if note else None}


class GameNotesApi(ThrottledMessages, GameApiBase):
    player_throttles = (GameNotesThrottle,)

    @extend_schema(
        summary="Your private notes on a game",
        description=(
            "What the caller wrote for themselves on a game they hold a seat of (plans,"
            " reminders). Nobody else sees them: to anyone else this is a 404, as for a game"
            " that does not exist."
        ),
        responses={200: GameNoteSerializer, 404: ERRORS[404]},
    )
    def get(self, request: AuthenticatedRequest, game_id: str) -> Response:
        note = selectors.game_note(game_id=game_id, user=request.user)
        return Response(_note_view(note))

    @extend_schema(
        summary="Save your private notes on a game",
        description=(
            f"Replaces the caller's notes on a game they hold a seat of: up to"
            f" {GameNote.MAX_LENGTH} characters of plain text; line breaks and tabs, no other"
            " control characters (400). Saving is limited per player (429)."
        ),
        request=GameNoteInputSerializer,
        responses={200: GameNoteSerializer, 400: ERRORS[400], 404: ERRORS[404], 429: ERRORS[429]},
    )
    def put(self, request: AuthenticatedRequest, game_id: str) -> Response:
        data = validated_input(GameNoteInputSerializer, request.data)
        note = services.game_note_save(game_id=game_id, user=request.user, text=data["text"])
        return Response(_note_view(note))
