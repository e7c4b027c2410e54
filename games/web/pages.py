"""The games' pages other than the board: a new game, the lobby, "My games", the history of
finished games, and a game's replay."""

from __future__ import annotations

import math
from urllib.parse import urlencode
from uuid import UUID

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import redirect, render, resolve_url
from django.template.loader import get_template
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.gzip import gzip_page
from django.views.decorators.http import require_GET, require_http_methods

from accounts.http import AuthenticatedHttpRequest
from core.pages.pagination import CachedCountPaginator
from core.slots import new_game_levels_panels, replay_position_panels
from games import selectors, services, throttles
from games.errors import GameError, GameNotFound
from games.filters import GameHistoryFilter
from games.forms import GameCreateForm
from games.models import Game
from games.presenters import lists
from games.presenters.game import invitees_not_emailed
from games.presenters.history import history_markup
from games.presenters.levels import bot_levels
from games.presenters.pace import pace_help, with_paces
from games.record import replay
from games.web.actions import tell_not_emailed


@login_required
@require_http_methods(["GET", "POST"])
def game_new(request: AuthenticatedHttpRequest) -> HttpResponse:
    form = GameCreateForm(request.POST or None, creator=request.user)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            throttles.check(request, throttles.GameCreateThrottle)
            game = services.game_create(
                creator=request.user,
                num_players=data["num_players"],
                variant=data["variant"],
                days_per_move=data["days_per_move"],
                seats=[services.SeatSpec(**seat) for seat in data["seats"]],
                # The hidden field the page's script fills (static/games/contribution.js).
                contribution=request.POST.get("contribution"),
            )
        except GameError as exc:
            form.add_error(None, exc.message)
        else:
            messages.success(request, _("Your game was created."))
            tell_not_emailed(request, invitees_not_emailed(game))
            return redirect("games:detail", game_id=game.id)
    context = {
        "form": form,
        "bot_levels": bot_levels(),
        # The levels' ratings on the players' scale (ratings adds them).
        "bot_levels_panels": new_game_levels_panels.collect(request=request),
    }
    return render(request, "games/new.html", context)


@require_GET
def lobby(request: HttpRequest) -> HttpResponse:
    """Games waiting for players. Public: a visitor who is not signed in sees them all, and
    "Sign in to join" brings them back here with `?join=<id>`, that game picked out, to press
    Join (a POST, as always). The signed-in creator sees their own waiting games, marked."""
    user = request.user
    # Each row says whether the viewer created it (`is_mine`) or can join it (`can_join`).
    games = lists.open_games_for_lobby(user=user, include_own=True)
    # Each seated player's pace, so that a player can choose opponents who keep it.
    games = with_paces(games)
    if not user.is_authenticated:
        for g in games:
            back = f"{reverse('games:lobby')}?join={g['id']}"
            g["sign_in_to_join"] = f"{resolve_url(settings.LOGIN_URL)}?{urlencode({'next': back})}"
    picked = request.GET.get("join", "")
    context = {
        "games": games,
        "pace_help": pace_help(),
        "picked": next((g for g in games if str(g["id"]) == picked), None),
        "picked_missing": bool(picked) and not any(str(g["id"]) == picked for g in games),
    }
    return render(request, "games/lobby.html", context)


@login_required
@require_GET
def my_games(request: AuthenticatedHttpRequest) -> HttpResponse:
    """The player's games, `MY_GAMES_PAGE_SIZE` a page (`?page=N`): their turn first, then the
    others not over, then the finished ones. A page that is not a number from 1, or has no
    games past the first, is a 404 that says so."""
    asked = request.GET.get("page", "1")
    # isdecimal, not isdigit: int() refuses "²"; and it refuses more than 4300 digits.
    number = int(asked) if asked.isdecimal() and len(asked) < 100 and int(asked) >= 1 else None
    groups = (
        None
        if number is None
        else lists.games_page_for_user(
            user=request.user, page=number, page_size=selectors.MY_GAMES_PAGE_SIZE
        )
    )
    if groups is None or (groups["number"] > 1 and not groups["games"]):
        raise Http404(_("There is no page %(page)s.") % {"page": asked})
    context = {
        "groups": groups,
        "invitations": lists.invitations_for_user(user=request.user),
        "declined": lists.declined_invitations(user=request.user),
    }
    return render(request, "games/my_games.html", context)


@require_GET
def history(request: HttpRequest) -> HttpResponse:
    """Finished games, newest first, filtered (`games.filters.GameHistoryFilter`) and paginated.
    Public: finished games are anyone's to look at."""
    filters = GameHistoryFilter(request.GET, queryset=selectors.finished_games())
    # An invalid filter shows every game (and the form says what is wrong).
    valid = filters.is_valid()
    games = filters.qs if valid else selectors.finished_games()
    paginator = CachedCountPaginator(
        games,
        selectors.HISTORY_PAGE_SIZE,
        count_key=selectors.history_count_key(filters.count_filters() if valid else {}),
        count_seconds=selectors.HISTORY_COUNT_SECONDS,
    )
    page = paginator.get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": filters.form,
        "page": page,
        "rows": history_markup(page.object_list),
        # The filters, kept in the links to other pages.
        "query": query.urlencode(),
    }
    return render(request, "games/history.html", context)


def _started_game(game_id: UUID) -> Game:
    """The game to replay: 404 when there is none, or it has not started (no log yet)."""
    try:
        game = selectors.game_get(game_id=game_id)
        replay.require_started(game)
    except GameNotFound as exc:
        raise Http404(exc.message) from None
    return game


@require_GET
def game_replay(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """The board at any point of the log (`?ply=N`, 0 to the game's ply; anything else is a
    400 saying what is allowed). Finished games are public; a game in progress is shown up to
    now to whoever may see its board (signed-in users)."""
    game = _started_game(game_id)
    if not replay.replay_visible(game=game, viewer=request.user):
        return redirect_to_login(request.get_full_path())
    try:
        ply = replay.parse_ply(request.GET.get("ply"), last=game.ply)
    except replay.BadPly as exc:
        context = {"game": game, "message": exc.message, "last_ply": game.ply}
        return render(request, "games/replay_bad_ply.html", context, status=exc.status_code)
    context = replay.replay_page(game=game, ply=ply)
    # What other apps show on a position (the analysis of the move played): `core.slots`.
    context["replay_position_panels"] = replay_position_panels.collect(
        request=request, game=game, ply=ply
    )
    return render(request, "games/replay.html", context)


@require_GET
@gzip_page  # much the same markup at every point: 1 MB for 80 points, 14 kB compressed
def game_replay_points(request: HttpRequest, game_id: UUID) -> HttpResponse:
    """Every point of the replay as the page shows it (`games/_replay_point.html`), from the
    first to the game's ply (no further: a game in progress is shown up to now), asked once by
    the replay page's script so that stepping through the game asks the server nothing more.
    Seen by whoever may see the replay."""
    game = _started_game(game_id)
    if not replay.replay_visible(game=game, viewer=request.user):
        return JsonResponse({"detail": _("Sign in to see this game.")}, status=403)
    wait = throttles.replay_points_refused(request)
    if wait is not None:
        refused = JsonResponse(
            {
                "detail": _(
                    "Too many replays loaded at once: step through this one a move at a time."
                )
            },
            status=429,
        )
        refused["Retry-After"] = str(math.ceil(wait))
        return refused
    template = get_template("games/_replay_point.html")
    points = []
    for context in replay.replay_points(game=game):
        context["replay_position_panels"] = replay_position_panels.collect(
            request=request, game=game, ply=context["ply"]
        )
        points.append(template.render(context))
    return JsonResponse({"last_ply": game.ply, "points": points})
