"""The leaderboard page: public, thin over `ratings.selectors`."""

from django.conf import settings
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET

from ratings import selectors
from ratings.forms import LeaderboardFilterForm


@require_GET
def leaderboard(request: HttpRequest) -> HttpResponse:
    form = LeaderboardFilterForm(request.GET)
    # A filter that is not one of the choices shows every kind of game (and says so).
    filters = form.cleaned_data if form.is_valid() else {}
    kind = {"variant": filters.get("variant") or None, "num_players": filters.get("players")}
    page = Paginator(selectors.leaderboard(**kind), selectors.PAGE_SIZE).get_page(
        request.GET.get("page")
    )
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "form": form,
        "page": page,
        "rows": selectors.leaderboard_rows(page.object_list, first_rank=page.start_index()),
        "me": selectors.leaderboard_standing(user=request.user, **kind),
        "min_games": selectors.min_games(),
        "min_opponents": selectors.min_opponents(),
        "pair_games_per_day": settings.RATINGS_PAIR_GAMES_PER_DAY,
        "pair_games_per_week": settings.RATINGS_PAIR_GAMES_PER_WEEK,
        # The filters, kept in the links to other pages.
        "query": query.urlencode(),
    }
    return render(request, "ratings/leaderboard.html", context)
