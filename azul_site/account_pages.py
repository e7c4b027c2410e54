"""The settings page's "Delete my account" and "Download my data": both reach every app
(`azul_site.account_deletion`, `azul_site.player_data`), so their pages live here, with the
player's public page; their URLs keep the `accounts:` names (`azul_site/urls.py`)."""

from __future__ import annotations

import math
from typing import Any

import orjson
from django.contrib import messages
from django.contrib.auth import logout
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext
from django.views.decorators.http import require_GET, require_http_methods
from rest_framework.throttling import SimpleRateThrottle

from accounts.deletion import AccountDeletionRefused
from accounts.http import AuthenticatedHttpRequest
from azul_site.account_deletion import account_delete
from azul_site.player_data import player_data

# What the player chose for their chat messages (`account_delete`'s `chat_messages_removed`).
CHAT_MESSAGES_KEPT = "keep"
CHAT_MESSAGES_REMOVED = "remove"


@login_required
@require_http_methods(["GET", "POST"])
def account_delete_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    """GET: what deleting the account does, and the form that asks for the password and whether
    the chat messages stay. POST: delete it, sign out, and go home."""
    error = ""
    chat_messages = request.POST.get("chat_messages", CHAT_MESSAGES_KEPT)
    if request.method == "POST":
        if chat_messages not in (CHAT_MESSAGES_KEPT, CHAT_MESSAGES_REMOVED):
            error = gettext(
                "Choose whether your chat messages stay or go: your account was not deleted."
            )
            chat_messages = CHAT_MESSAGES_KEPT
        else:
            removed = chat_messages == CHAT_MESSAGES_REMOVED
            try:
                account_delete(
                    user=request.user,
                    password=request.POST.get("password", ""),
                    chat_messages_removed=removed,
                )
            except AccountDeletionRefused as exc:
                error = exc.message
            else:
                logout(request)
                if removed:
                    goodbye = gettext("Your account and your chat messages were deleted. Goodbye.")
                else:
                    goodbye = gettext("Your account was deleted. Goodbye.")
                messages.success(request, goodbye)
                return redirect("home")
    context = {"error": error, "chat_messages": chat_messages}
    return render(request, "accounts/delete_account.html", context, status=400 if error else 200)


class DataDownloadThrottle(SimpleRateThrottle):
    """Downloads of one player's data (`data_download` in DEFAULT_THROTTLE_RATES)."""

    scope = "data_download"

    def get_cache_key(self, request: Any, view: Any) -> str | None:
        return self.cache_format % {"scope": self.scope, "ident": request.user.pk}


@login_required
@require_GET
def data_download_view(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The signed-in player's data as a JSON attachment (`azul_site.player_data`)."""
    throttle = DataDownloadThrottle()
    if not throttle.allow_request(request, None):  # type: ignore[arg-type]  # a page, no view
        wait = math.ceil(throttle.wait() or 60)
        response = HttpResponse(
            gettext(
                "You have downloaded your data as often as you may for now: try again in"
                " %(hours)s hours."
            )
            % {"hours": max(1, math.ceil(wait / 3600))},
            status=429,
            content_type="text/plain; charset=utf-8",
        )
        response["Retry-After"] = str(wait)
        return response
    body = orjson.dumps(
        player_data(user=request.user), option=orjson.OPT_INDENT_2 | orjson.OPT_UTC_Z
    )
    response = HttpResponse(body, content_type="application/json")
    filename = f"azul-data-{request.user.pk}-{timezone.now():%Y%m%d}.json"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["Cache-Control"] = "no-store"
    return response
