"""The staff's leagues: a league created and edited here (leagues are the site's), its first
season started by an action; seasons listed, and one that is over rolled over by an action
(the sweep does it within a minute anyway)."""

from __future__ import annotations

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from events import leagues
from events.errors import EventError
from events.models import League, Season


@admin.register(League)
class LeagueAdmin(admin.ModelAdmin):
    list_display = ["name", "slug", "table_size", "division_size", "movers", "season_days"]
    prepopulated_fields = {"slug": ("name",)}
    search_fields = ["name", "slug"]
    actions = ["start_season"]

    @admin.action(description=gettext_lazy("Start a season (members placed by rating)"))
    def start_season(self, request: HttpRequest, queryset: QuerySet[League]) -> None:
        for league in queryset:
            try:
                season = leagues.season_start(league=league)
            except EventError as exc:
                messages.error(request, f"{league}: {exc.message}")
            else:
                messages.success(
                    request,
                    _("%(league)s: season %(number)s started.")
                    % {"league": league, "number": season.number},
                )


@admin.register(Season)
class SeasonAdmin(admin.ModelAdmin):
    list_display = ["league", "number", "starts_at", "ends_at", "closed_at"]
    list_filter = ["league"]
    readonly_fields = ["league", "number", "starts_at", "closed_at"]
    actions = ["roll_over"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False  # seasons are formed by `season_start` and the rollover, never by hand

    @admin.action(description=gettext_lazy("Roll over the seasons that are over"))
    def roll_over(self, request: HttpRequest, queryset: QuerySet[Season]) -> None:
        for season in queryset:
            nxt = leagues.season_rollover(season_id=season.pk)
            if nxt is None:
                messages.warning(
                    request,
                    _("%(season)s: not over yet, or too few members left for another.")
                    % {"season": season},
                )
            else:
                messages.success(
                    request,
                    _("%(season)s: season %(number)s formed.")
                    % {"season": season, "number": nxt.number},
                )
