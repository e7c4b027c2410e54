from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts import selectors
from accounts.http import AuthenticatedRequest
from core.api import error_response, validated_input


class MeApi(APIView):
    class OutputSerializer(serializers.Serializer):
        username = serializers.CharField()
        display_name = serializers.CharField()

    @extend_schema(responses=OutputSerializer)
    def get(self, request: AuthenticatedRequest) -> Response:
        # The signed-in user always comes with their profile (accounts.models.UserManager).
        data = {
            "username": request.user.get_username(),
            "display_name": request.user.profile.display_name,
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

    @extend_schema(
        operation_id="players_search",
        parameters=[
            OpenApiParameter(
                "search",
                str,
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
            "name starts with `search` (any letter case), by username; never the caller. A "
            f"`search` shorter than {selectors.PLAYER_SEARCH_MIN} characters is refused with 400 "
            "and the reason in `detail`."
        ),
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        data = validated_input(self.PlayerSearchInputSerializer, request.query_params)
        players = selectors.players_search(prefix=data["search"], exclude=request.user)
        return Response(players)
