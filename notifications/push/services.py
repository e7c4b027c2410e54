"""A player's devices that get push notices (`PushSubscription`), and their choices per channel:
the writes behind the settings page and the API (the reads: `push.selectors`).

An endpoint is a secret of the browser's, unique over the site: a player who posts one that is
another account's gets a 409 and nothing changes (so a hostile account that learnt a device's
endpoint can neither take the device's notices over nor stop them); the page's script then asks
the browser for a new subscription, which is how a shared device changes hands.
"""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.utils.translation import gettext as _

from notifications import outbound
from notifications import services as notification_services
from notifications.models import CHANNEL_CHOICES, PushSubscription
from notifications.push import transport
from notifications.push.errors import DeviceError, EndpointTaken, NoSuchDevice, TooManyDevices
from notifications.push.selectors import (
    CHOICE_CHANNELS,
    all_choices,
    subscription_id_checked,
    subscription_of,
)

NAME_MAX_LENGTH = 60
_B64_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=")
ENDPOINT_MAX_LENGTH = 1000


@dataclass(frozen=True)
class Keys:
    p256dh: str
    auth: str


def b64_decoded(value: str) -> bytes:
    """URL-safe base64, padded or not (as browsers give keys); ValueError when it is not."""
    if not isinstance(value, str) or not value or len(value) > 128:
        raise ValueError("not a short string")
    if any(
        c not in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_=" for c in value
    ):
        raise ValueError("not URL-safe base64")
    stripped = value.rstrip("=")
    try:
        return base64.urlsafe_b64decode(stripped + "=" * (-len(stripped) % 4))
    except (binascii.Error, ValueError) as exc:
        raise ValueError("not URL-safe base64") from exc


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def keys_checked(p256dh: Any, auth: Any) -> Keys:
    """The browser's keys (RFC 8291), each URL-safe base64: `p256dh` an uncompressed P-256
    point (65 bytes), `auth` a 16-byte secret. Stored without padding."""
    try:
        point = b64_decoded(p256dh)
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), point)
        if len(point) != 65:
            raise ValueError("not an uncompressed point")
    except ValueError:
        raise DeviceError(
            _("keys.p256dh must be a P-256 public key (65 bytes, URL-safe base64).")
        ) from None
    try:
        secret = b64_decoded(auth)
    except ValueError:
        secret = b""
    if len(secret) != 16:
        raise DeviceError(_("keys.auth must be 16 bytes, URL-safe base64."))
    return Keys(p256dh=_b64(point), auth=_b64(secret))


def endpoint_checked(endpoint: Any) -> str:
    """A push service's URL: HTTPS (unless the site allows HTTP for tests), to a host the site
    may call (`outbound.url_check`; the address is checked again on every call)."""
    if not isinstance(endpoint, str) or not endpoint or len(endpoint) > ENDPOINT_MAX_LENGTH:
        raise DeviceError(
            _("endpoint must be a URL of at most %(max)s characters.")
            % {"max": ENDPOINT_MAX_LENGTH}
        )
    try:
        outbound.url_check(endpoint)
    except outbound.Refused as exc:
        raise DeviceError(_("This push endpoint is not accepted: %(why)s") % {"why": exc}) from None
    return endpoint


def name_checked(name: Any) -> str:
    if name is None:
        return ""
    if not isinstance(name, str) or len(name) > NAME_MAX_LENGTH:
        raise DeviceError(
            _("A device's name has at most %(max)s characters.") % {"max": NAME_MAX_LENGTH}
        )
    # One line of plain text: control characters (NUL among them) would only garble the page.
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise DeviceError(_("A device's name is one line of text."))
    return name.strip()


# -- writes --------------------------------------------------------------------------------------


def subscription_save(
    *, user_id: Any, endpoint: Any, p256dh: Any, auth: Any, name: Any = None
) -> tuple[PushSubscription, bool]:
    """Store the device's subscription for the player: (the row, whether it is new). The same
    endpoint again updates its keys (and its name, if one is given). At most PUSH_MAX_DEVICES
    per player: past it a DeviceError, nothing dropped."""
    if not transport.offered():
        raise DeviceError(_("This site does not send notices to devices."))
    endpoint = endpoint_checked(endpoint)
    keys = keys_checked(p256dh, auth)
    name = name_checked(name)
    with transaction.atomic():
        # The player's row, locked: two devices added at once count each other.
        list(
            get_user_model()
            .objects.select_for_update(of=("self",))
            .filter(pk=user_id)
            .values_list("pk", flat=True)
        )
        existing = PushSubscription.objects.select_for_update().filter(endpoint=endpoint).first()
        if existing is not None:
            if existing.user_id != user_id:
                raise EndpointTaken()
            existing.p256dh, existing.auth = keys.p256dh, keys.auth
            if name:
                existing.name = name
            existing.save(update_fields=["p256dh", "auth", "name"])
            return existing, False
        most = settings.PUSH_MAX_DEVICES
        if PushSubscription.objects.filter(user_id=user_id).count() >= most:
            raise TooManyDevices(
                _(
                    "You already get notices on %(most)s devices, the most there can be. Remove"
                    " one on the settings page first."
                )
                % {"most": most}
            )
        row = PushSubscription.objects.create(
            user_id=user_id, endpoint=endpoint, p256dh=keys.p256dh, auth=keys.auth, name=name
        )
        return row, True


def subscription_rename(*, user_id: Any, subscription_id: Any, name: Any) -> PushSubscription:
    name = name_checked(name)
    row = subscription_of(user_id=user_id, subscription_id=subscription_id)
    row.name = name
    row.save(update_fields=["name"])
    return row


def subscription_delete(*, user_id: Any, subscription_id: Any) -> None:
    """Forget one of the player's devices (its pending notices are skipped: their target is
    gone). Another player's device is "no such device"."""
    deleted, _rows = PushSubscription.objects.filter(
        pk=subscription_id_checked(subscription_id), user_id=user_id
    ).delete()
    if not deleted:
        raise NoSuchDevice()


def channels_set(*, user_id: Any, changes: Any) -> dict[str, list[str]]:
    """Store which kinds go to each channel named in `changes` ({"push": [...], "webhook":
    [...]}, CHANNEL_CHOICES names); all or nothing. Returns every channel's choices."""
    if not isinstance(changes, dict) or any(c not in CHOICE_CHANNELS for c in changes):
        raise DeviceError(_("The channels are push and webhook."))
    kept = {}
    for channel, choices in changes.items():
        if not isinstance(choices, list | tuple) or any(c not in CHANNEL_CHOICES for c in choices):
            raise DeviceError(
                _("Choices are among: %(names)s.") % {"names": ", ".join(CHANNEL_CHOICES)}
            )
        kept[channel] = sorted(set(choices))
    with transaction.atomic():
        for channel, choices in kept.items():
            notification_services.channel_choices_set(
                user_id=user_id, channel=channel, choices=choices
            )
    return all_choices(user_id=user_id)
