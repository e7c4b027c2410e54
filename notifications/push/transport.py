"""Web Push (RFC 8030, 8291, 8292): the push channel's transport in the outbox
(`notifications.outbox`): `deliver` carries one notice to one device (`PushSubscription`).

The payload is the short message (`messages.short_message`) and the badge, as JSON, encrypted
for the device alone (aes128gcm, with the browser's keys: the push service cannot read it), and
sent to the device's push service with the site's VAPID signature, through `outbound.post`: the
endpoint is a URL a browser gave us, so it gets the same address guard as a webhook's.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from datetime import datetime, timedelta
from email.utils import parsedate_to_datetime
from functools import cache
from typing import Any
from urllib.parse import urlsplit

import http_ece
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.utils import timezone, translation
from django.utils.translation import gettext
from py_vapid import Vapid, VapidException

from games.selectors import games_waiting_count
from notifications import messages, outbound
from notifications.email import content
from notifications.models import Channel, ChannelDelivery, Notification, PushSubscription
from notifications.outbox import SENT, Outcome, skipped
from notifications.push import services

# How long a push service keeps a notice for a device that is offline: after a day a "your
# turn" is stale (the email or the next notice says it better).
TTL_SECONDS = 24 * 60 * 60
# The kinds that ask the player to act now: delivered at once even to a phone saving power.
URGENT_KINDS = {Notification.Kind.YOUR_TURN, Notification.Kind.TIMEOUT}
# A VAPID token lives at most 24 hours (RFC 8292, 2); made anew for each notice, half a day is
# plenty and leaves room for a clock that is off.
VAPID_TOKEN_SECONDS = 12 * 60 * 60
# A Retry-After longer than this is taken as this: the backoff goes on regardless.
RETRY_AFTER_MAX = timedelta(hours=1)


def offered() -> bool:
    """Whether the site sends push notices: its VAPID keys and contact are set."""
    return bool(
        settings.WEBPUSH_VAPID_PUBLIC_KEY
        and settings.WEBPUSH_VAPID_PRIVATE_KEY
        and settings.WEBPUSH_VAPID_SUBJECT
    )


@cache
def _vapid(private_key: str) -> Vapid:
    return Vapid.from_string(private_key=private_key)


def payload(delivery: ChannelDelivery) -> dict[str, Any]:
    """What the device's service worker receives (the contract of issue #35): the short message
    in the recipient's language, and the number of games waiting for their move."""
    notification = delivery.notification
    message = messages.short_message(notification, channel=Channel.PUSH).as_dict()
    with translation.override(content.language_of(notification)):
        # The notice's one action (the service worker's "turn_off"), in the recipient's words.
        turn_off_title = gettext("Turn off")
    return {
        **message,
        "turn_off_title": turn_off_title,
        "badge": games_waiting_count(user_id=notification.recipient_id),
    }


def vapid_headers(endpoint: str) -> dict[str, str]:
    """The Authorization header of RFC 8292: a JWT (ES256) for the push service's origin, with
    the site's public key."""
    parts = urlsplit(endpoint)
    claims = {
        "aud": f"{parts.scheme}://{parts.netloc}",
        "exp": int(time.time()) + VAPID_TOKEN_SECONDS,
        "sub": settings.WEBPUSH_VAPID_SUBJECT,
    }
    signed: dict[str, str] = _vapid(settings.WEBPUSH_VAPID_PRIVATE_KEY).sign(claims)
    return {"authorization": signed["Authorization"]}


def request_parts(
    subscription: PushSubscription, body: dict[str, Any], *, kind: str, topic: str | None
) -> tuple[bytes, dict[str, str]]:
    """The encrypted body and the headers of one push message to `subscription`."""
    data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
    headers = {
        "content-type": "application/octet-stream",
        "content-encoding": "aes128gcm",
        "ttl": str(TTL_SECONDS),
        "urgency": "high" if kind in URGENT_KINDS else "normal",
        **vapid_headers(subscription.endpoint),
    }
    if topic:
        # A newer notice about the same game replaces one the device has not fetched yet.
        headers["topic"] = topic_of(topic)
    return encrypted(data, subscription), headers


def encrypted(data: bytes, subscription: PushSubscription) -> bytes:
    """`data` for the device alone (RFC 8291): aes128gcm (RFC 8188), keyed by ECDH between a key
    pair made for this message (its public key in the header, as the key id) and the device's
    `p256dh`, with its `auth` secret; the salt is random."""
    return http_ece.encrypt(
        data,
        private_key=ec.generate_private_key(ec.SECP256R1()),
        dh=services.b64_decoded(subscription.p256dh),
        auth_secret=services.b64_decoded(subscription.auth),
        version="aes128gcm",
    )


def topic_of(game_id: str) -> str:
    """RFC 8030's Topic: at most 32 characters of the URL-safe base64 alphabet. A game id (a
    UUID) has 32 hex digits once its dashes are dropped."""
    topic = game_id.replace("-", "")
    if len(topic) > 32 or not all(c.isalnum() or c in "-_" for c in topic):
        # Not a UUID: a digest of it, in the alphabet and length allowed.
        digest = hashlib.sha256(game_id.encode()).digest()[:24]
        topic = base64.urlsafe_b64encode(digest).decode().rstrip("=")
    return topic


def deliver(delivery: ChannelDelivery) -> Outcome:
    """Send one notice to one device: sent on 201/202, the device dropped on 404/410, tried again
    on 429, 5xx or a network failure (after Retry-After if given), failed on any other answer."""
    if not offered():
        return Outcome(sent=False, error="Web Push is not configured (no VAPID keys).")
    subscription = delivery.push_subscription
    if subscription is None:
        return Outcome(sent=False, error="The device was removed.")
    body = payload(delivery)
    try:
        encrypted_body, headers = request_parts(
            subscription, body, kind=delivery.notification.kind, topic=body["game_id"]
        )
    except (VapidException, http_ece.ECEException, ValueError) as exc:
        # The site's keys or contact are not valid (or, never accepted by the API, the
        # device's): trying again changes nothing.
        return Outcome(sent=False, error=f"Web Push is misconfigured: {exc}")
    try:
        answer = outbound.post(subscription.endpoint, body=encrypted_body, headers=headers)
    except outbound.Refused as exc:
        # The endpoint's address is not one the site calls: it never will be.
        return Outcome(sent=False, error=f"Refused: {exc}", gone=True)
    except outbound.OutboundError as exc:
        return Outcome(sent=False, error=f"Push service unreachable: {exc}", retry=True)
    status = answer.status
    if status in (201, 202):
        return SENT  # (the device's last success is written with the mark: `marked_sent`)
    error = f"Push service answered {status}"
    if status in (404, 410):
        return Outcome(sent=False, error=error, gone=True)
    if status == 429 or status >= 500:
        return Outcome(
            sent=False, error=error, retry=True, retry_after=retry_after_of(answer.headers)
        )
    return Outcome(sent=False, error=error)


def retry_after_of(headers: dict[str, str]) -> timedelta | None:
    """The Retry-After header (seconds or an HTTP date) as a delay, None when absent or
    unreadable; at most RETRY_AFTER_MAX."""
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    delay: timedelta | None
    if value.isdigit():
        delay = timedelta(seconds=int(value))
    else:
        try:
            delay = parsedate_to_datetime(value) - timezone.now()
        except (TypeError, ValueError, IndexError, OverflowError):
            return None
    return max(timedelta(0), min(delay, RETRY_AFTER_MAX))


# -- the outbox's hooks --------------------------------------------------------------------------


def check(delivery: ChannelDelivery) -> dict[str, Any] | None:
    """Skipped if the device is gone (unsubscribed, or dropped after a 404 or 410)."""
    return skipped("The device was removed.") if delivery.push_subscription is None else None


def marked_sent(delivery: ChannelDelivery, at: datetime) -> None:
    """The device answered: its last success, written with the delivery's mark."""
    if delivery.push_subscription_id is not None:
        PushSubscription.objects.filter(pk=delivery.push_subscription_id).update(last_success_at=at)


def failure_recorded(
    delivery: ChannelDelivery, outcome: Outcome, *, status: str, updated: bool
) -> None:
    """A device that is gone for good (its push service said 404 or 410) is dropped."""
    if outcome.gone and delivery.push_subscription_id is not None:
        PushSubscription.objects.filter(pk=delivery.push_subscription_id).delete()
