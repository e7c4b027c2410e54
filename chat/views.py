"""The chat's page actions, for the board page's forms without JavaScript: write a message,
mute or unmute the game's chat, report a message, and the spectators setting."""

from __future__ import annotations

from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse, HttpResponseForbidden
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.http import AuthenticatedHttpRequest
from chat import services
from chat.errors import ChatError, ChatNotFound
from chat.panels import BOARD_PLACE, SETTINGS_PLACE
from core.pages.form_answers import answer


def _back(game_id: UUID, *, answered: bool = False) -> HttpResponse:
    """Back to the board: to its chat, or, with an answer, to the answer shown in the chat
    panel (`BOARD_PLACE`), which takes the focus as the page loads (a fragment would keep it)."""
    board = reverse("games:detail", args=[game_id])
    return redirect(board if answered else board + "#chat")


def _answered(
    request: AuthenticatedHttpRequest, game_id: UUID, level: int, text: str
) -> HttpResponse:
    answer(request, level, text, place=BOARD_PLACE)
    return _back(game_id, answered=True)


def _refused(request: AuthenticatedHttpRequest, game_id: UUID, exc: ChatError) -> HttpResponse:
    if isinstance(exc, ChatNotFound):
        raise Http404(exc.message)
    if exc.status_code == 403 and exc.code == "chat_forbidden":
        return HttpResponseForbidden(exc.message)
    return _answered(request, game_id, messages.ERROR, exc.message)


@login_required
@require_POST
def message_post(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    try:
        services.message_post(game_id=game_id, user=request.user, text=request.POST.get("text"))
    except ChatError as exc:
        return _refused(request, game_id, exc)
    return _back(game_id)


@login_required
@require_POST
def game_mute(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    muted = request.POST.get("muted") == "1"
    try:
        services.mute_game(user=request.user, game_id=game_id, muted=muted)
    except ChatError as exc:
        return _refused(request, game_id, exc)
    return _answered(
        request,
        game_id,
        messages.SUCCESS,
        _("This game's chat is muted.") if muted else _("This game's chat is back."),
    )


@login_required
@require_POST
def player_mute(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    muted = request.POST.get("muted") == "1"
    try:
        services.mute_player(user=request.user, muted_id=request.POST.get("player"), muted=muted)
    except ChatError as exc:
        return _refused(request, game_id, exc)
    return _answered(
        request,
        game_id,
        messages.SUCCESS,
        _("That player's messages are muted.") if muted else _("That player's messages are back."),
    )


@login_required
@require_POST
def message_report(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    try:
        services.message_report(
            user=request.user,
            message_id=request.POST.get("message"),
            reason=request.POST.get("reason"),
        )
    except ChatError as exc:
        return _refused(request, game_id, exc)
    return _answered(
        request, game_id, messages.SUCCESS, _("Thank you: a moderator will look at the message.")
    )


@login_required
@require_POST
def privacy_set(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    return _answered(request, game_id, messages.SUCCESS, _privacy_post(request))


@login_required
@require_POST
def privacy_settings_set(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The same setting, from the settings page: answered beside its form there
    (`core.pages.form_answers`), which takes the focus (no fragment, which would keep it)."""
    answer(request, messages.SUCCESS, _privacy_post(request), place=SETTINGS_PLACE)
    return redirect("accounts:settings")


def _privacy_post(request: AuthenticatedHttpRequest) -> str:
    """Store the choice; what to tell the player."""
    allowed = request.POST.get("spectators_may_read") == "1"
    services.privacy_set(user=request.user, spectators_may_read=allowed)
    return (
        _("Spectators may read the chat of your finished games if every player allows it.")
        if allowed
        else _("Spectators may not read the chat of your games.")
    )
