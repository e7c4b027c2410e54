"""The settings page's panel for webhooks (`core.panels.settings_page_panels`, connected in
`NotificationsConfig.ready`): the player's webhooks, and the form to add one. Which kinds go to
webhooks is chosen in the push panel's table (`push_panels`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.http import HttpRequest
from django.middleware.csrf import get_token

from core.panels import Panel
from notifications import webhook_services
from notifications.models import Webhook


def settings_page_panel(request: HttpRequest, **page: Any) -> Panel | None:
    if not request.user.is_authenticated:
        return None
    rows = webhook_services.webhooks_of(user_id=request.user.pk)
    context = {
        "webhooks": [{**webhook_services.webhook_shown(row), "secret": row.secret} for row in rows],
        "max_webhooks": settings.WEBHOOKS_MAX_PER_PLAYER,
        "tests_per_hour": settings.WEBHOOK_TESTS_PER_HOUR,
        "can_add": len(rows) < settings.WEBHOOKS_MAX_PER_PLAYER,
        "styles": Webhook.Style.choices,
        "name_max_length": webhook_services.NAME_MAX_LENGTH,
        "url_max_length": webhook_services.URL_MAX_LENGTH,
        "csrf_token": get_token(request),
    }
    return Panel("notifications/_webhook_settings.html", context)
