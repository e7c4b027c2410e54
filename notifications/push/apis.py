"""Push notices in the API: the player's devices (`/api/push-subscriptions/`) and which kinds go
to each channel (`/api/notification-channels/`). Thin, over `notifications.push.services`."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.throttling import BaseThrottle, ScopedRateThrottle
from rest_framework.views import APIView

from accounts.http import AuthenticatedRequest
from core.api.responses import error_codes_document, error_response, validated_input
from notifications.models import CHANNEL_CHOICES, PushSubscription
from notifications.push import errors, selectors, services, transport

error_codes_document(
    {
        "invalid_subscription": "400: the subscription or choice is not valid; the detail says why",
        "too_many_devices": f"400: already {settings.PUSH_MAX_DEVICES} devices; remove one first",
        "endpoint_taken": "409: the endpoint is another account's; subscribe the browser anew",
        "no_such_device": "404: no such device of the caller's",
    }
)

ERRORS = {
    400: error_response("not valid (the detail says why), or too many devices"),
    404: error_response("no such device of the caller's"),
}


class DeviceSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField(help_text="The player's name for the device.")
    endpoint = serializers.CharField(
        help_text="The push service's URL for the device: a secret, shown to its owner only."
    )
    created_at = serializers.DateTimeField()
    last_success_at = serializers.DateTimeField(
        allow_null=True, help_text="When a notice last reached its push service."
    )


class DevicesSerializer(serializers.Serializer):
    offered = serializers.BooleanField(help_text="Whether the site sends push notices at all.")
    public_key = serializers.CharField(
        help_text="The site's VAPID public key: `applicationServerKey` of"
        " `pushManager.subscribe` (URL-safe base64; empty when not offered)."
    )
    max_devices = serializers.IntegerField()
    devices = DeviceSerializer(many=True)


class TextField(serializers.CharField):
    """A string, as the schema says: not a number made one (DRF's CharField takes `0` as "0")."""

    def to_internal_value(self, data: object) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class KeysSerializer(serializers.Serializer):
    p256dh = TextField(max_length=128, help_text="URL-safe base64, 65 bytes: a P-256 point.")
    auth = TextField(max_length=128, help_text="URL-safe base64, 16 bytes.")


class SubscribeSerializer(serializers.Serializer):
    """What `PushSubscription.toJSON()` gives, with a name. Its form here; what it means (an
    https URL to a public host, keys of the right lengths) is checked by `services`."""

    endpoint = TextField(
        max_length=services.ENDPOINT_MAX_LENGTH, help_text="https:// URL of the push service"
    )
    keys = KeysSerializer()
    name = TextField(
        required=False,
        allow_blank=True,
        max_length=services.NAME_MAX_LENGTH,
        help_text="The player's name for the device; one line.",
    )


class RenameSerializer(serializers.Serializer):
    name = TextField(allow_blank=True, max_length=services.NAME_MAX_LENGTH)


class ChannelsSerializer(serializers.Serializer):
    push = serializers.ListField(
        child=serializers.ChoiceField(choices=CHANNEL_CHOICES),
        help_text="The kinds sent as push notices.",
    )
    webhook = serializers.ListField(
        child=serializers.ChoiceField(choices=CHANNEL_CHOICES),
        help_text="The kinds sent to the player's webhooks.",
    )


class ChannelsUpdateSerializer(serializers.Serializer):
    push = serializers.ListField(
        child=serializers.ChoiceField(choices=CHANNEL_CHOICES),
        required=False,
        max_length=len(CHANNEL_CHOICES) * 2,
        help_text="The kinds to send as push notices; omitted: unchanged.",
    )
    webhook = serializers.ListField(
        child=serializers.ChoiceField(choices=CHANNEL_CHOICES),
        required=False,
        max_length=len(CHANNEL_CHOICES) * 2,
        help_text="The kinds to send to the webhooks; omitted: unchanged.",
    )


def _device(row: PushSubscription) -> dict[str, Any]:
    return {
        "id": row.pk,
        "name": row.name,
        "endpoint": row.endpoint,
        "created_at": row.created_at,
        "last_success_at": row.last_success_at,
    }


class PushSubscriptionsApi(APIView):
    permission_classes = [permissions.IsAuthenticated]
    throttle_scope = "push_subscribe"

    def get_throttles(self) -> list[BaseThrottle]:
        # Subscribing is limited per player beyond the API's rate (devices come seldom); the
        # list is not.
        throttles = super().get_throttles()
        if self.request.method == "POST":
            throttles.append(ScopedRateThrottle())
        return throttles

    @extend_schema(
        operation_id="push_subscriptions",
        responses={200: DevicesSerializer},
        description="The caller's devices that get push notices, the oldest first, and the"
        " key to subscribe a new one with.",
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        rows = selectors.subscriptions_of(user_id=request.user.pk)
        return Response(
            {
                "offered": transport.offered(),
                "public_key": settings.WEBPUSH_VAPID_PUBLIC_KEY if transport.offered() else "",
                "max_devices": settings.PUSH_MAX_DEVICES,
                "devices": [_device(row) for row in rows],
            }
        )

    @extend_schema(
        operation_id="push_subscription_create",
        request=SubscribeSerializer,
        responses={
            201: DeviceSerializer,
            200: DeviceSerializer,
            409: error_response("the endpoint is another account's"),
            429: error_response("too many subscriptions lately; `Retry-After` says when"),
            **ERRORS,
        },
        description="Adds the browser's push subscription (what `PushSubscription.toJSON()`"
        " gives, and a name) to the caller's devices: 201. The same endpoint again updates its"
        f" keys and name: 200. At most {settings.PUSH_MAX_DEVICES} devices: past it, 400 (none"
        " is dropped to make room). The endpoint must be an https:// URL to a public host.",
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        data = validated_input(SubscribeSerializer, request.data)
        row, created = services.subscription_save(
            user_id=request.user.pk,
            endpoint=data["endpoint"],
            p256dh=data["keys"]["p256dh"],
            auth=data["keys"]["auth"],
            name=data.get("name"),
        )
        return Response(
            _device(row), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK
        )


class PushSubscriptionApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="push_subscription_rename",
        request=RenameSerializer,
        responses={200: DeviceSerializer, **ERRORS},
        description="Renames one of the caller's devices.",
    )
    def patch(self, request: AuthenticatedRequest, subscription_id: str) -> Response:
        data = validated_input(RenameSerializer, request.data)
        row = services.subscription_rename(
            user_id=request.user.pk, subscription_id=subscription_id, name=data["name"]
        )
        return Response(_device(row))

    @extend_schema(
        operation_id="push_subscription_delete",
        responses={204: None, **ERRORS},
        description="Removes one of the caller's devices: it gets no more notices.",
    )
    def delete(self, request: AuthenticatedRequest, subscription_id: str) -> Response:
        services.subscription_delete(user_id=request.user.pk, subscription_id=subscription_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class NotificationChannelsApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="notification_channels",
        responses={200: ChannelsSerializer},
        description="Which kinds of notification the caller has sent as push notices and to"
        f" their webhooks. The kinds: {', '.join(CHANNEL_CHOICES)}.",
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        return Response(selectors.all_choices(user_id=request.user.pk))

    @extend_schema(
        operation_id="notification_channels_update",
        request=ChannelsUpdateSerializer,
        responses={200: ChannelsSerializer, 400: ERRORS[400]},
        description="Sets which kinds go to each channel (a channel left out is unchanged).",
    )
    def put(self, request: AuthenticatedRequest) -> Response:
        # A key other than the channels is refused, not ignored: a misspelt channel would
        # otherwise look saved.
        if not isinstance(request.data, dict) or set(request.data) - {"push", "webhook"}:
            raise errors.DeviceError(gettext("The channels are push and webhook."))
        data = validated_input(ChannelsUpdateSerializer, request.data)
        choices = services.channels_set(user_id=request.user.pk, changes=dict(data))
        return Response(choices)
