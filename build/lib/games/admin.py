"""Games, seats and logs in the admin: shown, never changed there. The log is the record of a
game and its cached state and seats follow from it (`manage.py check_game_logs`); an edit here
would bypass every rule the services keep (a player swapped into an active game, a log
rewritten). Where an operator must act on a game, an action calls the games' own service, in
its transaction, as the sweep's tasks do."""

from django.contrib import admin, messages
from django.db.models import QuerySet
from django.http import HttpRequest

from games import services
from games.models import Game, LogEntry, Seat


class ReadOnlyMixin:
    """Viewable by those with the view permission; added, changed and deleted by no one."""

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class SeatInline(ReadOnlyMixin, admin.TabularInline):
    model = Seat
    extra = 0
    fields = (
        "position",
        "kind",
        "user",
        "name",
        "invitation",
        "declined_by",
        "bot_level",
        "timeouts",
        "autoplay",
        "resigned_at",
        "final_score",
        "place",
        "rating_before",
        "rating_after",
        "deal_contribution",
    )
    readonly_fields = fields


class LogEntryInline(ReadOnlyMixin, admin.TabularInline):
    model = LogEntry
    extra = 0
    fields = ("number", "kind", "player", "data", "created_at")
    readonly_fields = fields


@admin.register(Game)
class GameAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("id", "status", "variant", "num_players", "ply", "created_by", "created_at")
    list_filter = ("status", "variant", "num_players", "is_study")
    search_fields = ("id", "created_by__username", "seats__user__username")
    # Every field but the deal seed, which no page shows before the game is over (not editable,
    # so in no form: the admin's view included).
    readonly_fields = (
        "id",
        "variant",
        "num_players",
        "status",
        "days_per_move",
        "created_by",
        "is_study",
        "rematch_of",
        "state",
        "ply",
        "first_player",
        "turn_deadline",
        "deal_commitment",
        "created_at",
        "started_at",
        "finished_at",
        "updated_at",
    )
    fields = readonly_fields
    inlines = [SeatInline, LogEntryInline]
    actions = ["play_overdue_turns", "play_computer_turns"]

    @admin.action(description="Play the moves of players whose time ran out")
    def play_overdue_turns(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        """What the sweep's task does for a passed deadline (`services.timeouts_play`), now: for
        a game whose task was lost. Does nothing to a game whose deadline has not passed."""
        games = list(queryset.values_list("pk", "ply"))
        played = sum(
            services.timeouts_play(game_id=pk, expected_ply=ply) is not None for pk, ply in games
        )
        self._report(request, played, len(games), "no player's time had run out")

    @admin.action(description="Play the computer's move where it is the computer's turn")
    def play_computer_turns(self, request: HttpRequest, queryset: QuerySet[Game]) -> None:
        """What the computer's task does (`services.computer_move_play`), now: for a game whose
        task was lost. Does nothing to a game where it is not the computer's turn."""
        games = list(queryset.values_list("pk", "ply"))
        played = sum(
            services.computer_move_play(game_id=pk, expected_ply=ply) is not None
            for pk, ply in games
        )
        self._report(request, played, len(games), "it was not the computer's turn")

    def _report(self, request: HttpRequest, played: int, chosen: int, why_not: str) -> None:
        level = messages.SUCCESS if played else messages.WARNING
        left = f"; in the other {chosen - played}, {why_not}" if played < chosen else ""
        self.message_user(request, f"Played in {played} of {chosen} game(s){left}.", level)


@admin.register(LogEntry)
class LogEntryAdmin(ReadOnlyMixin, admin.ModelAdmin):
    list_display = ("game", "number", "kind", "player", "created_at")
    list_filter = ("kind",)
    search_fields = ("game__id",)
    fields = ("game", "number", "kind", "player", "data", "created_at")
    readonly_fields = fields
