"""The settings page as it is rendered, shared by the forms posted to it: the profile's
(`accounts.views`) and the vacation's, which lives with the clocks it stops (`games.web`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import HttpResponse
from django.shortcuts import render
from django.utils import timezone

from accounts import selectors
from accounts.forms import ApiTokenForm, ProfileForm, VacationForm
from accounts.http import AuthenticatedHttpRequest
from core.pages.form_answers import first_error_focused
from core.slots import settings_page_panels


def settings_page(
    request: AuthenticatedHttpRequest,
    *,
    form: ProfileForm | None = None,
    vacation_form: VacationForm | None = None,
    token_form: ApiTokenForm | None = None,
    new_key: str | None = None,
    panels: Mapping[str, Any] | None = None,
    status: int = 200,
) -> HttpResponse:
    """The page with the forms as given (a posted one with its errors, its first field in error
    focused), the others fresh. `new_key`, a token's, is shown once: on the response that
    created it. `panels`: what a panel's form refused, for its builder (the webhook's)."""
    if form is None:
        form = ProfileForm(instance=selectors.profile_for(user=request.user))
    for posted in (form, vacation_form, token_form):
        first_error_focused(posted)
    profile = form.instance
    now = timezone.now()
    context = {
        "form": form,
        "tokens": list(selectors.tokens_of(user=request.user)),
        "token_form": token_form or ApiTokenForm(),
        "new_key": new_key,
        "vacation_form": vacation_form or VacationForm(),
        "away_until": profile.vacation_until if profile.on_vacation(now) else None,
        "vacation_days_left": profile.vacation_days_left(now.year),
        "blocks": list(selectors.blocks_of(user=request.user)),
        "follows": list(selectors.following_of(user=request.user)),
        # Settings of apps higher up (the chat's spectators), which accounts does not import.
        "more_settings": settings_page_panels.collect(request=request, **(panels or {})),
    }
    return render(request, "accounts/settings.html", context, status=status)
