"""`manage.py vapid_keys`: a new VAPID key pair for Web Push (notifications/push.py), printed as
the environment lines that set it. Nothing is stored: the operator keeps the lines with the
site's other secrets. Changing the pair later makes every device subscribe again."""

import base64
from typing import Any

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from django.conf import settings
from django.core.management.base import BaseCommand


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def key_pair() -> tuple[str, str]:
    """(public, private): a P-256 pair as URL-safe base64, the public key uncompressed (65
    bytes, what `pushManager.subscribe` takes) and the private key's 32 bytes."""
    private = ec.generate_private_key(ec.SECP256R1())
    public = private.public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
    )
    return _b64(public), _b64(private.private_numbers().private_value.to_bytes(32, "big"))


class Command(BaseCommand):
    help = "Print a new VAPID key pair for Web Push, as environment lines."

    def handle(self, *args: Any, **options: Any) -> None:
        public, private = key_pair()
        subject = settings.WEBPUSH_VAPID_SUBJECT or f"mailto:{settings.CONTACT_EMAIL}"
        self.stdout.write(f"WEBPUSH_VAPID_PUBLIC_KEY={public}")
        self.stdout.write(f"WEBPUSH_VAPID_PRIVATE_KEY={private}")
        self.stdout.write(f"WEBPUSH_VAPID_SUBJECT={subject}")
