"""The webhook channel's own rows: the players' webhooks and their tests. Importable from
`notifications.models`, as every model of the app (Django finds them there)."""

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_lazy as _


class Webhook(models.Model):
    """A URL the site calls (a POST) for a player's notifications: Discord, Slack, or any URL
    with a signed JSON body."""

    class Style(models.TextChoices):
        DISCORD = "discord", _("Discord")
        SLACK = "slack", _("Slack")
        JSON = "json", _("JSON (signed)")

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks"
    )
    name = models.CharField(max_length=60, blank=True)
    url = models.URLField(max_length=500)
    style = models.CharField(max_length=8, choices=Style.choices, default=Style.JSON)
    # The key of the body's HMAC-SHA256 signature, shown to its owner.
    secret = models.CharField(max_length=64)
    enabled = models.BooleanField(default=True)
    # Failed calls in a row; at WEBHOOK_FAILURES_TO_DISABLE the webhook is turned off and its
    # owner told by email.
    consecutive_failures = models.PositiveSmallIntegerField(default=0)
    disabled_reason = models.TextField(blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_success_at = models.DateTimeField(null=True, blank=True)
    # The last failed call's error and time, shown to the owner on the settings page.
    last_error = models.TextField(blank=True)
    last_failure_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        constraints = [
            models.CheckConstraint(
                condition=Q(style__in=["discord", "slack", "json"]), name="webhook_style_choice"
            ),
        ]

    def __str__(self) -> str:
        return f"Webhook {self.pk} of user {self.user_id}"


class WebhookTest(models.Model):
    """One "send a test" of a player's: counted against WEBHOOK_TESTS_PER_HOUR (in the
    database, so that the limit holds with the cache down and across processes)."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )
    webhook = models.ForeignKey(
        Webhook, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    sent = models.BooleanField(default=False)
    # What the test got: the status, or why it failed.
    answer = models.TextField(blank=True)
    # When the worker had the answer (`services.webhook_test_send`); null while the test
    # waits for it.
    answered_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["user", "created_at"], name="webhook_test_recent_idx"),
            # The tests still waiting, for the sweep that sends those whose task was lost.
            models.Index(
                fields=["created_at"],
                condition=Q(answered_at__isnull=True),
                name="webhook_test_waiting_idx",
            ),
        ]

    def __str__(self) -> str:
        return f"Webhook test {self.pk} of user {self.user_id}"
