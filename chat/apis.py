"""The chat in the API: `GET`/`POST /api/games/{id}/chat/`, muting a game's chat and reporting a
message."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import exceptions, permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.http import AuthenticatedRequest
from chat import selectors, services
from chat.errors import ChatTooFast
from core.api.parsers import LimitedJSONParser
from core.api.responses import error_response, validated_input

ERRORS = {
    400: error_response("the message is not acceptable: the detail says why"),
    403: error_response("not a player of the game, the chat is closed or suspended"),
    404: error_response("no such game or message"),
    429: error_response("too many messages or reports; `Retry-After` says when to try again"),
}


class TextOnlyField(serializers.CharField):
    """A string, as the schema says: not a number made one (DRF's CharField takes `0` as "0")."""

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """true or false, as the schema says: not 0, 1 or "yes"."""

    def to_internal_value(self, data: object) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


class ChatMessageSerializer(serializers.Serializer):
    id = serializers.IntegerField(help_text="The message's id: `before`/`after` take it.")
    author = serializers.CharField(
        source="author_name", help_text='The author\'s name ("" when hidden).'
    )
    author_username = serializers.CharField(allow_null=True)
    is_viewer = serializers.BooleanField(help_text="Written by the caller.")
    text = serializers.CharField(
        help_text="Plain text, never HTML: show it escaped ('' when hidden)."
    )
    hidden = serializers.BooleanField(help_text="Hidden by a moderator.")
    ply = serializers.IntegerField(help_text="The game's ply when it was written.")
    created_at = serializers.DateTimeField()


class ChatPageSerializer(serializers.Serializer):
    messages = ChatMessageSerializer(many=True, help_text="Oldest first.")
    has_more = serializers.BooleanField(help_text="Older messages exist: ask with `before`.")
    muted = serializers.BooleanField(help_text="The caller muted this game's chat.")
    can_write = serializers.BooleanField()


class ChatQuerySerializer(serializers.Serializer):
    before = serializers.IntegerField(min_value=1, max_value=services.MAX_ID, required=False)
    after = serializers.IntegerField(min_value=1, max_value=services.MAX_ID, required=False)


class ChatPostSerializer(serializers.Serializer):
    text = TextOnlyField(
        trim_whitespace=False,
        min_length=1,
        max_length=services.MAX_LENGTH,
        error_messages={
            "max_length": _("A message has at most {max_length} characters."),
            "blank": _("Write a message first."),
            "min_length": _("Write a message first."),
        },
        help_text=f"Plain text, 1 to {services.MAX_LENGTH} characters once stripped: no NUL,"
        " no control characters but new lines, no bidirectional overrides or isolates.",
    )


class MuteSerializer(serializers.Serializer):
    muted = StrictBooleanField()


class ReportSerializer(serializers.Serializer):
    reason = TextOnlyField(
        min_length=1,
        max_length=services.REASON_MAX_LENGTH,
        help_text=f"Why, plain text (up to {services.REASON_MAX_LENGTH} characters).",
    )


def _throttled(exc: ChatTooFast) -> exceptions.Throttled:
    return exceptions.Throttled(wait=exc.retry_after, detail=exc.message)


class GameChatApi(APIView):
    permission_classes = [permissions.IsAuthenticated]
    parser_classes = [LimitedJSONParser]

    @extend_schema(
        operation_id="game_chat",
        parameters=[
            OpenApiParameter(
                "before",
                {"type": "integer", "minimum": 1, "maximum": services.MAX_ID},
                description="messages older than this id",
            ),
            OpenApiParameter(
                "after",
                {"type": "integer", "minimum": 1, "maximum": services.MAX_ID},
                description="messages newer than this id",
            ),
        ],
        responses={200: ChatPageSerializer, **ERRORS},
        description=(
            f"The newest {selectors.PAGE_SIZE} messages of the game's chat the caller sees"
            " (muted and blocked players' left out), oldest first. For the game's players;"
            " for others only in a finished game whose players all let spectators read it."
        ),
    )
    def get(self, request: AuthenticatedRequest, game_id: str) -> Response:
        query = validated_input(ChatQuerySerializer, request.query_params)
        access = selectors.chat_access(game_id=game_id, viewer=request.user)
        page = selectors.chat_page(
            access=access, viewer=request.user, before=query.get("before"), after=query.get("after")
        )
        return Response(
            {
                "messages": ChatMessageSerializer(page.lines, many=True).data,
                "has_more": page.has_more,
                "muted": page.game_muted,
                "can_write": access.can_write,
            }
        )

    @extend_schema(
        operation_id="game_chat_post",
        request=ChatPostSerializer,
        responses={201: ChatMessageSerializer, **ERRORS},
        description=(
            "Writes a message in the game's chat (its seated players, while it is open or"
            f" active and {selectors.WRITE_DAYS_AFTER_FINISH} days after it finished). At most"
            f" {services.MESSAGE_LIMITS[0][0]} a minute and {services.MESSAGE_LIMITS[1][0]} a"
            " day per player. NUL, control characters (but new lines) and bidirectional"
            " overrides are refused."
        ),
    )
    def post(self, request: AuthenticatedRequest, game_id: str) -> Response:
        data = validated_input(ChatPostSerializer, request.data)
        try:
            message = services.message_post(game_id=game_id, user=request.user, text=data["text"])
        except ChatTooFast as exc:
            raise _throttled(exc) from None
        line = selectors.chat_line(message, request.user.pk)
        return Response(ChatMessageSerializer(line).data, status=status.HTTP_201_CREATED)


class GameChatMuteApi(APIView):
    permission_classes = [permissions.IsAuthenticated]
    parser_classes = [LimitedJSONParser]

    @extend_schema(
        operation_id="game_chat_mute",
        request=MuteSerializer,
        responses={204: None, **ERRORS},
        description="Mutes (or unmutes) the game's chat for the caller.",
    )
    def post(self, request: AuthenticatedRequest, game_id: str) -> Response:
        data = validated_input(MuteSerializer, request.data)
        services.mute_game(user=request.user, game_id=game_id, muted=data["muted"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class PlayerChatMuteApi(APIView):
    permission_classes = [permissions.IsAuthenticated]
    parser_classes = [LimitedJSONParser]

    @extend_schema(
        operation_id="chat_player_mute",
        request=MuteSerializer,
        responses={204: None, **ERRORS},
        description="Mutes (or unmutes) a player's messages for the caller, in every game.",
    )
    def post(self, request: AuthenticatedRequest, username: str) -> Response:
        data = validated_input(MuteSerializer, request.data)
        services.mute_player_named(user=request.user, username=username, muted=data["muted"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class ChatReportApi(APIView):
    permission_classes = [permissions.IsAuthenticated]
    parser_classes = [LimitedJSONParser]

    @extend_schema(
        operation_id="chat_message_report",
        request=ReportSerializer,
        responses={201: None, 409: error_response("reported already"), **ERRORS},
        description="Reports a message to the moderators (once per message).",
    )
    def post(self, request: AuthenticatedRequest, message_id: str) -> Response:
        data = validated_input(ReportSerializer, request.data)
        try:
            services.message_report(user=request.user, message_id=message_id, reason=data["reason"])
        except ChatTooFast as exc:
            raise _throttled(exc) from None
        return Response(status=status.HTTP_201_CREATED)
