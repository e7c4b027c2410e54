"""The board page's form for a player's private notes on a game, for a browser without
JavaScript (with it, the page's script saves through the API: static/games/notes.js)."""

from __future__ import annotations

from typing import Any
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpResponse
from django.shortcuts import redirect
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from accounts.http import AuthenticatedHttpRequest
from games import selectors, services, throttles
from games.errors import GameError, GameNotFound
from games.models import GameNote


def notes_context(*, game_id: UUID, viewer: Any, viewer_position: int | None) -> dict[str, Any]:
    """What the board page's notes form (`games/_notes.html`) reads: nothing for a viewer
    without a seat (who has no notes), else their notes (1 query)."""
    if viewer_position is None:
        return {}
    text = selectors.seated_note_text(game_id=game_id, user=viewer)
    if text is None:
        return {}  # invited, not seated yet
    return {
        "notes": {
            "text": text,
            "max_length": GameNote.MAX_LENGTH,
            "form_url": reverse("games:notes", args=[game_id]),
            "api_url": reverse("games_api:notes", args=[game_id]),
        }
    }


@login_required
@require_POST
def game_notes_save(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    try:
        throttles.check(request, throttles.GameNotesThrottle)
        services.game_note_save(game_id=game_id, user=request.user, text=request.POST.get("text"))
    except GameNotFound as exc:
        raise Http404(exc.message) from None
    except GameError as exc:
        messages.error(
            request, _("Your notes were not saved: %(reason)s") % {"reason": exc.message}
        )
    else:
        messages.success(request, _("Your notes are saved."))
    return redirect(reverse("games:detail", args=[game_id]) + "#game-notes")
