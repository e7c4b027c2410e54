"""The analysis in the API: read it, or ask for it."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.http import AuthenticatedRequest
from analysis import selectors, services
from core.api.responses import error_response
from games import selectors as game_selectors

NOT_A_PLAYER = error_response("not your game, or not your turn")
NO_SUCH_GAME = error_response("no such game")
NOT_NOW = error_response("the game moved on, or cannot do that now; `current_ply` says where it is")
TOO_SHORT = error_response("too few moves made by the players themselves to analyse")
TOO_MANY = error_response("the player has as many analyses in progress as one may have at once")


class JudgedMoveSerializer(serializers.Serializer):
    ply = serializers.IntegerField(help_text="The move's log entry number.")
    position = serializers.IntegerField()
    round = serializers.IntegerField()
    played = serializers.CharField(help_text="The move played, in notation.")
    best = serializers.CharField(
        allow_null=True, help_text="The best move the computer found (null: `by_server`)."
    )
    loss = serializers.FloatField(
        allow_null=True,
        help_text=(
            "Points of final score margin (the player's final score minus the best opponent's,"
            " as the computer expects it) the move played gave up against the best move found;"
            " never negative (null: `by_server`)."
        ),
    )
    rollouts = serializers.IntegerField(
        allow_null=True, help_text="Simulated rounds the judgement rests on (null: `by_server`)."
    )
    by_server = serializers.BooleanField(
        default=False,
        help_text=(
            "A move the server made for the player (at a timeout, or for a resigned or"
            " taken-over seat): not theirs, so not judged."
        ),
    )
    costly = serializers.BooleanField(help_text="One of the player's three costliest moves.")
    best_played = serializers.BooleanField()


class PlayerAnalysisSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    name = serializers.CharField()
    is_viewer = serializers.BooleanField()
    total_loss = serializers.FloatField(help_text="The judged moves' losses added up, in points.")
    average_loss = serializers.FloatField(
        allow_null=True,
        help_text="The judged moves' average loss, in points per move (null: no move judged).",
    )
    close_to_best = serializers.IntegerField(
        help_text="Judged moves that lost at most one point against the best move found."
    )
    close_to_best_percent = serializers.IntegerField(
        allow_null=True,
        min_value=0,
        max_value=100,
        help_text="`close_to_best` as a share of the judged moves, in percent (null: none judged).",
    )
    best_found = serializers.IntegerField(
        help_text="Judged moves that were the computer's choice, or lost nothing against it."
    )
    judged_count = serializers.IntegerField(help_text="The player's moves judged.")
    by_server_count = serializers.IntegerField(help_text="Moves the server made for the player.")
    moves = JudgedMoveSerializer(many=True)
    costliest = JudgedMoveSerializer(many=True)


class AnalysisSerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=["pending", "done", "failed"], allow_null=True, help_text="null: never asked for."
    )
    may_request = serializers.BooleanField()
    seconds_per_move = serializers.FloatField(allow_null=True)
    players = PlayerAnalysisSerializer(many=True)


class GameAnalysisApi(APIView):
    def conflict_details(self) -> dict[str, int]:
        """A 409 about the game tells its `current_ply`, as the game API's do
        (`core.api.responses`)."""
        ply = game_selectors.game_ply(game_id=self.kwargs["game_id"])
        return {} if ply is None else {"current_ply": ply}

    @extend_schema(
        summary="A finished game's analysis",
        responses={200: AnalysisSerializer, 404: NO_SUCH_GAME},
    )
    def get(self, request: AuthenticatedRequest, game_id: str) -> Response:
        game = game_selectors.game_get(game_id=game_id)
        return Response(selectors.analysis_view(game=game, viewer=request.user))

    @extend_schema(
        summary="Ask for a finished game's analysis (its players only)",
        description=(
            "Queues the analysis the first time (202); afterwards returns it as it stands (200)."
            " The computer judges each move the game's players made against the best move it"
            " finds, with a time budget per game. Fair play: a game its players made fewer"
            " than `ANALYSIS_MIN_PERSON_MOVES` moves in themselves is refused (422), and a"
            " player with `ANALYSIS_MAX_PENDING_PER_PLAYER` analyses in progress waits (429)."
        ),
        request=None,
        responses={
            200: AnalysisSerializer,
            202: OpenApiResponse(AnalysisSerializer, description="queued"),
            403: NOT_A_PLAYER,
            404: NO_SUCH_GAME,
            409: NOT_NOW,
            422: TOO_SHORT,
            429: TOO_MANY,
        },
    )
    def post(self, request: AuthenticatedRequest, game_id: str) -> Response:
        before = services.analysis_request(game_id=game_id, user=request.user)
        game = game_selectors.game_get(game_id=game_id)
        view = selectors.analysis_view(game=game, viewer=request.user)
        code = status.HTTP_200_OK if before.status == "done" else status.HTTP_202_ACCEPTED
        return Response(view, status=code)
