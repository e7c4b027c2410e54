"""A player's webhooks: the writes behind the settings page and the API (the reads:
`webhooks.selectors`) (add, remove,
turn back on, send a test), with their limits: WEBHOOKS_MAX_PER_PLAYER webhooks, and
WEBHOOK_TESTS_PER_HOUR tests, counted in the database per player (`WebhookTest`), so that one
account's tests never spend another's and the limit holds with the cache down. A test is sent
by a worker (`webhook_test_send`, the task `send_webhook_test`), and its answer kept on it.

Another player's webhook is "no such webhook" (404), whatever is asked of it.
"""

from __future__ import annotations

import secrets
from datetime import datetime, timedelta
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from core.tasks import send, send_on_commit
from notifications import outbound
from notifications.email.content import recipient_language
from notifications.models import Webhook, WebhookTest
from notifications.webhooks import transport
from notifications.webhooks.errors import NoSuchWebhook, TooManyTests, TooManyWebhooks, WebhookError
from notifications.webhooks.selectors import TEST_WINDOW, webhook_id_checked, webhook_of

NAME_MAX_LENGTH = 60
URL_MAX_LENGTH = 500
TEST_TASK = "notifications.tasks.send_webhook_test"
# A test still waiting this long after it was asked for lost its task: the sweep sends it.
TEST_LOST_AFTER = timedelta(minutes=1)
LOST_TESTS_BATCH = 500


# -- input ---------------------------------------------------------------------------------------


def _one_line(value: Any, *, most: int, too_long: str, not_text: str, field: str) -> str:
    if not isinstance(value, str):
        raise WebhookError(not_text, field=field)
    if len(value) > most:
        raise WebhookError(too_long, field=field)
    # NUL and other control characters would only garble the page (and NUL the database).
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise WebhookError(not_text, field=field)
    return value.strip()


def name_checked(name: Any) -> str:
    if name is None:
        return ""
    return _one_line(
        name,
        most=NAME_MAX_LENGTH,
        too_long=_("A webhook's name has at most %(max)s characters.") % {"max": NAME_MAX_LENGTH},
        not_text=_("A webhook's name is one line of text."),
        field="name",
    )


def url_checked(url: Any) -> str:
    """An https:// URL to a public host (`outbound.url_check`; its addresses are checked again
    on every call)."""
    if not isinstance(url, str) or not url.strip():
        raise WebhookError(_("Enter the webhook's address (https://...)."), field="url")
    if len(url) > URL_MAX_LENGTH:
        raise WebhookError(
            _("A webhook's address has at most %(max)s characters.") % {"max": URL_MAX_LENGTH},
            field="url",
        )
    url = url.strip()
    try:
        outbound.url_check(url)
    except outbound.Refused as exc:
        raise WebhookError(str(exc), field="url") from None
    return url


def style_checked(style: Any) -> str:
    if style not in Webhook.Style.values:
        raise WebhookError(
            _("The style is one of: %(styles)s.") % {"styles": ", ".join(Webhook.Style.values)},
            field="style",
        )
    return str(style)


def _lock_player(user_id: Any) -> None:
    """The player's row, locked till the end of the transaction: what two requests at once
    count (webhooks, tests) each sees the other's."""
    get_user_model().objects.select_for_update().filter(pk=user_id).values_list("pk").first()


# -- writes --------------------------------------------------------------------------------------


def webhook_create(*, user_id: Any, name: Any, url: Any, style: Any) -> Webhook:
    """A new webhook of the player's, on, with a new signing secret. At most
    WEBHOOKS_MAX_PER_PLAYER: past it a WebhookError, nothing added."""
    name = name_checked(name)
    url = url_checked(url)
    style = style_checked(style)
    with transaction.atomic():
        _lock_player(user_id)
        most = settings.WEBHOOKS_MAX_PER_PLAYER
        if Webhook.objects.filter(user_id=user_id).count() >= most:
            raise TooManyWebhooks(
                _("You have %(most)s webhooks already, the most there can be. Remove one first.")
                % {"most": most}
            )
        return Webhook.objects.create(
            user_id=user_id, name=name, url=url, style=style, secret=secrets.token_urlsafe(32)
        )


def webhook_delete(*, user_id: Any, webhook_id: Any) -> None:
    """Remove one of the player's webhooks: what was pending for it is skipped (its target is
    gone)."""
    deleted, _rows = Webhook.objects.filter(
        pk=webhook_id_checked(webhook_id), user_id=user_id
    ).delete()
    if not deleted:
        raise NoSuchWebhook()


def webhook_enable(*, user_id: Any, webhook_id: Any) -> Webhook:
    """Turn a webhook that was turned off back on, its count of failures from 0."""
    row = webhook_of(user_id=user_id, webhook_id=webhook_id)
    Webhook.objects.filter(pk=row.pk).update(
        enabled=True, consecutive_failures=0, disabled_reason=""
    )
    row.refresh_from_db()
    return row


def webhook_test(*, user_id: Any, webhook_id: Any) -> WebhookTest:
    """Ask for a test of the webhook: a test message, signed as any call, which a worker sends
    (`webhook_test_send`) once this commits, so that no request waits on another site's answer.
    Returns the test, waiting for its answer (`webhook_test_shown` says what it got). At most
    WEBHOOK_TESTS_PER_HOUR per player, counted as they are asked for: past it TooManyTests
    (429), nothing sent."""
    webhook = webhook_of(user_id=user_id, webhook_id=webhook_id)
    now = timezone.now()
    with transaction.atomic():
        _lock_player(user_id)
        recent = list(
            WebhookTest.objects.filter(user_id=user_id, created_at__gt=now - TEST_WINDOW)
            .order_by("created_at")
            .values_list("created_at", flat=True)
        )
        most = settings.WEBHOOK_TESTS_PER_HOUR
        if len(recent) >= most:
            wait = int((recent[-most] + TEST_WINDOW - now).total_seconds()) + 1
            raise TooManyTests(
                _(
                    "You sent %(most)s tests in the last hour, the most there can be. Try again"
                    " in %(minutes)s minutes."
                )
                % {"most": most, "minutes": max(1, (wait + 59) // 60)},
                retry_after=max(1, wait),
            )
        test = WebhookTest.objects.create(user_id=user_id, webhook=webhook)
        send_on_commit(TEST_TASK, test.pk)
    return test


def webhook_test_send(*, test_id: int) -> None:
    """The worker's half of a test: call the webhook with the test message (through the guard,
    as any call) and keep what it answered on the test, in its owner's language. Once: a test
    already answered, or being sent by another run of the task (its row locked), is left alone;
    a run that fails before the answer is kept (a database that went away) leaves the test
    waiting, for the task's retry. A test that goes through sets the webhook's count of
    failures back to 0; one that fails does not count toward turning it off, and works on a
    webhook that is off (to see it works again)."""
    with transaction.atomic():
        test = (
            WebhookTest.objects.select_for_update(skip_locked=True, of=("self",))
            .select_related("webhook", "user__profile")
            .filter(pk=test_id, answered_at__isnull=True)
            .first()
        )
        if test is None:
            return
        with translation.override(recipient_language(test.user)):
            if test.webhook is None:
                sent, summary = False, _("The webhook was removed before the test was sent.")
            else:
                result = transport.call(
                    test.webhook, transport.test_message(), event_id=f"test-{test.pk}"
                )
                sent, summary = result.outcome.sent, result.summary()
                if sent:
                    transport.succeeded(test.webhook.pk)
                else:
                    transport.failed(test.webhook.pk, result.outcome.error, for_good=False)
        WebhookTest.objects.filter(pk=test.pk).update(
            sent=sent, answer=summary, answered_at=timezone.now()
        )


# -- reads ---------------------------------------------------------------------------------------


def lost_tests_send(now: datetime) -> int:
    """Send again the tests still waiting a minute after they were asked for, within the hour
    (their task was lost: a broker that was down); how many. A test is sent once whatever
    the number of its tasks (`webhook_test_send`)."""
    waiting = WebhookTest.objects.filter(
        answered_at__isnull=True,
        created_at__lte=now - TEST_LOST_AFTER,
        created_at__gt=now - TEST_WINDOW,
    ).values_list("pk", flat=True)[:LOST_TESTS_BATCH]
    ids = list(waiting)
    for test_id in ids:
        send(TEST_TASK, [test_id])
    return len(ids)
