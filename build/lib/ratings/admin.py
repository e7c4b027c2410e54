"""Ratings are written only by `ratings.services` (and `manage.py ratings_recompute --fix`,
`manage.py rate_levels`):
the admin shows them, and changes nothing."""

from django.contrib import admin
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.urls import path

from ratings import selectors
from ratings.models import LevelRating, PlayerRecord, RatedGame, Rating


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Rating)
class RatingAdmin(ReadOnlyAdmin):
    list_display = ("user", "rating", "mu", "sigma", "updated_at")
    list_select_related = ("user",)
    ordering = ("-rating",)
    search_fields = ("user__username",)

    def get_urls(self):
        view = self.admin_site.admin_view(self.lopsided_pairs_view)
        return [
            path("lopsided-pairs/", view, name="ratings_lopsided_pairs"),
            *super().get_urls(),
        ]

    def lopsided_pairs_view(self, request: HttpRequest) -> TemplateResponse:
        """Pairs of players with many games together, nearly all won by one of them (a player
        farming a second account): linked from the ratings list."""
        context = {
            **self.admin_site.each_context(request),
            "title": "Lopsided pairs",
            "opts": self.model._meta,
            "pairs": selectors.lopsided_pairs(),
        }
        return TemplateResponse(request, "admin/ratings/lopsided_pairs.html", context)


@admin.register(PlayerRecord)
class PlayerRecordAdmin(ReadOnlyAdmin):
    list_display = ("user", "variant", "num_players", "games", "wins", "rating")
    list_filter = ("variant", "num_players")
    list_select_related = ("user",)
    search_fields = ("user__username",)


@admin.register(RatedGame)
class RatedGameAdmin(ReadOnlyAdmin):
    list_display = ("game", "rated_at")
    ordering = ("-rated_at",)


@admin.register(LevelRating)
class LevelRatingAdmin(ReadOnlyAdmin):
    list_display = ("level", "rating", "mu", "sigma", "games", "people", "updated_at")
    ordering = ("-rating",)
