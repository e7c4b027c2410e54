"""The game API: thin DRF views that validate input, call one service or selector, and render.

Errors come from `games.errors` and are rendered by `azul_site.api.api_exception_handler` as
`{"detail": ..., "code": ...}` with the error's status.

Responses are the plain dicts that `games.selectors` builds; the output serializers describe
them for the OpenAPI schema (a test keeps the two in step) but are not run on each response:
building DRF's field tree costs more than the rest of a move submission.
"""

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import exceptions, permissions, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from azul_site.api import LimitedJSONParser, PageNumbers, validated_input
from games import exports, replays, selectors, services
from games.export_serializers import (
    GameExportSerializer,
    ImportErrorSerializer,
    StudyImportedSerializer,
)
from games.filters import HISTORY_PARAMS, RESULT_CHOICES, GameHistoryFilter
from games.models import Game
from games.serializers import (
    ErrorSerializer,
    GameCreateInputSerializer,
    GameLogSerializer,
    GameSummarySerializer,
    GameViewSerializer,
    HistoryPageSerializer,
    InvitationInputSerializer,
    LegalMovesSerializer,
    MoveInputSerializer,
    StatusFilterSerializer,
)

LEGAL_MOVES_FIELDS = ("ply", "to_move", "viewer_seat", "legal_moves")

ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="malformed or invalid input"),
    403: OpenApiResponse(ErrorSerializer, description="not your game, or not your turn"),
    404: OpenApiResponse(ErrorSerializer, description="no such game"),
    409: OpenApiResponse(ErrorSerializer, description="the game moved on or cannot do that now"),
    413: OpenApiResponse(ErrorSerializer, description="request body too large"),
}


class GameApiBase(APIView):
    parser_classes = [LimitedJSONParser]

    def game_view_response(self, request: Request, game: Game, code: int = 200) -> Response:
        """The game as `viewer` sees it; `game` comes with its seats (services and `game_get`)."""
        return Response(selectors.game_view(game=game, viewer=request.user), status=code)


def _wants_history(request: Request) -> bool:
    """`status=finished`, or any of the history's filters: the public history of finished
    games rather than the caller's own games."""
    params = request.query_params
    return params.get("status") == Game.Status.FINISHED or any(
        params.get(name) for name in HISTORY_PARAMS
    )


class HistoryOrSignedIn(permissions.BasePermission):
    """Finished games are public: anyone may read the history; everything else needs signing
    in."""

    def has_permission(self, request: Request, view: object) -> bool:
        if request.method == "GET" and _wants_history(request):
            return True
        return bool(request.user and request.user.is_authenticated)


class GameListApi(GameApiBase):
    permission_classes = [HistoryOrSignedIn]

    @extend_schema(
        summary="My games, or the history of finished games",
        operation_id="games_list",
        description=(
            "Without filters (or with `status` other than `finished`): the caller's own games,"
            " a list (sign in). With `status=finished` or any of `player`, `variant`,"
            " `players`, `result`, `finished_after`, `finished_before`: every finished game"
            " (not studies), newest first, filtered and paginated (`count`, `next`,"
            " `previous`, `results`); public, no sign-in needed. `result` is the result for"
            " `player` (won: first place alone; shared: first place shared; lost: any other"
            " place) and is ignored without `player`."
        ),
        parameters=[
            OpenApiParameter("status", enum=Game.Status.values, description="only this status"),
            OpenApiParameter("player", str, description="history: games of this username"),
            OpenApiParameter(
                "variant", enum=Game.Variant.values, description="history: only this variant"
            ),
            OpenApiParameter(
                "players", int, enum=[2, 3, 4], description="history: only this many players"
            ),
            OpenApiParameter(
                "result",
                enum=[value for value, _ in RESULT_CHOICES],
                description="history: the result for `player`",
            ),
            OpenApiParameter(
                "finished_after",
                OpenApiTypes.DATE,
                description="history: ended on or after this day (UTC)",
            ),
            OpenApiParameter(
                "finished_before",
                OpenApiTypes.DATE,
                description="history: ended on or before this day (UTC)",
            ),
            OpenApiParameter("page", int, description="history: page number, from 1"),
            OpenApiParameter("page_size", int, description="history: games per page (at most 100)"),
        ],
        responses={
            200: PolymorphicProxySerializer(
                component_name="GameListOrHistory",
                serializers=[GameSummarySerializer(many=True), HistoryPageSerializer],
                resource_type_field_name=None,
                many=False,
            ),
            400: ERRORS[400],
            401: OpenApiResponse(ErrorSerializer, description="my games: sign in"),
            404: OpenApiResponse(ErrorSerializer, description="history: no such page"),
        },
    )
    def get(self, request: Request) -> Response:
        filters = validated_input(StatusFilterSerializer, request.query_params)
        if _wants_history(request):
            return self.history(request)
        games = selectors.games_for_user(user=request.user, status=filters.get("status"))
        return Response(games["my_turn"] + games["waiting"] + games["finished"])

    def history(self, request: Request) -> Response:
        filters = GameHistoryFilter(request.query_params, queryset=selectors.finished_games())
        if not filters.is_valid():
            raise exceptions.ValidationError(filters.errors)
        paginator = PageNumbers(selectors.HISTORY_PAGE_SIZE)
        games = paginator.paginate_queryset(filters.qs, request, view=self)
        return paginator.get_paginated_response(selectors.history_rows(games))

    @extend_schema(
        summary="Create a game",
        request=GameCreateInputSerializer,
        responses={201: GameViewSerializer, 400: ERRORS[400], 413: ERRORS[413]},
    )
    def post(self, request: Request) -> Response:
        values = validated_input(GameCreateInputSerializer, request.data)
        game = services.game_create(
            creator=request.user,
            num_players=values["players"],
            variant=values["variant"],
            days_per_move=values["days_per_move"],
            seats=[
                services.SeatSpec(
                    kind=seat["kind"], username=seat.get("username"), level=seat["level"]
                )
                for seat in values["seats"]
            ],
        )
        return self.game_view_response(request, game, status.HTTP_201_CREATED)


class GameDetailApi(GameApiBase):
    @extend_schema(summary="A game", responses={200: GameViewSerializer, 404: ERRORS[404]})
    def get(self, request: Request, game_id: str) -> Response:
        return Response(selectors.game_view_cached(game_id=game_id, viewer=request.user))


class GameLegalMovesApi(GameApiBase):
    @extend_schema(
        summary="Your legal moves now",
        description="Empty unless it is your turn.",
        responses={200: LegalMovesSerializer, 404: ERRORS[404]},
    )
    def get(self, request: Request, game_id: str) -> Response:
        view = selectors.game_view_cached(game_id=game_id, viewer=request.user)
        return Response({name: view[name] for name in LEGAL_MOVES_FIELDS})


class GameLogApi(GameApiBase):
    @extend_schema(
        summary="The game's log: every deal and move",
        responses={200: GameLogSerializer, 404: ERRORS[404]},
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = selectors.game_get(game_id=game_id)
        entries = selectors.game_log(game=game)
        return Response(GameLogSerializer({"ply": game.ply, "entries": entries}).data)


class GameMovesApi(GameApiBase):
    @extend_schema(
        summary="Make a move",
        request=MoveInputSerializer,
        responses={201: GameViewSerializer, **ERRORS},
    )
    def post(self, request: Request, game_id: str) -> Response:
        data = validated_input(MoveInputSerializer, request.data)
        game = services.move_submit(
            game_id=game_id,
            user=request.user,
            move=data["move"],
            expected_ply=data["expected_ply"],
        )
        return self.game_view_response(request, game, status.HTTP_201_CREATED)


class GameJoinApi(GameApiBase):
    @extend_schema(
        summary="Take an open seat",
        request=None,
        responses={200: GameViewSerializer, 404: ERRORS[404], 409: ERRORS[409]},
    )
    def post(self, request: Request, game_id: str) -> Response:
        game = services.game_join(game_id=game_id, user=request.user)
        return self.game_view_response(request, game)


class GameInvitationApi(GameApiBase):
    @extend_schema(
        summary="Accept or decline an invitation",
        description="Declining opens the seat to anyone in the lobby; the game goes on filling.",
        request=InvitationInputSerializer,
        responses={200: GameViewSerializer, **ERRORS},
    )
    def post(self, request: Request, game_id: str) -> Response:
        data = validated_input(InvitationInputSerializer, request.data)
        game = services.invitation_respond(
            game_id=game_id, user=request.user, accept=data["accept"]
        )
        return self.game_view_response(request, game)


class GameCancelApi(GameApiBase):
    @extend_schema(
        summary="Cancel a game that has not started (creator only)",
        request=None,
        responses={200: GameViewSerializer, 403: ERRORS[403], 404: ERRORS[404], 409: ERRORS[409]},
    )
    def post(self, request: Request, game_id: str) -> Response:
        game = services.game_cancel(game_id=game_id, user=request.user)
        return self.game_view_response(request, game)


# -- export and import (games.exports) -------------------------------------------------------------


class GameExportApi(GameApiBase):
    # Finished games are public: their export too, without signing in.
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        summary="Export a game as JSON",
        description=(
            "The players, the variant, the first player, every deal and move in notation and the"
            " result: `games.engine.replay(entries, players=len(players), variant=...,"
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
        if not replays.replay_visible(game=game, viewer=request.user):
            raise exceptions.NotAuthenticated()
        return Response(exports.game_export(game=game))


class GameImportApi(GameApiBase):
    @extend_schema(
        summary="Import an exported game as a study",
        description=(
            "Creates a finished, unrated study game that can be replayed (and is in nobody's"
            " list of games). A malformed file, or one whose entries the rules refuse, is"
            " refused with 400 naming the entry at fault (`entry`, numbered from 0), and nothing"
            " is created."
        ),
        request=GameExportSerializer,
        responses={
            201: StudyImportedSerializer,
            400: OpenApiResponse(ImportErrorSerializer, description="not a whole, legal game"),
            413: ERRORS[413],
        },
    )
    def post(self, request: Request) -> Response:
        game = exports.study_import(user=request.user, data=request.data)
        return Response(exports.study_imported(game=game), status=status.HTTP_201_CREATED)
