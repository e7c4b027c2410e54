"""`/games/next/`: the game that waits for the player's move next (the header's count of games
waiting links here), or "My games" when none does."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpResponse
from django.shortcuts import redirect
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET

from accounts.http import AuthenticatedHttpRequest
from games.presenters.next_game import next_game_link


@login_required
@require_GET
def next_game_redirect(request: AuthenticatedHttpRequest) -> HttpResponse:
    """A redirect to the player's next game (`selectors.next_game_id`); to "My games", saying
    so, when no game waits for their move."""
    onward = next_game_link(user_id=request.user.pk)
    if onward is None:
        messages.info(request, _("No game waits for your move."))
        return redirect("games:my_games")
    return redirect(onward["url"])
