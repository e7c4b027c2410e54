"""Ending a game early and playing it again: resigning, and asking for a rematch."""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
)
from rest_framework import status
from rest_framework.response import Response

from accounts.http import AuthenticatedRequest
from core.api.responses import ErrorSerializer
from games import services
from games.api.base import ERRORS, GameApiBase
from games.serializers import (
    GameViewSerializer,
)
from games.throttles import GameRematchThrottle, ThrottledMessages


class GameResignApi(GameApiBase):
    @extend_schema(
        summary="Resign",
        description=(
            "The caller resigns a game in progress. The greedy computer plays their seat to the"
            " end, and the result ranks them last whatever their score; the other players are"
            " told. When that leaves nothing to play for (one player left who has not resigned,"
            " or only computer players), the game is played out at once and is finished in the"
            " answer. A resigned player can make no more moves (409 `resigned`)."
        ),
        request=None,
        responses={
            200: GameViewSerializer,
            403: OpenApiResponse(ErrorSerializer, description="not a player of this game"),
            404: ERRORS[404],
            409: OpenApiResponse(
                ErrorSerializer, description="the game is not in progress, or you resigned"
            ),
        },
    )
    def post(self, request: AuthenticatedRequest, game_id: str) -> Response:
        game = services.game_resign(game_id=game_id, user=request.user)
        return self.game_view_response(request, game)


class GameRematchApi(ThrottledMessages, GameApiBase):
    player_throttles = (GameRematchThrottle,)

    @extend_schema(
        summary="Ask for a rematch",
        description=(
            "For a player of a finished game: a new game with the same settings and seats, with"
            " the caller as its creator, the other players invited and the computer seats at"
            " the same levels (201). A caller who has a rematch of this game already (their own,"
            " or another player's they are invited to) gets that one instead (200): asking twice"
            " makes one game."
        ),
        request=None,
        responses={
            200: OpenApiResponse(GameViewSerializer, description="the rematch you have"),
            201: OpenApiResponse(GameViewSerializer, description="a new rematch"),
            403: OpenApiResponse(ErrorSerializer, description="not a player of this game"),
            404: ERRORS[404],
            409: OpenApiResponse(
                ErrorSerializer,
                description="the game is not finished, or you have as many games as you may",
            ),
            429: ERRORS[429],
        },
    )
    def post(self, request: AuthenticatedRequest, game_id: str) -> Response:
        game, created = services.game_rematch(game_id=game_id, user=request.user)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return self.game_view_response(request, game, code)
