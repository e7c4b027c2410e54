"""The leagues' pages (`leagues:...`): the list, a league's page (its latest season's divisions
and their standings, the join or leave button), the forms it posts, and a player's league
history. Each POST calls one service: done, it goes back to the league's page with a message;
refused, the league's page says why, answered with the refusal's status, and nothing is
written. Every form works without scripts."""

from __future__ import annotations

from urllib.parse import urlencode

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render, resolve_url
from django.urls import reverse
from django.utils.translation import gettext as _
from django.views.decorators.http import require_GET, require_POST

from accounts import selectors as accounts_selectors
from accounts.http import AuthenticatedHttpRequest
from events import leagues, throttles
from events.errors import EventError
from events.models import League


@require_GET
def league_list(request: HttpRequest) -> HttpResponse:
    rows = [
        {"league": league, "season": leagues.current_season(league)}
        for league in leagues.leagues_list()
    ]
    return render(request, "events/leagues/list.html", {"rows": rows})


def _league_or_404(slug: str) -> League:
    league = leagues.get_league(slug)
    if league is None:
        raise Http404(leagues.LeagueNotFound().message)
    return league


def _league_page(request: HttpRequest, league: League, status: int = 200) -> HttpResponse:
    season = leagues.current_season(league)
    events = leagues.divisions_of(season) if season else None
    page = None
    if events is not None:
        page = Paginator(events, leagues.DIVISIONS_PER_PAGE).get_page(request.GET.get("page"))
    context = {
        "league": league,
        "season": season,
        "page": page,
        "divisions": leagues.divisions_with_standings(list(page.object_list)) if page else [],
        "mine": leagues.division_of(season, request.user) if season else None,
        "is_member": leagues.is_member(league, request.user),
        "sign_in_url": f"{resolve_url(settings.LOGIN_URL)}?"
        + urlencode({"next": reverse("leagues:detail", args=[league.slug])}),
    }
    return render(request, "events/leagues/detail.html", context, status=status)


@require_GET
def league_detail(request: HttpRequest, slug: str) -> HttpResponse:
    """A league's rules, its latest season's divisions with their standings
    (`DIVISIONS_PER_PAGE` a page, top first), and the join or leave button. Public."""
    return _league_page(request, _league_or_404(slug))


def _refused(request: HttpRequest, slug: str, exc: EventError) -> HttpResponse:
    if isinstance(exc, leagues.LeagueNotFound):
        raise Http404(exc.message)
    messages.error(request, exc.message)
    return _league_page(request, _league_or_404(slug), status=exc.status_code)


@login_required
@require_POST
def league_join(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    try:
        throttles.check(request, throttles.EventEntryThrottle)
        leagues.league_join(slug=slug, user=request.user)
    except EventError as exc:
        return _refused(request, slug, exc)
    messages.success(request, _("You joined this league: you play from its next season."))
    return redirect("leagues:detail", slug=slug)


@login_required
@require_POST
def league_leave(request: AuthenticatedHttpRequest, slug: str) -> HttpResponse:
    try:
        throttles.check(request, throttles.EventEntryThrottle)
        leagues.league_leave(slug=slug, user=request.user)
    except EventError as exc:
        return _refused(request, slug, exc)
    messages.success(
        request,
        _("You left this league: you finish the season you play in, but not the next one."),
    )
    return redirect("leagues:detail", slug=slug)


@require_GET
def league_history(request: HttpRequest, username: str) -> HttpResponse:
    """The divisions a player played in, newest first, and where they finished. Public, as the
    divisions' standings are."""
    player = accounts_selectors.player_get(username=username)
    if player is None:
        raise Http404(_("There is no such player."))
    context = {"player": player, "lines": leagues.league_history(player)}
    return render(request, "events/leagues/history.html", context)
