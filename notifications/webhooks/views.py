"""The settings page's forms for webhooks (no script needed): add, remove, turn back on, send a
test. Thin, over `notifications.webhooks.services`. Each answers beside the form that was used
(`core.pages.form_answers`): an address refused is shown again as typed, its error beside its field;
what a row's button did, in that webhook's row."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.http import AuthenticatedHttpRequest
from accounts.settings_page import settings_page
from core.pages.form_answers import answer
from notifications.webhooks import services
from notifications.webhooks.errors import NoSuchWebhook, WebhookError
from notifications.webhooks.panels import LIST_PLACE, row_place

ADD_FIELDS = ("name", "url", "style")


def _back() -> HttpResponse:
    # No fragment: the answer's focus scrolls to it (a fragment would win over it).
    return redirect("accounts:settings")


def _place(webhook_id: int, exc: WebhookError | None = None) -> str:
    """The webhook's row, or the list when there is no such webhook (any more)."""
    return LIST_PLACE if isinstance(exc, NoSuchWebhook) else row_place(webhook_id)


@login_required
@require_POST
def webhook_add(request: AuthenticatedHttpRequest) -> HttpResponse:
    typed = {field: request.POST.get(field, "") for field in ADD_FIELDS}
    try:
        row = services.webhook_create(user_id=request.user.pk, **typed)
    except WebhookError as exc:
        # The page again with what was typed, and why it was refused beside the field.
        refused = {"values": typed, "field": exc.field, "error": exc.message}
        return settings_page(request, panels={"webhook_refused": refused}, status=exc.status_code)
    text = _("The webhook was added. Send it a test to see it works.")
    answer(request, messages.SUCCESS, text, place=row_place(row.pk))
    return _back()


@login_required
@require_POST
def webhook_remove(request: AuthenticatedHttpRequest, webhook_id: int) -> HttpResponse:
    try:
        services.webhook_delete(user_id=request.user.pk, webhook_id=webhook_id)
    except WebhookError as exc:
        answer(request, messages.ERROR, exc.message, place=LIST_PLACE)
    else:
        text = _("The webhook was removed: it gets no more calls.")
        answer(request, messages.SUCCESS, text, place=LIST_PLACE)
    return _back()


@login_required
@require_POST
def webhook_enable(request: AuthenticatedHttpRequest, webhook_id: int) -> HttpResponse:
    try:
        services.webhook_enable(user_id=request.user.pk, webhook_id=webhook_id)
    except WebhookError as exc:
        answer(request, messages.ERROR, exc.message, place=_place(webhook_id, exc))
    else:
        text = _("The webhook is on again.")
        answer(request, messages.SUCCESS, text, place=_place(webhook_id))
    return _back()


@login_required
@require_POST
def webhook_test(request: AuthenticatedHttpRequest, webhook_id: int) -> HttpResponse:
    try:
        services.webhook_test(user_id=request.user.pk, webhook_id=webhook_id)
    except WebhookError as exc:
        answer(request, messages.ERROR, exc.message, place=_place(webhook_id, exc))
    else:
        # Sent by a worker: its answer shows in the row's test line when it comes.
        text = _("The test is on its way.")
        answer(request, messages.SUCCESS, text, place=_place(webhook_id))
    return _back()
