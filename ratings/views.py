"""The leaderboard page: public, thin over `ratings.selectors`."""

from typing import Any

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_GET

from core.pages.pagination import CachedCountPaginator
from games.presenters.levels import bot_level_description
from ratings import presenters, selectors
from ratings.forms import LeaderboardFilterForm


def _with_levels(rows: list[dict[str, Any]], page: Any, kind: dict[str, Any]) -> list[dict]:
    """The page's rows with the computer levels that fall on it, each before the first player
    rated below it (the last page also holds those below everyone); players keep their ranks."""
    standings = selectors.level_ratings()
    places = selectors.leaderboard_level_places(standings, **kind)
    # The players' 0-based indexes on this page: [start, end).
    start, end = max(0, page.start_index() - 1), page.end_index()
    last = not page.has_next()
    out = list(rows)
    for standing in sorted(standings, key=lambda s: -s.rating):
        place = places[standing.level]  # players rated at least as high
        if not (start <= place < end or (last and place >= end)):
            continue
        row = {**presenters.level_row(standing), "is_computer": True}
        # After the players above it on this page, and the levels placed there before it.
        index = sum(1 for r in out if r.get("is_computer") or r["rank"] <= place)
        out.insert(index, row)
    return out


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    form = LeaderboardFilterForm(request.GET)
    # A filter that is not one of the choices shows every kind of game (and says so).
    filters = form.cleaned_data if form.is_valid() else {}
    kind = {"variant": filters.get("variant") or None, "num_players": filters.get("players")}
    paginator = CachedCountPaginator(
        selectors.leaderboard(**kind),
        selectors.PAGE_SIZE,
        count_key=selectors.leaderboard_count_key(**kind),
        count_seconds=selectors.LEADERBOARD_COUNT_SECONDS,
    )
    page = paginator.get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    rows = presenters.leaderboard_table(
        selectors.leaderboard_rows(page.object_list, first_rank=page.start_index())
    )
    if filters.get("computers"):
        rows = _with_levels(rows, page, kind)
    context = {
        "form": form,
        "page": page,
        "rows": rows,
        "me": selectors.leaderboard_standing(user=request.user, **kind),
        "levels_url": reverse("ratings:levels"),
        "min_games": selectors.min_games(),
        "min_opponents": selectors.min_opponents(),
        "pair_games_per_day": settings.RATINGS_PAIR_GAMES_PER_DAY,
        "pair_games_per_week": settings.RATINGS_PAIR_GAMES_PER_WEEK,
        # The filters, kept in the links to other pages.
        "query": query.urlencode(),
    }
    return render(request, "ratings/leaderboard.html", context)


@require_GET
def levels_page(request: HttpRequest) -> HttpResponse:
    """Every computer level's rating on the players' scale (public)."""
    mine = selectors.player_skill(user=request.user)
    rows = []
    for standing in selectors.level_ratings():
        row = presenters.level_row(standing)
        row["description"] = bot_level_description(standing.level)
        if mine is not None:
            row["chance"] = presenters.chance_against(standing, mine.mu, mine.sigma)
        rows.append(row)
    my_rating = None if mine is None else mine.rating
    return render(request, "ratings/levels.html", {"rows": rows, "my_rating": my_rating})


@require_GET
def level_page(request: HttpRequest, level: str) -> HttpResponse:
    """A computer level's own page: its rating, its record against people, and the calibration
    arena's results against its neighbours (public)."""
    standing = selectors.level_standing(level=level)
    if standing is None:
        raise Http404("No such computer level.")
    mine = selectors.player_skill(user=request.user)
    context = {
        "level": presenters.level_row(standing),
        "description": bot_level_description(level),
        "steps": [presenters.step_row(level, run) for run in selectors.level_steps(level=level)],
        "chance": None
        if mine is None
        else presenters.chance_against(standing, mine.mu, mine.sigma),
        "my_rating": None if mine is None else mine.rating,
        "games_per_person": settings.RATINGS_LEVEL_GAMES_PER_PERSON,
        "min_opponents": selectors.min_opponents(),
    }
    return render(request, "ratings/level.html", context)
