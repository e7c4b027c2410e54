"""The push channel's own rows: the devices that get notices. Importable from
`notifications.models`, as every model of the app (Django finds them there)."""

from django.conf import settings
from django.db import models


class PushSubscription(models.Model):
    """One device (a browser) that asked for push notices (the Push API's subscription)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="push_subscriptions"
    )
    # The player's name for the device ("Phone"), shown on the settings page.
    name = models.CharField(max_length=60, blank=True)
    # The push service's URL for this device: unguessable, and a secret of the player's.
    endpoint = models.URLField(max_length=1000, unique=True)
    # The browser's keys (RFC 8291), URL-safe base64.
    p256dh = models.CharField(max_length=128)
    auth = models.CharField(max_length=48)
    created_at = models.DateTimeField(auto_now_add=True)
    last_success_at = models.DateTimeField(null=True, blank=True)

    def __str__(self) -> str:
        return f"Push subscription {self.pk} of user {self.user_id}"
