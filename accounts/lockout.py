"""django-axes hooks: which account a login attempt counts against, and the lockout page."""

import math

from axes.helpers import get_cool_off
from django.conf import settings
from django.contrib.auth import get_user_model
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render


def lockout_username(request: HttpRequest, credentials: dict | None) -> str:
    """The lockout key for an attempt: the account's username, whether the user typed the
    username or the email address, so that switching between them does not earn more guesses."""
    credentials = credentials or {}
    typed = (
        credentials.get("username")
        or credentials.get("email")
        or getattr(request, "POST", {}).get("login", "")
        or ""
    ).strip()
    if "@" in typed:
        username = (
            get_user_model()
            .objects.filter(emailaddress__email__iexact=typed)
            .values_list("username", flat=True)
            .first()
        )
        if username:
            typed = username
    return typed.lower()


def lockout_response(
    request: HttpRequest, original_response=None, credentials: dict | None = None
) -> HttpResponse:
    cool_off = get_cool_off(request) or settings.AXES_COOLOFF_TIME
    minutes = max(1, math.ceil(cool_off.total_seconds() / 60))
    return render(
        request,
        "account/lockout.html",
        {"minutes": minutes},
        status=settings.AXES_HTTP_RESPONSE_CODE,
    )
