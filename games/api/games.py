"""A game and lists of games: my games and the history, creating a game, reading one (and waiting
for one's turn), its legal moves and log, and making a move."""

from __future__ import annotations

from typing import Any

from django.utils.cache import patch_cache_control
from django.utils.translation import gettext as _
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import exceptions, permissions, serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle
from rest_framework.utils.urls import replace_query_param
from rest_framework.views import APIView

from accounts.http import AuthenticatedRequest
from core.api.responses import ErrorSerializer, PageNumbers, page_parameters, validated_input
from core.api.schema import ApiSchema
from games import live, selectors, services
from games.api.base import ERRORS, GameApiBase
from games.filters import HISTORY_PARAMS, RESULT_CHOICES, GameHistoryFilter
from games.models import Game
from games.presenters import game as game_presenters
from games.presenters import lists
from games.presenters.next_game import goes_on_by_itself, next_game_after_move
from games.serializers import (
    GameCreateInputSerializer,
    GameInvitedViewSerializer,
    GameLogSerializer,
    GameSummarySerializer,
    GameViewSerializer,
    HistoryPageSerializer,
    LegalMovesSerializer,
    MoveInputSerializer,
    StatusFilterSerializer,
)
from games.throttles import GameCreateThrottle, ThrottledMessages

LEGAL_MOVES_FIELDS = ("ply", "to_move", "viewer_seat", "legal_moves")


class MyGamesPageSerializer(serializers.Serializer):
    """A page of the caller's own games: `page` from 1, `page_size` up to the most."""

    page = serializers.IntegerField(min_value=1, required=False)
    page_size = serializers.IntegerField(
        min_value=1, max_value=selectors.MY_GAMES_MAX_PAGE_SIZE, required=False
    )


def _wants_history(request: Request) -> bool:
    """`status=finished`, or any of the history's filters: the public history of finished
    games rather than the caller's own games."""
    params = request.query_params
    return params.get("status") == Game.Status.FINISHED or any(
        params.get(name) for name in HISTORY_PARAMS
    )


def or_empty(schema: dict[str, Any]) -> dict[str, Any]:
    """A history filter's values in the schema: or empty, meaning any (the history page's form
    sends its filters left at "any" so)."""
    return {"anyOf": [schema, {"type": "string", "enum": [""]}]}


class HistoryOrSignedIn(permissions.BasePermission):
    """Finished games are public: anyone may read the history; everything else needs signing
    in."""

    def has_permission(self, request: Request, view: object) -> bool:
        if request.method == "GET" and _wants_history(request):
            return True
        return bool(request.user and request.user.is_authenticated)


class HistoryOrSignedInSchema(ApiSchema):
    """The schema's word for `HistoryOrSignedIn`, which drf-spectacular cannot read: reading
    needs no sign-in (the history), creating does."""

    def get_auth(self) -> list[dict[str, Any]]:
        auths: list[dict[str, Any]] = super().get_auth()
        return [*auths, {}] if self.method == "GET" else auths


class GameListApi(ThrottledMessages, GameApiBase):
    permission_classes = [HistoryOrSignedIn]
    schema = HistoryOrSignedInSchema()
    player_throttles = (GameCreateThrottle,)

    @extend_schema(
        summary="My games, or the history of finished games",
        operation_id="games_list",
        description=(
            "Without filters (or with `status` other than `finished`): the caller's own games,"
            " a list (sign in): those where it is their turn, then the others not over, then the"
            " finished ones, newest first; paginated with `page` and `page_size` (default 50, at"
            " most 100), a `Link` header naming the `next` and `prev` pages. With"
            " `status=finished` or any of `player`, `variant`,"
            " `players`, `result`, `finished_after`, `finished_before`: every finished game"
            " (not studies), newest first, filtered and paginated (`count`, `next`,"
            " `previous`, `results`); public, no sign-in needed. `result` is the result for"
            " `player` (won: first place alone; shared: first place shared; lost: any other"
            " place) and is ignored without `player`."
        ),
        parameters=[
            OpenApiParameter("status", enum=Game.Status.values, description="only this status"),
            OpenApiParameter(
                "player",
                str,
                description="history: games of the player with this username or display name",
            ),
            OpenApiParameter(
                "variant",
                or_empty({"type": "string", "enum": Game.Variant.values}),
                description="history: only this variant",
            ),
            OpenApiParameter(
                "players",
                or_empty({"type": "integer", "enum": [2, 3, 4]}),
                description="history: only this many players",
            ),
            OpenApiParameter(
                "result",
                or_empty({"type": "string", "enum": [value for value, _ in RESULT_CHOICES]}),
                description="history: the result for `player`",
            ),
            OpenApiParameter(
                "finished_after",
                or_empty({"type": "string", "format": "date"}),
                description="history: ended on or after this day (UTC)",
            ),
            OpenApiParameter(
                "finished_before",
                or_empty({"type": "string", "format": "date"}),
                description="history: ended on or before this day (UTC)",
            ),
            *page_parameters("games"),
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
        user = request.user
        if not user.is_authenticated:  # `HistoryOrSignedIn` lets a visitor read the history only
            raise exceptions.NotAuthenticated()
        paging = validated_input(MyGamesPageSerializer, request.query_params)
        page = lists.games_page_for_user(
            user=user,
            status=filters.get("status"),
            page=paging.get("page", 1),
            page_size=paging.get("page_size", selectors.MY_GAMES_PAGE_SIZE),
        )
        if page["number"] > 1 and not page["games"]:
            raise exceptions.NotFound(_("There is no page %(page)s.") % {"page": page["number"]})
        links = [
            f'<{replace_query_param(request.build_absolute_uri(), "page", number)}>; rel="{rel}"'
            for number, rel, present in (
                (page["number"] + 1, "next", page["has_next"]),
                (page["number"] - 1, "prev", page["number"] > 1),
            )
            if present
        ]
        return Response(page["games"], headers={"Link": ", ".join(links)} if links else None)

    def history(self, request: Request) -> Response:
        filters = GameHistoryFilter(request.query_params, queryset=selectors.finished_games())
        if not filters.is_valid():
            raise exceptions.ValidationError(filters.errors)
        paginator = PageNumbers(
            selectors.HISTORY_PAGE_SIZE,
            count_key=selectors.history_count_key(filters.count_filters()),
            count_seconds=selectors.HISTORY_COUNT_SECONDS,
        )
        games: list[Game] | None = paginator.paginate_queryset(filters.qs, request, view=self)
        return paginator.get_paginated_response(lists.history_rows(games))

    @extend_schema(
        summary="Create a game",
        request=GameCreateInputSerializer,
        responses={
            201: GameInvitedViewSerializer,
            400: ERRORS[400],
            409: ERRORS[409],
            413: ERRORS[413],
            429: ERRORS[429],
        },
    )
    def post(self, request: AuthenticatedRequest) -> Response:
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
            contribution=values.get("contribution"),
        )
        response = self.game_view_response(request, game, status.HTTP_201_CREATED)
        response.data["invitees_not_emailed"] = [
            u.get_username() for u in game_presenters.invitees_not_emailed(game)
        ]
        return response


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
            429: OpenApiResponse(
                ErrorSerializer, description="you are waiting for as many games as you may"
            ),
        },
    )
    def get(self, request: AuthenticatedRequest, game_id: str) -> Response:
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
            view = game_presenters.game_view_cached(game_id=game_id, viewer=viewer, version=version)
            try:
                changed = not _answers_now(view) and live.wait_for_change(
                    version, seconds, viewer.pk
                )
            except live.TooManyWaits as exc:
                raise exceptions.Throttled(5, detail=str(exc)) from None
            if changed:
                version = selectors.game_version(game_id=game_id, viewer=viewer)
                tag, view = live.etag(version), None
        headers = {"ETag": tag, "Cache-Control": "private, no-cache"}
        if live.matches(tags, tag):
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers=headers)
        if view is None:
            view = game_presenters.game_view_cached(game_id=game_id, viewer=viewer, version=version)
        return Response(view, headers=headers)


class GameLegalMovesApi(GameApiBase):
    @extend_schema(
        summary="Your legal moves now",
        description="Empty unless it is your turn.",
        responses={200: LegalMovesSerializer, 404: ERRORS[404]},
    )
    def get(self, request: AuthenticatedRequest, game_id: str) -> Response:
        view = game_presenters.game_view_cached(game_id=game_id, viewer=request.user)
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
    def get(self, request: AuthenticatedRequest, game_id: str) -> Response:
        return Response(GameLogSerializer(game_presenters.game_log_view(game_id=game_id)).data)


class NextGameSerializer(serializers.Serializer):
    id = serializers.UUIDField()
    url = serializers.CharField(help_text="the game's page")


class MoveAnswerSerializer(GameViewSerializer):
    next_game = NextGameSerializer(
        allow_null=True,
        help_text=(
            "the game that waits for your move next (its deadline first), now that this one"
            " does not; null while this game is still yours to play or no other game waits"
        ),
    )
    next_game_auto = serializers.BooleanField(
        help_text="you asked to be taken to your next game after a move (and there is one)"
    )


class GameMovesApi(GameApiBase):
    @extend_schema(
        summary="Make a move",
        request=MoveInputSerializer,
        responses={201: MoveAnswerSerializer, **ERRORS},
    )
    def post(self, request: AuthenticatedRequest, game_id: str) -> Response:
        data = validated_input(MoveInputSerializer, request.data)
        game = services.move_submit(
            game_id=game_id,
            user=request.user,
            move=data["move"],
            expected_ply=data["expected_ply"],
        )
        response = self.game_view_response(request, game, status.HTTP_201_CREATED)
        # Where the board goes on to (static/games/board.js): `presenters.next_game`.
        onward = next_game_after_move(game=game, user=request.user)
        response.data = {
            **response.data,
            "next_game": onward,
            "next_game_auto": onward is not None and goes_on_by_itself(request.user),
        }
        return response


class GamesWaitingApi(APIView):
    """How many active games wait for the caller's move, and how many invitations for their
    answer: together the count every page's header and title show, which the pages' script
    (static/games/waiting.js) asks for now and then to keep an open tab's count true. Read from
    the cache the pages' counts are kept in (`games_waiting_count`), and throttled per player
    beyond the API's own rate (`games_waiting`)."""

    throttle_scope = "games_waiting"

    def get_throttles(self) -> list[BaseThrottle]:
        return [*super().get_throttles(), ScopedRateThrottle()]

    class GamesWaitingSerializer(serializers.Serializer):
        games_waiting = serializers.IntegerField(
            help_text="active games where it is your turn", min_value=0
        )
        invitations_waiting = serializers.IntegerField(
            help_text="invitations to a game waiting for your answer", min_value=0
        )

    @extend_schema(
        operation_id="games_waiting",
        summary="How many games wait for your move, and invitations for your answer",
        responses={200: GamesWaitingSerializer, 429: ERRORS[429]},
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        user_id = request.user.pk
        response = Response(
            {
                "games_waiting": selectors.games_waiting_count(user_id=user_id),
                "invitations_waiting": selectors.invitations_waiting_count(user_id=user_id),
            }
        )
        patch_cache_control(response, private=True, no_cache=True)
        return response
