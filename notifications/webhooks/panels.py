"""The settings page's panel for webhooks (`core.slots.settings_page_panels`, connected in
`NotificationsConfig.ready`): the player's webhooks, and the form to add one. Which kinds go to
webhooks is chosen in the push panel's table (`push.panels`)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.messages import get_messages
from django.http import HttpRequest
from django.middleware.csrf import get_token

from core.slots import Panel
from notifications.models import Webhook
from notifications.webhooks import selectors, services

# Where the forms' answers are shown (`core.pages.form_answers`): the list, or one webhook's row.
LIST_PLACE = "webhooks"


def row_place(webhook_id: int) -> str:
    return f"webhook-{webhook_id}"


def settings_page_panel(
    request: HttpRequest, *, webhook_refused: dict[str, Any] | None = None, **page: Any
) -> Panel | None:
    """`webhook_refused`: the add form refused (`views.webhook_add`): what was typed,
    the field in error ("" for the form as a whole) and why."""
    if not request.user.is_authenticated:
        return None
    rows = selectors.webhooks_of(user_id=request.user.pk)
    tests = selectors.latest_tests(user_id=request.user.pk)
    context = {
        "webhooks": [
            {
                **selectors.webhook_shown(row),
                "secret": row.secret,
                "place": row_place(row.pk),
                "test": selectors.webhook_test_shown(tests[row.pk]) if row.pk in tests else None,
            }
            for row in rows
        ],
        "max_webhooks": settings.WEBHOOKS_MAX_PER_PLAYER,
        "tests_per_hour": settings.WEBHOOK_TESTS_PER_HOUR,
        "can_add": len(rows) < settings.WEBHOOKS_MAX_PER_PLAYER,
        "styles": Webhook.Style.choices,
        "name_max_length": services.NAME_MAX_LENGTH,
        "url_max_length": services.URL_MAX_LENGTH,
        "refused": webhook_refused,
        "typed": (webhook_refused or {}).get("values", {}),
        "messages": get_messages(request),
        "csrf_token": get_token(request),
    }
    return Panel("notifications/_webhook_settings.html", context)
