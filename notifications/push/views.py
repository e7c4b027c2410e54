"""The settings page's forms for push notices and the channels' choices (they work without the
page's script): remove a device, save which kinds go to push and to webhooks. Thin, over
`notifications.push.services`; each answers beside its form (`core.pages.form_answers`)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.http import AuthenticatedHttpRequest
from core.pages.form_answers import answer
from notifications.push import errors, selectors, services
from notifications.push.panels import CHOICES_PLACE, DEVICES_PLACE


def _back() -> HttpResponse:
    # No fragment: the answer's focus scrolls to it (a fragment would win over it).
    return redirect("accounts:settings")


@login_required
@require_POST
def device_remove(request: AuthenticatedHttpRequest, subscription_id: int) -> HttpResponse:
    try:
        services.subscription_delete(user_id=request.user.pk, subscription_id=subscription_id)
    except errors.NoSuchDevice as exc:
        answer(request, messages.ERROR, exc.message, place=DEVICES_PLACE)
    else:
        text = _("The device was removed: it gets no more notices.")
        answer(request, messages.SUCCESS, text, place=DEVICES_PLACE)
    return _back()


@login_required
@require_POST
def channels_save(request: AuthenticatedHttpRequest) -> HttpResponse:
    # A box left unticked is not sent: each channel's list is what was ticked.
    changes = {channel: request.POST.getlist(channel) for channel in selectors.CHOICE_CHANNELS}
    try:
        services.channels_set(user_id=request.user.pk, changes=changes)
    except errors.DeviceError as exc:
        answer(request, messages.ERROR, exc.message, place=CHOICES_PLACE)
    else:
        text = _("Your choices for notices and webhooks were saved.")
        answer(request, messages.SUCCESS, text, place=CHOICES_PLACE)
    return _back()
