"""A game's record: exporting a game as JSON, and importing one as a study (`games.record`)."""

from __future__ import annotations

from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
)
from rest_framework import exceptions, permissions, status
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.http import AuthenticatedRequest
from core.api.responses import ErrorSerializer
from games import selectors
from games.api.base import ERRORS, GameApiBase
from games.record.export import game_export
from games.record.replay import replay_visible
from games.record.study_import import ImportLimitReached, study_import, study_imported
from games.serializers import (
    GameExportSerializer,
    ImportErrorSerializer,
    StudyImportedSerializer,
)


class GameExportApi(GameApiBase):
    # Finished games are public: their export too, without signing in.
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        summary="Export a game as JSON",
        description=(
            "The players, the variant, the first player, every deal and move in notation and the"
            " result: `azul.replay(entries, players=len(players), variant=...,"
            " first_player=...)` rebuilds the game. Anyone may export a finished game; a game in"
            " progress (up to now) needs signing in."
        ),
        responses={
            200: GameExportSerializer,
            401: OpenApiResponse(ErrorSerializer, description="a game in progress: sign in"),
            404: ERRORS[404],
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id=game_id)
        if not replay_visible(game=game, viewer=request.user):
            raise exceptions.NotAuthenticated()
        response = Response(game_export(game=game))
        # A file to keep (the page's "Export (JSON)" link downloads it rather than showing the
        # JSON in the tab); API clients read the body as before.
        response["Content-Disposition"] = f'attachment; filename="azul-game-{game.pk}.json"'
        return response


class GameImportApi(GameApiBase):
    @extend_schema(
        summary="Import an exported game as a study",
        description=(
            "Creates a finished, unrated study game that can be replayed (and is in nobody's"
            " list of games). A malformed file, or one whose entries the rules refuse, is"
            " refused with 400 naming the entry at fault (`entry`, numbered from 0), and nothing"
            " is created. A player name that is, or looks like, a player's of this site is"
            " refused (400 naming `players[n]`; the importer may name themselves). The study"
            " says who imported it (`imported_by`). At most `GAMES_MAX_IMPORTS_PER_DAY` imports"
            " a player in 24 hours: past it, 429 with `Retry-After`."
        ),
        request=GameExportSerializer,
        responses={
            201: StudyImportedSerializer,
            400: OpenApiResponse(ImportErrorSerializer, description="not a whole, legal game"),
            413: ERRORS[413],
            429: ERRORS[429],
        },
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        try:
            game = study_import(user=request.user, data=request.data)
        except ImportLimitReached as exc:
            raise exceptions.Throttled(exc.wait, detail=exc.message) from None
        return Response(study_imported(game=game), status=status.HTTP_201_CREATED)
