"""Ratings are written only by `ratings.services` (and `manage.py ratings_recompute --fix`):
the admin shows them, and changes nothing."""

from django.contrib import admin

from ratings.models import PlayerRecord, RatedGame, Rating


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
