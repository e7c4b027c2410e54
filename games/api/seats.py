"""Taking a seat at a game waiting for players: the lobby, joining, invitations and their answers,
cancelling, and the creator giving a seat to someone else or opening it."""

from __future__ import annotations

from django.db.models import QuerySet
from django.utils.translation import gettext
from drf_spectacular.utils import (
    OpenApiResponse,
    extend_schema,
)
from rest_framework import permissions
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.http import AuthenticatedRequest
from accounts.selectors import without_invitation_emails
from core.api.responses import ErrorSerializer, PageNumbers, page_parameters, validated_input
from games import selectors, services
from games.api.base import ERRORS, GameApiBase
from games.errors import InvalidAction
from games.models import Game
from games.presenters import lists
from games.serializers import (
    ContributionInputSerializer,
    GameInvitedViewSerializer,
    GameViewSerializer,
    InvitationInputSerializer,
    LobbyPageSerializer,
    SeatInviteInputSerializer,
)
from games.throttles import GameInviteThrottle, GameJoinThrottle, ThrottledMessages


class GameJoinApi(ThrottledMessages, GameApiBase):
    player_throttles = (GameJoinThrottle,)

    @extend_schema(
        summary="Take an open seat",
        description="Optionally with your `contribution` to the game's deals.",
        request=ContributionInputSerializer,
        responses={
            200: GameViewSerializer,
            400: ERRORS[400],
            404: ERRORS[404],
            409: ERRORS[409],
            429: ERRORS[429],
        },
    )
    def post(self, request: AuthenticatedRequest, game_id: str) -> Response:
        data = validated_input(ContributionInputSerializer, request.data)
        game = services.game_join(
            game_id=game_id, user=request.user, contribution=data.get("contribution")
        )
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
    def post(self, request: AuthenticatedRequest, game_id: str) -> Response:
        data = validated_input(InvitationInputSerializer, request.data)
        game = services.invitation_respond(
            game_id=game_id,
            user=request.user,
            accept=data["accept"],
            contribution=data.get("contribution"),
        )
        return self.game_view_response(request, game)


PAGE_PARAMETERS = page_parameters("games")
LOBBY_PAGE_SIZE = 20


def _lobby_page(request: Request, view: APIView, games: QuerySet[Game]) -> Response:
    paginator = PageNumbers(LOBBY_PAGE_SIZE)
    page: list[Game] | None = paginator.paginate_queryset(games, request, view=view)
    rows = lists.lobby_rows(page, viewer=request.user)
    for row in rows:
        # Who is seated, by id: what the lobby page reads their paces by, not the API's shape.
        row.pop("seated")
    return paginator.get_paginated_response(rows)


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
            400: OpenApiResponse(ErrorSerializer, description="`page_size` not from 1 to 100"),
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
            400: OpenApiResponse(ErrorSerializer, description="`page_size` not from 1 to 100"),
            401: OpenApiResponse(ErrorSerializer, description="sign in"),
            404: OpenApiResponse(ErrorSerializer, description="no such page"),
        },
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        return _lobby_page(request, self, selectors.pending_invitations(user=request.user))


class InvitationAnswerApi(GameApiBase):
    """`POST /api/invitations/{game_id}/accept/` and `.../decline/`: the invitation answer
    without a body (`GameInvitationApi` takes it as `{"accept": bool}`)."""

    accept = True

    def post(self, request: AuthenticatedRequest, game_id: str) -> Response:
        contribution = None
        if self.accept:
            data = validated_input(ContributionInputSerializer, request.data)
            contribution = data.get("contribution")
        game = services.invitation_respond(
            game_id=game_id, user=request.user, accept=self.accept, contribution=contribution
        )
        return self.game_view_response(request, game)


ANSWER_RESPONSES = {200: GameViewSerializer, 404: ERRORS[404], 409: ERRORS[409]}


@extend_schema(
    summary="Accept an invitation",
    description=(
        "The game starts once every seat is filled. Optionally with your `contribution` to the"
        " game's deals."
    ),
    request=ContributionInputSerializer,
    responses={**ANSWER_RESPONSES, 400: ERRORS[400]},
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
    def post(self, request: AuthenticatedRequest, game_id: str) -> Response:
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
            "the game is not waiting for players, the seat is not declined or unanswered, the"
            " player already has a seat, you cannot invite them (`cannot_invite`), or they"
            " declined an invitation of yours lately (`declined_recently`, with `until`)"
        ),
    ),
}


class GameSeatInviteApi(ThrottledMessages, GameApiBase):
    player_throttles = (GameInviteThrottle,)

    @extend_schema(
        summary="Invite someone to a seat (creator only)",
        description=(
            "For a game waiting for players: give the seat at `position` (from 0), whose"
            " invitation was declined or is not answered yet, to another player, who is invited"
            " (an unanswered invitation to it is withdrawn)."
        ),
        request=SeatInviteInputSerializer,
        responses={**SEAT_RESPONSES, 200: GameInvitedViewSerializer, 429: ERRORS[429]},
    )
    def post(self, request: AuthenticatedRequest, game_id: str, position: str) -> Response:
        data = validated_input(SeatInviteInputSerializer, request.data)
        game = services.seat_invite(
            game_id=game_id,
            user=request.user,
            position=_position(position),
            username=data["username"],
        )
        response = self.game_view_response(request, game)
        seat = next(s for s in game.seat_list if s.position == _position(position))
        response.data["invitees_not_emailed"] = [
            u.get_username() for u in without_invitation_emails(users=[seat.user])
        ]
        return response


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
    def post(self, request: AuthenticatedRequest, game_id: str, position: str) -> Response:
        game = services.seat_open(game_id=game_id, user=request.user, position=_position(position))
        return self.game_view_response(request, game)
