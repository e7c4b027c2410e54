"""Reads of the webhook channel: a player's webhooks and their tests, and what the page and the
API show of them."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.utils import timezone

from notifications.models import Webhook, WebhookTest
from notifications.webhooks import transport
from notifications.webhooks.errors import NoSuchWebhook

# The tests counted against WEBHOOK_TESTS_PER_HOUR, and shown: those of the last hour.
TEST_WINDOW = timedelta(hours=1)


def webhook_id_checked(value: Any) -> int:
    try:
        number = int(str(value))
    except ValueError:
        raise NoSuchWebhook() from None
    if not 0 < number < 2**63:
        raise NoSuchWebhook()
    return number


class TestStatus:
    """Where a test is (`webhook_test_shown`)."""

    WAITING = "waiting"
    SENT = "sent"
    FAILED = "failed"


def webhook_test_of(*, user_id: Any, webhook_id: Any, test_id: Any) -> WebhookTest:
    """One of the player's tests of that webhook; another's, or none, is NoSuchWebhook (404)."""
    row = WebhookTest.objects.filter(
        pk=webhook_id_checked(test_id), webhook_id=webhook_id_checked(webhook_id), user_id=user_id
    ).first()
    if row is None:
        raise NoSuchWebhook()
    return row


def latest_tests(*, user_id: Any) -> dict[int, WebhookTest]:
    """Webhook id -> the player's latest test of it in the last hour (at most
    WEBHOOK_TESTS_PER_HOUR rows read)."""
    since = timezone.now() - TEST_WINDOW
    latest: dict[int, WebhookTest] = {}
    for test in WebhookTest.objects.filter(user_id=user_id, created_at__gt=since).order_by(
        "created_at", "pk"
    ):
        if test.webhook_id is not None:
            latest[test.webhook_id] = test
    return latest


def webhook_test_shown(test: WebhookTest) -> dict[str, Any]:
    """What the page and the API show of a test: where it is, and what the webhook answered."""
    if test.answered_at is None:
        status = TestStatus.WAITING
    else:
        status = TestStatus.SENT if test.sent else TestStatus.FAILED
    return {
        "id": test.pk,
        "webhook_id": test.webhook_id,
        "status": status,
        "sent": test.sent if test.answered_at else None,
        "summary": test.answer,
        "created_at": test.created_at,
        "answered_at": test.answered_at,
    }


def webhook_of(*, user_id: Any, webhook_id: Any) -> Webhook:
    row = Webhook.objects.filter(pk=webhook_id_checked(webhook_id), user_id=user_id).first()
    if row is None:
        raise NoSuchWebhook()
    return row


def webhooks_of(*, user_id: Any) -> list[Webhook]:
    """The player's webhooks, the oldest first (at most WEBHOOKS_MAX_PER_PLAYER)."""
    return list(Webhook.objects.filter(user_id=user_id).order_by("created_at", "pk"))


def webhook_shown(row: Webhook) -> dict[str, Any]:
    """What the page and the API show of a webhook: its URL in part (the rest is a secret)."""
    return {
        "id": row.pk,
        "name": row.name,
        "style": row.style,
        "style_label": str(Webhook.Style(row.style).label),
        "url_hint": transport.url_hint(row.url),
        "enabled": row.enabled,
        "disabled_reason": row.disabled_reason,
        "consecutive_failures": row.consecutive_failures,
        "last_error": row.last_error,
        "last_failure_at": row.last_failure_at,
        "last_success_at": row.last_success_at,
        "created_at": row.created_at,
    }
