"""A player's public page: their recent games and record (games) beside their rating and its
chart (ratings). It gathers two apps, so it lives in the site's top layer rather than in
`accounts`, which every app builds on; its URL keeps the name `accounts:player`
(`azul_site/urls.py`)."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from accounts import selectors as accounts_selectors
from core.slots import player_page_panels
from games import selectors as games_selectors
from games.filters import GameHistoryFilter
from games.presenters.history import history_markup
from games.presenters.lists import player_current_games
from games.presenters.pace import pace_help, pace_text
from games.selectors.pace import player_pace
from ratings import charts
from ratings import selectors as ratings_selectors


@require_GET
def player_detail(request: HttpRequest, username: str) -> HttpResponse:
    player = accounts_selectors.player_get(username=username)
    if player is None:
        raise Http404("No such player.")
    # Their most recent finished games: the history's first page filtered to them.
    history = GameHistoryFilter.of_player(player, games_selectors.finished_games()).qs[
        : games_selectors.HISTORY_PAGE_SIZE
    ]
    context = {
        "player": player,
        "stats": games_selectors.player_stats(user=player),
        # Their average time per move and turns that ran out, lately (`games.selectors.pace`).
        "pace": pace_text(player_pace(player.pk)),
        "pace_help": pace_help(),
        "rating": ratings_selectors.player_rating(user=player),
        "chart": charts.rating_chart(ratings_selectors.rating_history(user=player)),
        "rows": history_markup(history),
        "current_games": (
            player_current_games(player=player) if request.user.is_authenticated else []
        ),
        # The viewer's Block / Unblock button.
        "blocked": request.user.is_authenticated
        and accounts_selectors.block_exists(blocker=request.user, blocked=player),
        # The viewer's Follow / Unfollow button.
        "following": request.user.is_authenticated
        and accounts_selectors.follow_exists(follower=request.user, followed=player),
        # What other apps show on a player's page (their events): `core.slots`.
        "player_page_panels": player_page_panels.collect(request=request, player=player),
    }
    return render(request, "accounts/player_detail.html", context)
