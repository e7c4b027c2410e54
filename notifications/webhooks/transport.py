"""Webhooks: the webhook channel's transport in the outbox (`notifications.outbox`): `deliver`
carries one notification to one `Webhook`; and the bodies and signature of every call (a
notification's, or a player's test).

A call is a POST through `outbound.post` (the URL is a player's, so hostile: see there) of a
body in the webhook's style, in the recipient's language:

- Discord: `{"content": ..., "allowed_mentions": {"parse": []}}`: the message, the game's (or
  the event's) link and the link that turns this kind off for webhooks; the text's Markdown
  escaped and no mention (no "@everyone" from a player's name).
- Slack: `{"text": ...}`, the same in Slack's mrkdwn (`<url|label>`, & < > escaped).
- JSON: the short message (`messages.ShortMessage.as_dict`: kind, title, body, url, game_id,
  turn_off_url) with `event_id` (the delivery's id, as a string: one id per notification and
  webhook, however often it is tried; a test's is "test-<n>") and `sent_at` (ISO 8601, UTC).

Every body is signed: `X-Azul-Timestamp: <Unix seconds>` and
`X-Azul-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>" with the webhook's secret>`;
a receiver recomputes it over the raw body and refuses an old timestamp (replays).

The answer: 2xx is sent; 429 and 5xx, and no answer (`OutboundError`), are tried again (a
`Retry-After` honoured, at most WEBHOOK_RETRY_AFTER_MAX_SECONDS); a redirect (not followed), any
other 4xx and a refused address fail at once.

Turning off: a webhook counts its deliveries that failed for good in a row (each after all its
attempts, or at once for a 4xx or a refused address), not its failed attempts: an outage of
Discord's for an hour is one failed delivery per notification, not a webhook turned off at its
first notification. At WEBHOOK_FAILURES_TO_DISABLE it is turned off (`enabled=False`,
`disabled_reason`), and in the same transaction a `webhook_disabled` notification is written to
its owner: the outbox sends that email once, with the retries and sweep every email has (the
conditional UPDATE that turns it off succeeds once, so two workers failing at once write one).
A call that goes through (a delivery or a test) sets the count back to 0.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import re
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from email.utils import parsedate_to_datetime
from functools import partial
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models import F
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from core.tasks import send
from notifications import messages, outbound
from notifications.email import content
from notifications.models import EVENT_KINDS, Channel, ChannelDelivery, Notification, Webhook
from notifications.outbox import SEND_TASK, SENT, Outcome, skipped

logger = logging.getLogger(__name__)

SIGNATURE_HEADER = "X-Azul-Signature"
TIMESTAMP_HEADER = "X-Azul-Timestamp"
# What of a failing answer's body is kept as its error (shown to the webhook's owner).
ANSWER_EXCERPT = 200
ERROR_MAX_LENGTH = 500
DISCORD_MAX_CONTENT = 2000
_DISCORD_MARKDOWN = re.compile(r"([\\*_~`|>\[\]()#:<@!-])")


@dataclass(frozen=True)
class Call:
    """What one call of a webhook gave: the channel's outcome and, if it got one, the status."""

    outcome: Outcome
    status: int | None = None

    def summary(self) -> str:
        """One sentence for the owner (the test's answer on the settings page)."""
        if self.outcome.sent:
            return _("The webhook answered %(status)s: it works.") % {"status": self.status}
        return self.outcome.error


# -- bodies --------------------------------------------------------------------------------------


def signature(secret: str, timestamp: str, body: bytes) -> str:
    """The `X-Azul-Signature` value for `body` sent at `timestamp`."""
    digest = hmac.new(secret.encode(), timestamp.encode() + b"." + body, hashlib.sha256)
    return "sha256=" + digest.hexdigest()


def _discord_escaped(text: str) -> str:
    return _DISCORD_MARKDOWN.sub(r"\\\1", " ".join(text.split()))


def _slack_escaped(text: str) -> str:
    text = " ".join(text.split())
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def body_of(
    style: str, message: messages.ShortMessage, *, event_id: str, sent_at: datetime
) -> dict[str, Any]:
    """The JSON body of a call in `style` (in the active language)."""
    if message.game_id:
        open_label = _("Open the game")
    elif message.kind in EVENT_KINDS:
        open_label = _("Open the event")
    else:
        open_label = _("Open the site")
    turn_off_label = _("Turn these off")
    if style == Webhook.Style.DISCORD:
        content = (
            f"**{_discord_escaped(message.title)}**: {_discord_escaped(message.body)}\n"
            f"{open_label}: <{message.url}>\n"
            f"{turn_off_label}: <{message.turn_off_url}>"
        )
        # No @everyone, @here, role or user mention, whatever the text says.
        return {"content": content[:DISCORD_MAX_CONTENT], "allowed_mentions": {"parse": []}}
    if style == Webhook.Style.SLACK:
        return {
            "text": f"*{_slack_escaped(message.title)}*: {_slack_escaped(message.body)}\n"
            f"<{message.url}|{_slack_escaped(open_label)}> · "
            f"<{message.turn_off_url}|{_slack_escaped(turn_off_label)}>"
        }
    return {
        **message.as_dict(),
        "event_id": event_id,
        "sent_at": sent_at.astimezone(UTC).isoformat().replace("+00:00", "Z"),
    }


def signed_request(
    webhook: Webhook, message: messages.ShortMessage, *, event_id: str
) -> tuple[bytes, dict[str, str]]:
    """The body (exact bytes, as signed) and headers of a call."""
    now = timezone.now()
    body = json.dumps(
        body_of(webhook.style, message, event_id=event_id, sent_at=now),
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()
    timestamp = str(int(now.timestamp()))
    headers = {
        "Content-Type": "application/json",
        "User-Agent": f"{settings.SITE_NAME}-Webhooks/1",
        TIMESTAMP_HEADER: timestamp,
        SIGNATURE_HEADER: signature(webhook.secret, timestamp, body),
        "X-Azul-Event": message.kind,
        "X-Azul-Event-Id": event_id,
    }
    return body, headers


# -- one call ------------------------------------------------------------------------------------


def retry_after(value: str | None) -> timedelta | None:
    """A `Retry-After` (seconds or an HTTP date) as a delay from now, at most
    WEBHOOK_RETRY_AFTER_MAX_SECONDS; None if absent or not understood."""
    if not value:
        return None
    value = value.strip()
    most = timedelta(seconds=settings.WEBHOOK_RETRY_AFTER_MAX_SECONDS)
    if value.isdigit():
        delay = timedelta(seconds=int(value[:9]))
    else:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        delay = when - timezone.now()
    return max(timedelta(0), min(delay, most))


def _excerpt(body: bytes) -> str:
    text = body[:ANSWER_EXCERPT].decode("utf-8", errors="replace")
    return " ".join("".join(c if c.isprintable() else " " for c in text).split())


def outcome_of(answer: outbound.Answer) -> Outcome:
    status = answer.status
    if 200 <= status < 300:
        return SENT
    said = _excerpt(answer.body)
    error = _("The webhook answered %(status)s.") % {"status": status}
    if said:
        error += " " + said
    if status == 429 or status >= 500:
        return Outcome(
            sent=False,
            error=error,
            retry=True,
            retry_after=retry_after(answer.headers.get("retry-after")),
        )
    if 300 <= status < 400:
        return Outcome(
            sent=False,
            error=_("The webhook answered %(status)s, a redirect: redirects are not followed.")
            % {"status": status},
        )
    return Outcome(sent=False, error=error)


def call(webhook: Webhook, message: messages.ShortMessage, *, event_id: str) -> Call:
    """POST `message` to `webhook` (signed, in its style) and judge the answer."""
    body, headers = signed_request(webhook, message, event_id=event_id)
    started = time.monotonic()
    try:
        answer = outbound.post(webhook.url, body=body, headers=headers)
    except outbound.Refused as exc:
        return Call(Outcome(sent=False, error=_("Refused: %(why)s") % {"why": exc}))
    except outbound.OutboundError as exc:
        return Call(Outcome(sent=False, error=_("No answer: %(why)s") % {"why": exc}, retry=True))
    logger.info(
        "Webhook %s answered %s in %.3f s", webhook.pk, answer.status, time.monotonic() - started
    )
    return Call(outcome_of(answer), status=answer.status)


# -- the channel ---------------------------------------------------------------------------------


def deliver(delivery: ChannelDelivery) -> Outcome:
    """Carry `delivery`'s notification to its webhook (enabled: `check`), and keep
    the webhook's count of failures (a success resets it, with the delivery's mark)."""
    webhook = delivery.webhook
    assert webhook is not None, "deliveries skips a delivery whose webhook is gone"
    notification = delivery.notification
    with translation.override(content.language_of(notification)):
        message = messages.short_message(notification, channel=Channel.WEBHOOK)
        result = call(webhook, message, event_id=str(delivery.pk))
    outcome = result.outcome
    # A success is written with the delivery's mark (`marked_sent`), nothing between.
    if not outcome.sent:
        # As the outbox judges it: this was the delivery's last attempt, or no retry helps.
        for_good = not outcome.retry or delivery.attempts >= settings.NOTIFY_MAX_ATTEMPTS
        failed(webhook.pk, outcome.error, for_good=for_good)
    return outcome


def check(delivery: ChannelDelivery) -> dict[str, Any] | None:
    """Skipped if the webhook was deleted or turned off."""
    if delivery.webhook is None or not delivery.webhook.enabled:
        return skipped("The webhook was removed or turned off.")
    return None


def marked_sent(delivery: ChannelDelivery, at: datetime) -> None:
    """The webhook answered: its failures in a row reset, with the delivery's mark."""
    if delivery.webhook_id is not None:
        Webhook.objects.filter(pk=delivery.webhook_id).update(
            consecutive_failures=0, last_success_at=at
        )


def failure_recorded(
    delivery: ChannelDelivery, outcome: Outcome, *, status: str, updated: bool
) -> None:
    """Nothing more: `deliver` noted the failure on the webhook already."""


def succeeded(webhook_id: Any) -> None:
    Webhook.objects.filter(pk=webhook_id).update(
        consecutive_failures=0, last_success_at=timezone.now()
    )


def failed(webhook_id: Any, error: str, *, for_good: bool) -> None:
    """Note a failed call; one that failed `for_good` counts toward turning the webhook off."""
    changes: dict[str, Any] = {
        "last_error": error[:ERROR_MAX_LENGTH],
        "last_failure_at": timezone.now(),
    }
    if for_good:
        changes["consecutive_failures"] = F("consecutive_failures") + 1
    with transaction.atomic():
        Webhook.objects.filter(pk=webhook_id).update(**changes)
        if for_good:
            turn_off_if_failing(webhook_id)


def turn_off_if_failing(webhook_id: Any) -> bool:
    """Turn the webhook off if it has failed WEBHOOK_FAILURES_TO_DISABLE deliveries in a row,
    and write the email to its owner in the same transaction; True if this call did. Only one
    call turns a webhook off: the UPDATE is conditional on its being on."""
    most = settings.WEBHOOK_FAILURES_TO_DISABLE
    with transaction.atomic():
        webhook = (
            Webhook.objects.select_for_update()
            .filter(pk=webhook_id, enabled=True, consecutive_failures__gte=most)
            .first()
        )
        if webhook is None:
            return False
        reason = f"{most} deliveries in a row failed. The last: {webhook.last_error}"
        webhook.enabled = False
        webhook.disabled_reason = reason[:ERROR_MAX_LENGTH]
        webhook.save(update_fields=["enabled", "disabled_reason"])
        notification = Notification.objects.create(
            recipient_id=webhook.user_id,
            kind=Notification.Kind.WEBHOOK_DISABLED,
            context={
                "webhook_id": webhook.pk,
                "name": webhook.name,
                "url_hint": url_hint(webhook.url),
                "failures": most,
                "error": webhook.last_error,
            },
            send_after=timezone.now(),
        )
        transaction.on_commit(partial(_enqueue_email, notification.pk))
    logger.warning("Webhook %s turned off after %s failed deliveries", webhook_id, most)
    return True


def _enqueue_email(notification_id: int) -> None:
    if not send(SEND_TASK, [notification_id]):
        logger.warning("Could not send notification %s's task; the sweep will.", notification_id)


def url_hint(url: str) -> str:
    """The webhook's URL as the site shows it: scheme, host and port as stored, and the path's
    last 4 characters (the rest is the secret that lets anyone post to it)."""
    from urllib.parse import urlsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return "…"
    # The host as typed, with its port (a user name or password never gets this far: refused).
    host = parts.netloc.rpartition("@")[2]
    tail = (parts.path + ("?" + parts.query if parts.query else "")).rstrip("/")
    return (
        f"{parts.scheme}://{host}/…{tail[-4:]}" if len(tail) > 4 else f"{parts.scheme}://{host}/…"
    )


def test_message() -> messages.ShortMessage:
    """A test's message (in the active language): it links to the settings page."""
    page = settings.SITE_URL + reverse("accounts:settings") + "#webhooks"
    return messages.ShortMessage(
        kind="test",
        title=settings.SITE_NAME,
        body=_("A test from %(site)s: this webhook works.") % {"site": settings.SITE_NAME},
        url=page,
        game_id=None,
        turn_off_url=page,
    )
