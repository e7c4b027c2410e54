"""The ratings API: the leaderboard (public, paginated) and what a finished game did to the
ratings, thin over `ratings.selectors`."""

from django.utils.translation import gettext
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework.exceptions import NotFound
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.responses import PageNumbers, error_response, page_parameters, validated_input
from games import selectors as game_selectors
from games.errors import GameConflict
from games.models import Game
from ratings import selectors
from ratings.presenters import game_rating_view, level_row, step_row
from ratings.serializers import (
    ComputerLevelDetailSerializer,
    ComputerLevelSerializer,
    GameRatingSerializer,
    LeaderboardFilterSerializer,
    LeaderboardPageSerializer,
)


class LeaderboardApi(APIView):
    # Public, like the leaderboard page: ratings say nothing that finished games do not.
    permission_classes = [AllowAny]

    @extend_schema(
        summary="The leaderboard",
        description=(
            "Players by rating, best first, among those with enough rated games of the kind "
            "chosen (`min_games`). The rating is one per player, over all their rated games; "
            "`variant` and `players` choose which players appear and whose games and wins are "
            "counted. `me` is the signed-in player's own row, on whatever page it falls."
        ),
        parameters=[
            OpenApiParameter("variant", enum=Game.Variant.values, description="only this variant"),
            OpenApiParameter("players", int, enum=[2, 3, 4], description="only this many players"),
            OpenApiParameter(
                "computers", bool, description="also give the computer levels' ratings"
            ),
            *page_parameters("players"),
        ],
        responses={
            200: LeaderboardPageSerializer,
            400: error_response("invalid filter, or `page_size` not from 1 to 100"),
            404: error_response("no such page"),
        },
    )
    def get(self, request: Request) -> Response:
        filters = validated_input(LeaderboardFilterSerializer, request.query_params)
        kind = {"variant": filters.get("variant"), "num_players": filters.get("players")}
        paginator = PageNumbers(
            selectors.PAGE_SIZE,
            count_key=selectors.leaderboard_count_key(**kind),
            count_seconds=selectors.LEADERBOARD_COUNT_SECONDS,
        )
        records = paginator.paginate_queryset(selectors.leaderboard(**kind), request, view=self)
        assert paginator.page is not None  # set by paginate_queryset, or it raised 404
        first_rank = paginator.page.start_index()
        response = paginator.get_paginated_response(
            selectors.leaderboard_rows(records, first_rank=first_rank)
        )
        response.data["min_games"] = selectors.min_games()
        response.data["min_opponents"] = selectors.min_opponents()
        response.data["me"] = selectors.leaderboard_standing(user=request.user, **kind)
        response.data["computer_levels"] = None
        if filters.get("computers"):
            standings = selectors.level_ratings()
            places = selectors.leaderboard_level_places(standings, **kind)
            response.data["computer_levels"] = [
                {**level_row(s), "players_above": places[s.level]} for s in standings
            ]
        return response


class ComputerLevelsApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="The computer levels' ratings",
        description=(
            "Each computer level, weakest first, rated on the players' scale: fitted to the "
            "calibration arena between levels and to their games against people with an "
            'established rating (README, "Computer levels").'
        ),
        responses={200: ComputerLevelSerializer(many=True)},
    )
    def get(self, request: Request) -> Response:
        return Response([level_row(s) for s in selectors.level_ratings()])


class ComputerLevelApi(APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        summary="One computer level",
        description="Its rating, its record against people, and the calibration arena's runs "
        "against its neighbours.",
        responses={200: ComputerLevelDetailSerializer, 404: error_response("no such level")},
    )
    def get(self, request: Request, level: str) -> Response:
        standing = selectors.level_standing(level=level)
        if standing is None:
            raise NotFound(
                gettext("There is no computer level called %(level)s.") % {"level": level[:20]}
            )
        steps = [step_row(level, run) for run in selectors.level_steps(level=level)]
        return Response(
            {
                **level_row(standing),
                "calibration": [
                    {
                        key: step[key]
                        for key in ("opponent", "games", "win_rate", "low", "high", "command")
                    }
                    for step in steps
                ],
            }
        )


class GameRatingApi(APIView):
    # Public, like a finished game's page and export.
    permission_classes = [AllowAny]

    @extend_schema(
        summary="What a finished game did to the ratings",
        description=(
            "Whether the game is rated; if not, why (`reason`, a stable code, and `reason_text`,"
            " the sentence the game's page shows); and each seat's rating before and after it"
            " (null when the game is not rated). A game is rated, or not, when it ends: a game"
            " not over yet answers 409 (`game_not_finished`)."
        ),
        responses={
            200: GameRatingSerializer,
            404: error_response("no such game"),
            409: error_response("the game is not over (`game_not_finished`)"),
        },
    )
    def get(self, request: Request, game_id: str) -> Response:
        game = game_selectors.game_get(game_id=game_id)
        if game.status != Game.Status.FINISHED:
            raise GameConflict(
                gettext("This game is not over yet: it is rated, or not, when it ends."),
                code="game_not_finished",
                current_ply=game.ply,
            )
        return Response(game_rating_view(selectors.game_rating(game=game)))
