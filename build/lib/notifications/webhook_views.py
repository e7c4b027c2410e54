"""The settings page's forms for webhooks (no script needed): add, remove, turn back on, send a
test. Thin, over `notifications.webhook_services`; each answers with the settings page and a
message saying what happened (a test's answer among them)."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.http import AuthenticatedHttpRequest
from notifications import webhook_services
from notifications.webhook_services import WebhookError

SECTION = "#webhooks"


def _back() -> HttpResponse:
    return redirect(reverse("accounts:settings") + SECTION)


@login_required
@require_POST
def webhook_add(request: AuthenticatedHttpRequest) -> HttpResponse:
    try:
        webhook_services.webhook_create(
            user_id=request.user.pk,
            name=request.POST.get("name", ""),
            url=request.POST.get("url", ""),
            style=request.POST.get("style", ""),
        )
    except WebhookError as exc:
        messages.error(request, _("The webhook was not added: %(why)s") % {"why": exc.message})
    else:
        messages.success(request, _("The webhook was added. Send it a test to see it works."))
    return _back()


@login_required
@require_POST
def webhook_remove(request: AuthenticatedHttpRequest, webhook_id: int) -> HttpResponse:
    try:
        webhook_services.webhook_delete(user_id=request.user.pk, webhook_id=webhook_id)
    except WebhookError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The webhook was removed: it gets no more calls."))
    return _back()


@login_required
@require_POST
def webhook_enable(request: AuthenticatedHttpRequest, webhook_id: int) -> HttpResponse:
    try:
        webhook_services.webhook_enable(user_id=request.user.pk, webhook_id=webhook_id)
    except WebhookError as exc:
        messages.error(request, exc.message)
    else:
        messages.success(request, _("The webhook is on again."))
    return _back()


@login_required
@require_POST
def webhook_test(request: AuthenticatedHttpRequest, webhook_id: int) -> HttpResponse:
    try:
        result = webhook_services.webhook_test(user_id=request.user.pk, webhook_id=webhook_id)
    except WebhookError as exc:
        messages.error(request, exc.message)
    else:
        said = _("Test sent. %(answer)s") if result.sent else _("The test failed. %(answer)s")
        (messages.success if result.sent else messages.error)(
            request, said % {"answer": result.summary}
        )
    return _back()
