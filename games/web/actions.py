"""What a player does about a game besides moving, from the pages' forms: join, answer an
invitation, cancel, give a seat to someone else or open it, resign, ask for a rematch; and start
a vacation (every clock of the player's stops). Each is a POST that calls one service and
redirects with a message (the resignation's GET is its confirmation page)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any
from uuid import UUID

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.http import require_http_methods, require_POST

from accounts.forms import VacationForm
from accounts.http import AuthenticatedHttpRequest
from accounts.models import User
from accounts.names import player_name
from accounts.selectors import without_invitation_emails
from accounts.settings_page import settings_page
from core.pages.form_answers import answer
from games import services, throttles
from games.errors import GameError, GameNotFound
from games.models import Game
from games.presenters.game import game_actions
from games.presenters.times import local_time_text, user_zone_activated


def _post_action(
    request: AuthenticatedHttpRequest,
    action: Callable[..., Any],
    success: str,
    throttle: type[throttles.GameThrottle] | None = None,
    **kwargs: Any,
) -> Any:
    """Call the service `action` for the signed-in user (counted against `throttle`, the API's
    limit for the same action): its result, with `success` as the page's message; None, with
    the service's refusal as the message, when it refused."""
    try:
        if throttle is not None:
            throttles.check(request, throttle)
        game = action(user=request.user, **kwargs)
    except GameNotFound as exc:
        raise Http404(exc.message) from None
    except GameError as exc:
        messages.error(request, exc.message)
        return None
    messages.success(request, success)
    return game


def tell_not_emailed(request: HttpRequest, users: list[User]) -> None:
    """Say on the page that these invitees will not hear of their invitation by email."""
    for user in users:
        messages.info(
            request,
            _(
                "%(name)s does not get invitation emails; they will see the invitation when"
                " they next visit."
            )
            % {"name": player_name(user)},
        )


def _back_to(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """Back to the page the form was on (`next`, a path of this site: the notices on the home
    page and "My games"), else to the game."""
    back = request.POST.get("next", "")
    if back and url_has_allowed_host_and_scheme(
        back, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return redirect(back)
    return redirect("games:detail", game_id=game_id)


@login_required
@require_POST
def game_join(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    game = _post_action(
        request,
        services.game_join,
        _("You joined the game."),
        throttles.GameJoinThrottle,
        game_id=game_id,
        # The hidden field the page's script fills (static/games/contribution.js).
        contribution=request.POST.get("contribution"),
    )
    if game is None:
        return redirect("games:lobby")
    return redirect("games:detail", game_id=game.id)


@login_required
@require_POST
def invitation_respond(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    accept = request.POST.get("accept") == "1"
    success = _("You accepted the invitation.") if accept else _("You declined the invitation.")
    game = _post_action(
        request,
        services.invitation_respond,
        success,
        game_id=game_id,
        accept=accept,
        contribution=request.POST.get("contribution"),
    )
    if game is not None and accept:
        return redirect("games:detail", game_id=game.id)
    return redirect("games:my_games")


@login_required
@require_http_methods(["GET", "POST"])
def game_cancel(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    """Cancel a game waiting for players, once confirmed: the board's button (and the notices'
    on the home page and "My games") posts without `confirm=yes`, and gets this confirmation
    page (as a GET does), whose button posts `confirm=yes`. No script needed, so the keyboard
    and every browser get the same two steps."""
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        game = _post_action(
            request, services.game_cancel, _("The game was cancelled."), game_id=game_id
        )
        if game is None:
            return redirect("games:detail", game_id=game_id)
        return redirect("games:my_games")
    try:
        actions = game_actions(game_id=game_id, viewer=request.user)
    except GameNotFound as exc:
        raise Http404(exc.message) from None
    if not actions["can_cancel"]:
        messages.error(
            request,
            _("You cannot cancel this game: only its creator can, and only before it starts."),
        )
        return redirect("games:detail", game_id=game_id)
    return render(
        request,
        "games/cancel_confirm.html",
        {"game_id": actions["game_id"], "invited": actions["seats_invited"]},
    )


@login_required
@require_POST
def seat_invite(request: AuthenticatedHttpRequest, game_id: UUID, position: int) -> HttpResponse:
    """The creator gives a declined (or unanswered) seat to another player."""
    username = request.POST.get("username", "").strip()
    game = _post_action(
        request,
        services.seat_invite,
        _("You invited %(name)s.") % {"name": username},
        throttles.GameInviteThrottle,
        game_id=game_id,
        position=position,
        username=username,
    )
    if game is not None:
        seat = next(s for s in game.seat_list if s.position == position)
        tell_not_emailed(request, without_invitation_emails(users=[seat.user]))
    return _back_to(request, game_id)


@login_required
@require_POST
def seat_open(request: AuthenticatedHttpRequest, game_id: UUID, position: int) -> HttpResponse:
    """The creator opens a declined (or unanswered) seat to anyone in the lobby."""
    _post_action(
        request,
        services.seat_open,
        _("Seat %(number)s is open: anyone may join it from the lobby.") % {"number": position + 1},
        game_id=game_id,
        position=position,
    )
    return _back_to(request, game_id)


@login_required
@require_http_methods(["GET", "POST"])
def game_resign(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    """Resign, once confirmed. The board's button asks with a dialog (`game_actions.js`) and
    then posts `confirm=yes`; without JavaScript it posts without, and gets this confirmation
    page (as a GET does), whose button posts `confirm=yes`."""
    if request.method == "POST" and request.POST.get("confirm") == "yes":
        try:
            game = services.game_resign(game_id=game_id, user=request.user)
        except GameNotFound as exc:
            raise Http404(exc.message) from None
        except GameError as exc:
            messages.error(request, exc.message)
        else:
            messages.success(
                request,
                _("You resigned: the computer plays your seat to the end, and you finish last.")
                if game.status == game.Status.ACTIVE
                else _(
                    "You resigned. With nothing left to play for, the computer played the game"
                    " out at once: you finished last."
                ),
            )
        return redirect("games:detail", game_id=game_id)
    try:
        actions = game_actions(game_id=game_id, viewer=request.user)
    except GameNotFound as exc:
        raise Http404(exc.message) from None
    if not actions["can_resign"]:
        messages.error(request, _("You cannot resign this game: you are not playing it now."))
        return redirect("games:detail", game_id=game_id)
    return render(request, "games/resign_confirm.html", {"game_id": actions["game_id"]})


@login_required
@require_POST
def game_rematch(request: AuthenticatedHttpRequest, game_id: UUID) -> HttpResponse:
    """A rematch of a finished game: a new game with the same players and settings, or the one
    the player has already."""
    try:
        throttles.check(request, throttles.GameRematchThrottle)
        rematch, created = services.game_rematch(game_id=game_id, user=request.user)
    except GameNotFound as exc:
        raise Http404(exc.message) from None
    except GameError as exc:
        messages.error(request, exc.message)
        return redirect("games:detail", game_id=game_id)
    if created and rematch.status == Game.Status.ACTIVE:
        # Nobody to invite: the other seats are the computer's, and the game started at once.
        messages.success(request, _("Your rematch against the computer has started."))
    elif created:
        messages.success(request, _("Your rematch is created: the other players are invited."))
    else:
        messages.info(request, _("You have a rematch of that game already: here it is."))
    return redirect("games:detail", game_id=rematch.id)


@login_required
@require_POST
def vacation_start(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The settings page's vacation form (`accounts/settings.html`): stops every clock of the
    player's for the days asked. Refused, the settings page again with the form's errors."""
    form = VacationForm(request.POST)
    if form.is_valid():
        try:
            profile = services.vacation_start(user=request.user, days=form.cleaned_data["days"])
        except GameError as exc:
            form.add_error("days", exc.message)
        else:
            assert profile.vacation_until is not None  # what `vacation_start` just set
            with user_zone_activated(request.user):
                until = local_time_text(profile.vacation_until, _("D j M H:i T"))
            answer(
                request,
                messages.SUCCESS,
                _("Enjoy your vacation: your clocks are stopped until %(until)s.")
                % {"until": until},
                place="vacation",
            )
            return redirect("accounts:settings")
    return settings_page(request, vacation_form=form)


@login_required
@require_POST
def vacation_end(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The settings page's "End my vacation now": the player's clocks run again, and the days
    not taken are given back."""
    try:
        _profile, given_back = services.vacation_end(user=request.user)
    except GameError as exc:
        answer(request, messages.ERROR, exc.message, place="vacation")
    else:
        answer(
            request,
            messages.SUCCESS,
            ngettext(
                "Welcome back: your clocks are running again, and %(days)s unused day of"
                " vacation is yours again this year.",
                "Welcome back: your clocks are running again, and %(days)s unused days of"
                " vacation are yours again this year.",
                given_back,
            )
            % {"days": given_back},
            place="vacation",
        )
    return redirect("accounts:settings")
