"""The settings page's forms for push notices and the channels' choices (they work without the
page's script): remove a device, save which kinds go to push and to webhooks. Thin, over
`notifications.devices`."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.http import AuthenticatedHttpRequest
from notifications import devices

SECTION = "#push-settings"


def _back() -> HttpResponse:
    return redirect(reverse("accounts:settings") + SECTION)


@login_required
@require_POST
def device_remove(request: AuthenticatedHttpRequest, subscription_id: int) -> HttpResponse:
    try:
        devices.subscription_delete(user_id=request.user.pk, subscription_id=subscription_id)
    except devices.NoSuchDevice as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The device was removed: it gets no more notices."))
    return _back()


@login_required
@require_POST
def channels_save(request: AuthenticatedHttpRequest) -> HttpResponse:
    # A box left unticked is not sent: each channel's list is what was ticked.
    changes = {channel: request.POST.getlist(channel) for channel in devices.CHOICE_CHANNELS}
    try:
        devices.channels_set(user_id=request.user.pk, changes=changes)
    except devices.DeviceError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("Your choices for notices and webhooks were saved."))
    return _back()
