"""The analysis's page action: a player asks for the analysis of a finished game."""

from __future__ import annotations

from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.http import AuthenticatedHttpRequest
from analysis import services
from analysis.models import Analysis
from games.errors import GameError, GameNotFound


@login_required
@require_POST
def analysis_request(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    try:
        analysis = services.analysis_request(game_id=game_id, user=request.user)
    except GameNotFound as exc:
        raise Http404(exc.message) from None
    except GameError as exc:
        messages.error(request, exc.message)
    else:
        if analysis.status == Analysis.Status.DONE:
            messages.success(request, _("The analysis is ready."))
        else:
            messages.success(
                request, _("The computer is analyzing the game: this takes a few minutes.")
            )
    return redirect(reverse("games:detail", args=[game_id]) + "#analysis")
