"""What the webhook channel's services and selectors refuse, as the API and the pages show it."""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext_lazy

from core.errors import ServiceError


class WebhookError(ServiceError):
    code = "invalid_webhook"
    default_message = gettext_lazy("This webhook is not valid.")

    def __init__(self, message: str | None = None, *, field: str = "") -> None:
        super().__init__(message)
        # The input it is about ("name", "url", "style"), for a form to show it beside; "" for
        # none in particular.
        self.field = field


class TooManyWebhooks(WebhookError):
    code = "too_many_webhooks"


class NoSuchWebhook(WebhookError):
    status_code = 404
    code = "no_such_webhook"
    default_message = gettext_lazy("No such webhook.")


class TooManyTests(WebhookError):
    status_code = 429
    code = "too_many_webhook_tests"

    def __init__(self, message: str, *, retry_after: int) -> None:
        super().__init__(message)
        self.retry_after = retry_after

    @property
    def extra(self) -> dict[str, Any]:
        return {"retry_after": self.retry_after}
