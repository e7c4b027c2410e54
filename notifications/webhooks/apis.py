"""Webhooks in the API: the caller's webhooks (`/api/webhooks/`), one of them
(`/api/webhooks/{id}/`), turning one back on, and sending it a test and reading its answer.
Thin, over `notifications.webhooks.services`; another player's webhook is a 404."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.urls import reverse
from drf_spectacular.utils import extend_schema
from rest_framework import permissions, serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.http import AuthenticatedRequest
from core.api.responses import error_codes_document, error_response
from notifications.models import Webhook
from notifications.webhooks import selectors, services
from notifications.webhooks.errors import TooManyTests, WebhookError

error_codes_document(
    {
        "invalid_webhook": "400: the name, address or style is not valid; the detail says why",
        "too_many_webhooks": f"400: already {settings.WEBHOOKS_MAX_PER_PLAYER} webhooks;"
        " remove one first",
        "no_such_webhook": "404: no such webhook of the caller's",
        "too_many_webhook_tests": f"429: {settings.WEBHOOK_TESTS_PER_HOUR} tests in the last"
        " hour; `retry_after` (and the Retry-After header) says when to try again",
    }
)

NOT_FOUND = {404: error_response("no such webhook of the caller's")}


class WebhookSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    # `style` is also a Field attribute (the browsable API's) in the stubs: a field here.
    style = serializers.ChoiceField(choices=Webhook.Style.choices)  # type: ignore[assignment]
    url_hint = serializers.CharField(
        help_text="The address's scheme, host and last characters: the rest is a secret."
    )
    secret = serializers.CharField(
        help_text="The key of the body's signature: X-Azul-Signature is `sha256=` and the hex"
        " HMAC-SHA256, with this key, of X-Azul-Timestamp, a full stop and the raw body."
    )
    enabled = serializers.BooleanField(
        help_text="False once it kept failing (turned off, its owner emailed)."
    )
    disabled_reason = serializers.CharField()
    consecutive_failures = serializers.IntegerField(
        help_text="Deliveries in a row that failed for good."
    )
    last_error = serializers.CharField()
    last_failure_at = serializers.DateTimeField(allow_null=True)
    last_success_at = serializers.DateTimeField(allow_null=True)
    created_at = serializers.DateTimeField()


class WebhooksSerializer(serializers.Serializer):
    max_webhooks = serializers.IntegerField()
    tests_per_hour = serializers.IntegerField()
    webhooks = WebhookSerializer(many=True)


class WebhookCreateSerializer(serializers.Serializer):
    """Validated by `services`, which says what is wrong in the caller's language."""

    name = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=services.NAME_MAX_LENGTH,
        help_text="The player's name for it (one line).",
    )
    url = serializers.CharField(
        max_length=services.URL_MAX_LENGTH,
        help_text="An https:// address to a public host (not loopback, private, link-local,"
        " multicast or reserved), with no user name or password.",
    )
    style = serializers.ChoiceField(  # type: ignore[assignment]
        choices=Webhook.Style.choices, help_text="The body's shape: discord, slack or json."
    )


class WebhookTestSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    webhook_id = serializers.IntegerField(allow_null=True)
    # Plain text rather than choices: "sent" and "failed" are in another choice set already.
    status = serializers.CharField(
        help_text="'waiting' (a worker sends it soon), then 'sent' (the webhook answered 2xx)"
        " or 'failed'."
    )
    sent = serializers.BooleanField(
        allow_null=True, help_text="The webhook answered 2xx; null while the test waits."
    )
    summary = serializers.CharField(
        help_text="What it answered, or why it failed; empty while the test waits."
    )
    created_at = serializers.DateTimeField()
    answered_at = serializers.DateTimeField(allow_null=True)


def _shown(row: Webhook) -> dict[str, Any]:
    shown = selectors.webhook_shown(row)
    shown.pop("style_label")
    return {**shown, "secret": row.secret}


def _body(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        raise WebhookError()
    return data


class WebhooksApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="webhooks",
        responses={200: WebhooksSerializer},
        description="The caller's webhooks, the oldest first.",
    )
    def get(self, request: AuthenticatedRequest) -> Response:
        rows = selectors.webhooks_of(user_id=request.user.pk)
        return Response(
            {
                "max_webhooks": settings.WEBHOOKS_MAX_PER_PLAYER,
                "tests_per_hour": settings.WEBHOOK_TESTS_PER_HOUR,
                "webhooks": [_shown(row) for row in rows],
            }
        )

    @extend_schema(
        operation_id="webhook_create",
        request=WebhookCreateSerializer,
        responses={201: WebhookSerializer, 400: error_response("not valid, or too many")},
        description="Adds a webhook (on, with a new signing secret). At most"
        f" {settings.WEBHOOKS_MAX_PER_PLAYER} per player. The address must be https:// to a"
        " public host; the address it resolves to is checked again on every call.",
    )
    def post(self, request: AuthenticatedRequest) -> Response:
        data = _body(request.data)
        row = services.webhook_create(
            user_id=request.user.pk,
            name=data.get("name"),
            url=data.get("url"),
            style=data.get("style"),
        )
        return Response(_shown(row), status=status.HTTP_201_CREATED)


class WebhookApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(operation_id="webhook", responses={200: WebhookSerializer, **NOT_FOUND})
    def get(self, request: AuthenticatedRequest, webhook_id: str) -> Response:
        row = selectors.webhook_of(user_id=request.user.pk, webhook_id=webhook_id)
        return Response(_shown(row))

    @extend_schema(
        operation_id="webhook_delete",
        responses={204: None, **NOT_FOUND},
        description="Removes the webhook: it gets no more calls.",
    )
    def delete(self, request: AuthenticatedRequest, webhook_id: str) -> Response:
        services.webhook_delete(user_id=request.user.pk, webhook_id=webhook_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookEnableApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="webhook_enable",
        request=None,
        responses={200: WebhookSerializer, **NOT_FOUND},
        description="Turns a webhook that was turned off back on, its failures counted from 0.",
    )
    def post(self, request: AuthenticatedRequest, webhook_id: str) -> Response:
        row = services.webhook_enable(user_id=request.user.pk, webhook_id=webhook_id)
        return Response(_shown(row))


class WebhookTestApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="webhook_test",
        request=None,
        responses={
            202: WebhookTestSerializer,
            429: error_response("too many tests in the last hour"),
            **NOT_FOUND,
        },
        description="Asks for a test: a test message, signed as any call, which the site sends"
        " in the background. Answers 202 at once with the test, `waiting`; its `Location`"
        " (`webhook_test_status`) says what the webhook answered, once it has. At most"
        f" {settings.WEBHOOK_TESTS_PER_HOUR} tests an hour per player.",
    )
    def post(self, request: AuthenticatedRequest, webhook_id: str) -> Response:
        try:
            test = services.webhook_test(user_id=request.user.pk, webhook_id=webhook_id)
        except TooManyTests as exc:
            return Response(
                exc.as_dict(),
                status=exc.status_code,
                headers={"Retry-After": str(exc.retry_after)},
            )
        where = reverse("webhook_api:webhook_test_status", args=[test.webhook_id, test.pk])
        return Response(
            selectors.webhook_test_shown(test),
            status=status.HTTP_202_ACCEPTED,
            headers={"Location": where},
        )


class WebhookTestStatusApi(APIView):
    permission_classes = [permissions.IsAuthenticated]

    @extend_schema(
        operation_id="webhook_test_status",
        responses={200: WebhookTestSerializer, **NOT_FOUND},
        description="One of the caller's tests of the webhook: `waiting`, or what the webhook"
        " answered. (The settings page asks for it until the answer comes.)",
    )
    def get(self, request: AuthenticatedRequest, webhook_id: str, test_id: str) -> Response:
        test = selectors.webhook_test_of(
            user_id=request.user.pk, webhook_id=webhook_id, test_id=test_id
        )
        return Response(selectors.webhook_test_shown(test))
