"""What every game API view shares: the errors its schema names, the 409's `current_ply`, the
engine's refusals of a move in the caller's language, and the game as the caller sees it in an
answer."""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiResponse,
)
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.parsers import LimitedJSONParser
from core.api.responses import ErrorSerializer
from games import selectors
from games.errors import EngineRefusal
from games.models import Game
from games.presenters.engine_words import refusal_text
from games.presenters.game import game_view

ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="malformed or invalid input"),
    403: OpenApiResponse(ErrorSerializer, description="not your game, or not your turn"),
    404: OpenApiResponse(ErrorSerializer, description="no such game"),
    409: OpenApiResponse(
        ErrorSerializer,
        description="the game moved on, or cannot do that now; `current_ply` says where it is",
    ),
    413: OpenApiResponse(ErrorSerializer, description="request body too large"),
    429: OpenApiResponse(
        ErrorSerializer,
        description="too many requests of this kind: the message says which limit;"
        " `Retry-After` says when to try again",
    ),
}


class GameApiBase(APIView):
    parser_classes = [LimitedJSONParser]

    def conflict_details(self) -> dict[str, int]:
        """Every 409 about a game tells its `current_ply` (`core.api.responses`), read now when
        the error did not carry it: the move path puts the ply on its errors itself; the rarer 409s
        (joining a full game, answering an invitation to a game that started) are told it at the
        cost of this one query."""
        game_id = self.kwargs.get("game_id")
        ply = None if game_id is None else selectors.game_ply(game_id=game_id)
        return {} if ply is None else {"current_ply": ply}

    def handle_exception(self, exc: Exception) -> Response:
        """The engine's refusal of a move put in words here, at the edge (the move services
        raise it with the engine's error): the site's error body says it in the caller's
        language, as any other refusal."""
        if isinstance(exc, EngineRefusal):
            exc.message = refusal_text(exc)
        return super().handle_exception(exc)

    def game_view_response(self, request: Request, game: Game, code: int = 200) -> Response:
        """The game as `viewer` sees it; `game` comes with its seats (services and `game_get`)."""
        return Response(game_view(game=game, viewer=request.user), status=code)
