"""The settings page's panel for push notices (`core.slots.settings_page_panels`,
connected in `NotificationsConfig.ready`): this device's button, the player's devices, and the
table of what goes to push and to webhooks."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.messages import get_messages
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.urls import reverse

from accounts.models import Profile
from core.slots import Panel
from notifications.models import CHANNEL_CHOICES
from notifications.push import selectors, transport

# Where the forms' answers are shown (`core.pages.form_answers`).
DEVICES_PLACE = "push-devices"
CHOICES_PLACE = "channel-choices"


def choice_label(name: str) -> Any:
    """The name of a per-channel choice: the email setting's it mirrors ("When it is my turn")."""
    field = Profile._meta.get_field(f"email_{name}")
    return getattr(field, "verbose_name", name)


def settings_page_panel(request: HttpRequest, **page: Any) -> Panel | None:
    if not request.user.is_authenticated:
        return None
    user_id = request.user.pk
    chosen = selectors.all_choices(user_id=user_id)
    context = {
        "offered": transport.offered(),
        "public_key": settings.WEBPUSH_VAPID_PUBLIC_KEY,
        "api_url": reverse("push_api:push_subscriptions"),
        "devices": selectors.subscriptions_of(user_id=user_id),
        "max_devices": settings.PUSH_MAX_DEVICES,
        "choices": [
            {
                "name": name,
                "label": choice_label(name),
                "push": name in chosen["push"],
                "webhook": name in chosen["webhook"],
            }
            for name in CHANNEL_CHOICES
        ],
        "messages": get_messages(request),
        "csrf_token": get_token(request),
    }
    return Panel("notifications/_push_settings.html", context)
