"""The notification tests' settings, and started games with an empty outbox."""

from __future__ import annotations

from typing import Any

import pytest

from tests.support.urls import SITE_URL


@pytest.fixture(autouse=True)
def _notification_settings(settings):
    settings.SITE_URL = SITE_URL
    settings.SITE_NAME = "Azul"
    settings.NOTIFY_GRACE_SECONDS = 120
    settings.NOTIFY_MAX_ATTEMPTS = 3
    settings.NOTIFY_DIGEST_HOUR = 8
    settings.NOTIFY_UNSUBSCRIBE_MAX_AGE_DAYS = 90
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


@pytest.fixture
def start_game(start_game):
    """Started games (see tests/conftest.py) with an empty outbox: what starting them sent
    (invitations, "game started", the first "your turn") is not what these tests are about."""
    from tests.support.mail import forget_notifications

    def start(*args: Any, **kwargs: Any):
        game = start_game(*args, **kwargs)
        forget_notifications()
        return game

    return start
