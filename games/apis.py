"""The game API: thin DRF views that validate input, call one service or selector, and render.

Errors come from `games.errors` and are rendered by `core.api.api_exception_handler` as
`{"detail": ..., "code": ...}` with the error's status.

Responses are the plain dicts that `games.selectors` builds; the output serializers describe
them for the OpenAPI schema (a test keeps the two in step) but are not run on each response:
building DRF's field tree costs more than the rest of a move submission.
"""

from typing import Any

from django.utils.translation import gettext
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

from core.api import LimitedJSONParser, PageNumbers, validated_input
from games import exports, live, replays, selectors, services
from games.errors import InvalidAction
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
    LobbyPageSerializer,
    MoveInputSerializer,
    SeatInviteInputSerializer,
    StatusFilterSerializer,
)

LEGAL_MOVES_FIELDS = ("ply", "to_move", "viewer_seat", "legal_moves")

ERRORS = {
    400: OpenApiResponse(ErrorSerializer, description="malformed or invalid input"),
    403: OpenApiResponse(ErrorSerializer, description="not your game, or not your turn"),
    404: OpenApiResponse(ErrorSerializer, description="no such game"),
    409: OpenApiResponse(
        ErrorSerializer,
        description="the game moved on, or cannot do that now; `current_ply` says where it is",
    ),
    413: OpenApiResponse(ErrorSerializer, description="request body too large"),
}


class GameApiBase(APIView):
    parser_classes = [LimitedJSONParser]

    def conflict_details(self) -> dict[str, int]:
        """Every 409 about a game tells its `current_ply` (`core.api`), read now when the error
        did not carry it: the move path puts the ply on its errors itself; the rarer 409s
        (joining a full game, answering an invitation to a game that started) are told it at the
        cost of this one query."""
        game_id = self.kwargs.get("game_id")
        ply = None if game_id is None else selectors.game_ply(game_id=game_id)
        return {} if ply is None else {"current_ply": ply}

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


def _answers_now(view: dict[str, Any]) -> bool:
    """Nothing to wait for: it is the viewer's turn, or the game is over."""
    return view["viewer_can_move"] or view["status"] in (Game.Status.FINISHED, Game.Status.ABORTED)


class GameDetailApi(GameApiBase):
    """A game; with `wait_for_turn`, a long-poll (`games.live`), served by the live process in
    production (README, "Serving")."""

    @extend_schema(
        summary="A game; or wait for your turn",
        description=(
            "The game as you see it, with its version as the `ETag`. `If-None-Match` with that"
            " ETag answers 304 (no body) while the game is unchanged.\n\n"
            "`wait_for_turn=N` (seconds, 0 to 60) waits without polling: the answer comes as"
            " soon as it is your turn or the game changes (from the version named by"
            " `If-None-Match`, or else from the game as the request found it), and at once when"
            " it is your turn already, the game is over, or `If-None-Match` names an older"
            " version. After N seconds with no change it is the unchanged game (304 with"
            " `If-None-Match`). A script waits for its turn with a loop of such requests,"
            " sending the last ETag it got. A change reaches a waiting request within about a"
            " quarter of a second."
        ),
        parameters=[
            OpenApiParameter(
                "wait_for_turn",
                {"type": "number", "minimum": 0, "maximum": live.MAX_WAIT_SECONDS},
                description="seconds to wait for your turn or a change (0 to 60; 0: no wait)",
            ),
            OpenApiParameter(
                "If-None-Match",
                str,
                OpenApiParameter.HEADER,
                description="the `ETag` of the version you have",
            ),
            OpenApiParameter(
                "ETag",
                str,
                OpenApiParameter.HEADER,
                response=[200, 304],
                description="the game's version as you see it",
            ),
        ],
        responses={
            200: GameViewSerializer,
            304: OpenApiResponse(description="unchanged from the version in `If-None-Match`"),
            400: OpenApiResponse(ErrorSerializer, description="`wait_for_turn` out of range"),
            404: ERRORS[404],
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        try:
            seconds = live.wait_seconds(request.query_params.get("wait_for_turn"))
        except live.BadWait as exc:
            raise exceptions.ValidationError({"wait_for_turn": [str(exc)]}) from None
        viewer = request.user
        version = selectors.game_version(game_id=game_id, viewer=viewer)
        tag, tags = live.etag(version), live.if_none_match(request)
        view = None  # not needed for a 304
        waits = seconds and (not tags or live.matches(tags, tag))
        if waits and live.can_wait(request._request):
            view = selectors.game_view_cached(game_id=game_id, viewer=viewer, version=version)
            if not _answers_now(view) and live.wait_for_change(version, seconds):
                version = selectors.game_version(game_id=game_id, viewer=viewer)
                tag, view = live.etag(version), None
        headers = {"ETag": tag, "Cache-Control": "private, no-cache"}
        if live.matches(tags, tag):
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers=headers)
        if view is None:
            view = selectors.game_view_cached(game_id=game_id, viewer=viewer, version=version)
        return Response(view, headers=headers)


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
        description=(
            "One consistent view: `ply` is the number of `entries`, all read in one statement,"
            " so it always agrees with them, even while players move."
        ),
        responses={200: GameLogSerializer, 404: ERRORS[404]},
    )
    def get(self, request: Request, game_id: str) -> Response:
        return Response(GameLogSerializer(selectors.game_log_view(game_id=game_id)).data)


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
        description=(
            "Declining leaves the seat declined (not open to the lobby) and tells the creator,"
            " who invites someone else to it (`POST /api/games/{id}/seats/{position}/invite/`),"
            " opens it (`.../open/`) or cancels the game."
        ),
        request=InvitationInputSerializer,
        responses={200: GameViewSerializer, **ERRORS},
    )
    def post(self, request: Request, game_id: str) -> Response:
        data = validated_input(InvitationInputSerializer, request.data)
        game = services.invitation_respond(
            game_id=game_id, user=request.user, accept=data["accept"]
        )
        return self.game_view_response(request, game)


PAGE_PARAMETERS = [
    OpenApiParameter("page", int, description="page number, from 1"),
    OpenApiParameter("page_size", int, description="games per page (at most 100)"),
]
LOBBY_PAGE_SIZE = 20


def _lobby_page(request: Request, view: APIView, games: Any) -> Response:
    paginator = PageNumbers(LOBBY_PAGE_SIZE)
    page = paginator.paginate_queryset(games, request, view=view)
    return paginator.get_paginated_response(selectors.lobby_rows(page, viewer=request.user))


class LobbyApi(GameApiBase):
    # The lobby is public, as its page is: joining needs signing in.
    permission_classes = [permissions.AllowAny]

    @extend_schema(
        summary="Games waiting for players",
        operation_id="lobby_list",
        description=(
            "Games with a seat anyone may take, newest first, paginated; readable without"
            " signing in. The caller's own waiting games are listed too (`is_mine`), and games"
            " they already sit in or are invited to are not. Take a seat with"
            " `POST /api/games/{id}/join/` where `can_join`."
        ),
        parameters=PAGE_PARAMETERS,
        responses={
            200: LobbyPageSerializer,
            404: OpenApiResponse(ErrorSerializer, description="no such page"),
        },
    )
    def get(self, request: Request) -> Response:
        games = selectors.lobby_games(user=request.user, include_own=True)
        return _lobby_page(request, self, games)


class InvitationListApi(GameApiBase):
    @extend_schema(
        summary="My pending invitations",
        operation_id="invitations_list",
        description=(
            "Games the caller is invited to and has not answered yet, newest first, paginated."
            " Answer with `POST /api/invitations/{game_id}/accept/` or `.../decline/` (or"
            " `POST /api/games/{id}/invitation/` with `accept`)."
        ),
        parameters=PAGE_PARAMETERS,
        responses={
            200: LobbyPageSerializer,
            401: OpenApiResponse(ErrorSerializer, description="sign in"),
            404: OpenApiResponse(ErrorSerializer, description="no such page"),
        },
    )
    def get(self, request: Request) -> Response:
        return _lobby_page(request, self, selectors.pending_invitations(user=request.user))


class InvitationAnswerApi(GameApiBase):
    """`POST /api/invitations/{game_id}/accept/` and `.../decline/`: the invitation answer
    without a body (`GameInvitationApi` takes it as `{"accept": bool}`)."""

    accept = True

    def post(self, request: Request, game_id: str) -> Response:
        game = services.invitation_respond(game_id=game_id, user=request.user, accept=self.accept)
        return self.game_view_response(request, game)


ANSWER_RESPONSES = {200: GameViewSerializer, 404: ERRORS[404], 409: ERRORS[409]}


@extend_schema(
    summary="Accept an invitation",
    description="The game starts once every seat is filled.",
    request=None,
    responses=ANSWER_RESPONSES,
)
class InvitationAcceptApi(InvitationAnswerApi):
    accept = True


@extend_schema(summary="Decline an invitation", request=None, responses=ANSWER_RESPONSES)
class InvitationDeclineApi(InvitationAnswerApi):
    accept = False


class GameCancelApi(GameApiBase):
    @extend_schema(
        summary="Cancel a game that has not started (creator only)",
        request=None,
        responses={200: GameViewSerializer, 403: ERRORS[403], 404: ERRORS[404], 409: ERRORS[409]},
    )
    def post(self, request: Request, game_id: str) -> Response:
        game = services.game_cancel(game_id=game_id, user=request.user)
        return self.game_view_response(request, game)


def _position(value: str) -> int:
    """A seat position from the URL (from 0); a 404 in the API's JSON when it cannot be one."""
    try:
        return int(value)
    except ValueError:
        raise InvalidAction(
            gettext("There is no seat %(seat)s.") % {"seat": repr(value)}, status_code=404
        ) from None


SEAT_RESPONSES = {
    200: GameViewSerializer,
    400: ERRORS[400],
    403: OpenApiResponse(ErrorSerializer, description="only the game's creator may"),
    404: OpenApiResponse(ErrorSerializer, description="no such game or seat"),
    409: OpenApiResponse(
        ErrorSerializer,
        description=(
            "the game is not waiting for players, the seat is not declined or unanswered, or"
            " the player already has a seat"
        ),
    ),
}


class GameSeatInviteApi(GameApiBase):
    @extend_schema(
        summary="Invite someone to a seat (creator only)",
        description=(
            "For a game waiting for players: give the seat at `position` (from 0), whose"
            " invitation was declined or is not answered yet, to another player, who is invited"
            " (an unanswered invitation to it is withdrawn)."
        ),
        request=SeatInviteInputSerializer,
        responses=SEAT_RESPONSES,
    )
    def post(self, request: Request, game_id: str, position: str) -> Response:
        data = validated_input(SeatInviteInputSerializer, request.data)
        game = services.seat_invite(
            game_id=game_id,
            user=request.user,
            position=_position(position),
            username=data["username"],
        )
        return self.game_view_response(request, game)


class GameSeatOpenApi(GameApiBase):
    @extend_schema(
        summary="Open a seat to the lobby (creator only)",
        description=(
            "For a game waiting for players: the seat at `position` (from 0), whose invitation"
            " was declined or is not answered yet, becomes open: anyone may join it from the"
            " lobby."
        ),
        request=None,
        responses=SEAT_RESPONSES,
    )
    def post(self, request: Request, game_id: str, position: str) -> Response:
        game = services.seat_open(game_id=game_id, user=request.user, position=_position(position))
        return self.game_view_response(request, game)


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
    def post(self, request: Request, game_id: str) -> Response:
        game = services.game_resign(game_id=game_id, user=request.user)
        return self.game_view_response(request, game)


class GameRematchApi(GameApiBase):
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
            409: OpenApiResponse(ErrorSerializer, description="the game is not finished"),
        },
    )
    def post(self, request: Request, game_id: str) -> Response:
        game, created = services.game_rematch(game_id=game_id, user=request.user)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return self.game_view_response(request, game, code)


# -- export and import (games.exports) -------------------------------------------------------------


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
