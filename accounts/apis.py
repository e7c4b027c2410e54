from typing import Any

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors, services
from accounts.http import AuthenticatedRequest
from accounts.models import ConfirmMoves, Theme
from accounts.names import player_name
from core.api.responses import error_codes_document, error_response, validated_input


class MeApi(APIView):
    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        display_name = serializers.CharField()
        confirm_moves = serializers.ChoiceField(
            choices=ConfirmMoves.choices,
            help_text=(
                "whether the board asks before sending a move: `on`, `off`, or `auto` (on touch"
                " screens only); set on the settings page"
            ),
        )
        theme = serializers.ChoiceField(
            choices=Theme.choices,
            help_text="the site's colours: `auto` (as the device), `light` or `dark`",
        )
        next_game_after_move = serializers.BooleanField(
            help_text=(
                "whether the board goes on to the player's next game after a move (a move's"
                " answer says so too: `next_game_auto`)"
            )
        )

    @extend_schema(responses=OutputSerializer)
    def get(self, request: AuthenticatedRequest) -> Response:
        # The signed-in user always comes with their profile (accounts.models.UserManager).
        data = {
            "username": request.user.get_username(),
            "display_name": request.user.profile.display_name,
            "confirm_moves": request.user.profile.confirm_moves,
            "theme": request.user.profile.theme,
            "next_game_after_move": request.user.profile.next_game_after_move,
        }
        return Response(self.OutputSerializer(data).data)


class PlayerSearchApi(APIView):
    """Players whose username or display name starts with `search`: what the new-game form
    suggests as one types the name of a player to invite."""

    class PlayerSearchInputSerializer(serializers.Serializer):
        search = serializers.CharField(
            min_length=selectors.PLAYER_SEARCH_MIN,
            max_length=selectors.PLAYER_SEARCH_MAX,
            trim_whitespace=True,
            error_messages={
                "required": _("Give the start of a name to search for: ?search=al."),
                "blank": _("Give the start of a name to search for: ?search=al."),
                # DRF fills {min_length} and {max_length} in.
                "min_length": _("Type at least {min_length} characters of the name."),
                "max_length": _("A name has at most {max_length} characters."),
            },
        )

    class PlayerFoundSerializer(serializers.Serializer):
        username = serializers.CharField(help_text="what invitations name the player by")
        display_name = serializers.CharField(
            help_text="the name shown to other players: their display name, else the username"
        )
        following = serializers.BooleanField(help_text="whether you follow the player")

    @extend_schema(
        operation_id="players_search",
        parameters=[
            OpenApiParameter(
                "search",
                {
                    "type": "string",
                    "minLength": selectors.PLAYER_SEARCH_MIN,
                    "maxLength": selectors.PLAYER_SEARCH_MAX,
                },
                required=True,
                description=(
                    f"the start of a username or display name, any letter case, "
                    f"{selectors.PLAYER_SEARCH_MIN} to {selectors.PLAYER_SEARCH_MAX} characters"
                ),
            )
        ],
        responses={
            200: PlayerFoundSerializer(many=True),
            400: error_response("`search` missing, shorter than 2 or too long"),
        },
        description=(
            f"Up to {selectors.PLAYER_SEARCH_LIMIT} active players whose username or display "
            "name starts with `search` (any letter case): the players the caller follows first,"
            " then the others, each by username; never the caller. A "
            f"`search` shorter than {selectors.PLAYER_SEARCH_MIN} characters is refused with 400 "
            "and the reason in `detail`."
        ),
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        data = validated_input(self.PlayerSearchInputSerializer, request.query_params)
        players = selectors.players_search(prefix=data["search"], exclude=request.user)
        return Response(players)


error_codes_document(
    {
        "unknown_player": "404: no player has that username",
        "no_username": "400: no username given",
        "block_self": "400: you cannot block yourself",
        "already_blocked": "409: you have blocked that player already",
        "not_blocked": "404: you have not blocked that player",
        "too_many_blocks": "409: you have blocked as many players as one may",
        "follow_self": "400: you cannot follow yourself",
        "follow_blocked": "409: you cannot follow a player while either of you blocks the other",
        "not_following": "404: you do not follow that player",
        "too_many_follows": "409: you follow as many players as one may",
    }
)


class BlockSerializer(serializers.Serializer):
    username = serializers.CharField(help_text="the blocked player's username")
    display_name = serializers.CharField(help_text="the name shown to other players")
    created_at = serializers.DateTimeField(help_text="when you blocked them")


def _block_data(block: Any) -> dict[str, Any]:
    return {
        "username": block.blocked.get_username(),
        "display_name": player_name(block.blocked),
        "created_at": block.created_at,
    }


class BlockListApi(APIView):
    """The players the caller has blocked, and blocking one more. While either of two players has
    blocked the other, neither can invite the other (a new game, a seat, a rematch), and the
    lobby shows neither the other's games."""

    class BlockInputSerializer(serializers.Serializer):
        username = serializers.CharField(min_length=1, max_length=selectors.PLAYER_SEARCH_MAX)

    @extend_schema(
        operation_id="blocks_list",
        summary="The players you blocked",
        responses={200: BlockSerializer(many=True)},
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        blocks = selectors.blocks_of(user=request.user)
        return Response([_block_data(b) for b in blocks])

    @extend_schema(
        operation_id="blocks_create",
        summary="Block a player",
        request=BlockInputSerializer,
        responses={
            201: BlockSerializer,
            400: error_response("no username, or your own"),
            404: error_response("no player has that username"),
            409: error_response("blocked already, or as many players blocked as one may"),
        },
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        data = validated_input(self.BlockInputSerializer, request.data)
        block = services.block_create(blocker=request.user, username=data["username"])
        return Response(_block_data(block), status=status.HTTP_201_CREATED)


class BlockDetailApi(APIView):
    @extend_schema(
        operation_id="blocks_delete",
        summary="Unblock a player",
        request=None,
        responses={
            204: None,
            404: error_response("you have not blocked a player of that username"),
        },
    )
    def delete(self, request: AuthenticatedRequest, username: str) -> Response:
        services.block_delete(blocker=request.user, username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)


class FollowSerializer(serializers.Serializer):
    username = serializers.CharField(help_text="the followed player's username")
    display_name = serializers.CharField(help_text="the name shown to other players")
    created_at = serializers.DateTimeField(help_text="when you followed them")


def _follow_data(follow: Any) -> dict[str, Any]:
    return {
        "username": follow.followed.get_username(),
        "display_name": player_name(follow.followed),
        "created_at": follow.created_at,
    }


class FollowingListApi(APIView):
    """The players the caller follows (one way: they are not told). The new-game form and the
    invite boxes suggest them first, and the home page shows their games waiting for players."""

    @extend_schema(
        operation_id="following_list",
        summary="The players you follow",
        responses={200: FollowSerializer(many=True)},
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        follows = selectors.following_of(user=request.user)
        return Response([_follow_data(f) for f in follows])


class FollowingDetailApi(APIView):
    @extend_schema(
        operation_id="following_create",
        summary="Follow a player",
        description=(
            "Following a player you follow already changes nothing (200). Refused for yourself,"
            " a player either of you has blocked, and past the most players one may follow."
        ),
        request=None,
        responses={
            200: OpenApiResponse(FollowSerializer, description="you followed them already"),
            201: OpenApiResponse(FollowSerializer, description="you follow them now"),
            400: error_response("your own username"),
            404: error_response("no player has that username"),
            409: error_response("one of you blocked the other, or you follow as many as one may"),
        },
    )
    def put(self, request: AuthenticatedRequest, username: str) -> Response:
        follow, created = services.follow_create(follower=request.user, username=username)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(_follow_data(follow), status=code)

    @extend_schema(
        operation_id="following_delete",
        summary="Unfollow a player",
        request=None,
        responses={204: None, 404: error_response("you do not follow a player of that username")},
    )
    def delete(self, request: AuthenticatedRequest, username: str) -> Response:
        services.follow_delete(follower=request.user, username=username)
        return Response(status=status.HTTP_204_NO_CONTENT)
