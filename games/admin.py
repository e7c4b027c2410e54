from django.contrib import admin

from games.models import Game, LogEntry, Seat


class SeatInline(admin.TabularInline):
    model = Seat
    extra = 0
    fields = ("position", "kind", "user", "invitation", "bot_level", "final_score", "place")
    readonly_fields = ("final_score", "place")
    raw_id_fields = ("user",)


class LogEntryInline(admin.TabularInline):
    """The log is the record of the game: shown, never edited here."""

    model = LogEntry
    extra = 0
    fields = ("number", "kind", "player", "data", "created_at")
    readonly_fields = fields
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("id", "status", "variant", "num_players", "ply", "created_by", "created_at")
    list_filter = ("status", "variant", "num_players")
    search_fields = ("id", "created_by__username", "seats__user__username")
    readonly_fields = (
        "id",
        "state",
        "ply",
        "first_player",
        # The commitment only: the seed (not editable) is in no form, the admin's included.
        "deal_commitment",
        "created_at",
        "started_at",
        "finished_at",
        "updated_at",
    )
    raw_id_fields = ("created_by",)
    inlines = [SeatInline, LogEntryInline]


@admin.register(LogEntry)
class LogEntryAdmin(admin.ModelAdmin):
    list_display = ("game", "number", "kind", "player", "created_at")
    list_filter = ("kind",)
    search_fields = ("game__id",)
    readonly_fields = ("game", "number", "kind", "player", "data", "created_at")

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False
