"""The filters of the history of finished games, shared by the history page and the game API
(`GET /api/games/?status=finished&player=...`)."""

from __future__ import annotations

from typing import Any

import django_filters
from django import forms
from django.db.models import Exists, OuterRef, QuerySet
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from accounts.selectors import players_named
from games.models import Game, Seat

RESULT_CHOICES = [
    ("won", _("Won (first place alone)")),
    ("shared", _("Shared first place")),
    ("lost", _("Lost (any other place)")),
]


def _players_label(count: int) -> str:
    return ngettext("%(count)d player", "%(count)d players", count) % {"count": count}


class DateInput(forms.DateInput):
    """A date picker (`<input type="date">`), which sends and shows the date as 2026-11-25."""

    input_type = "date"

    def __init__(self) -> None:
        super().__init__(format="%Y-%m-%d")


# The query parameters that ask the game API for the public history rather than the caller's
# own games (with `status=finished`).
HISTORY_PARAMS = ("player", "variant", "players", "result", "finished_after", "finished_before")


class GameHistoryFilter(django_filters.FilterSet):
    """Finished games narrowed by player (username or display name, any letter case), variant,
    number of players, the player's result (needs `player`; ignored without it) and the day
    they ended (from and to, inclusive)."""

    # Names suggested as they are typed, as in the invitation's boxes (base.html's datalist,
    # for a signed-in player: static/games/player_search.js).
    player = django_filters.CharFilter(
        method="filter_player",
        label=_("Player"),
        widget=forms.TextInput(attrs={"list": "player-suggestions", "autocomplete": "off"}),
    )
    # Each choice offers "any" first, worded as the leaderboard's filters word it, and chosen
    # when the parameter is absent: a search by player alone finds games of any size.
    variant = django_filters.ChoiceFilter(
        choices=Game.Variant.choices, empty_label=_("Any variant"), label=_("Variant")
    )
    players = django_filters.TypedChoiceFilter(
        field_name="num_players",
        choices=[("", _("Any number of players"))]
        + [(n, lazy(_players_label, str)(n)) for n in (2, 3, 4)],
        coerce=int,
        empty_value=None,
        label=_("Players"),
    )
    result = django_filters.ChoiceFilter(
        choices=RESULT_CHOICES,
        empty_label=_("Any result"),
        method="filter_result",
        label=_("Result for the player"),
    )
    finished_after = django_filters.DateFilter(
        field_name="finished_at",
        lookup_expr="date__gte",
        widget=DateInput(),
        label=_("Ended on or after"),
    )
    finished_before = django_filters.DateFilter(
        field_name="finished_at",
        lookup_expr="date__lte",
        widget=DateInput(),
        label=_("Ended on or before"),
    )

    class Meta:
        model = Game
        fields: list[str] = []

    @classmethod
    def of_player(cls, player: Any, queryset: QuerySet) -> GameHistoryFilter:
        """The filter on one player already found (a player's page): their games, without
        looking their name up again."""
        history = cls({"player": player.get_username()}, queryset=queryset)
        history._player_ids = [player.pk]
        return history

    def player_ids(self) -> list[Any]:
        """The players `player` names (their username or the display name every page shows,
        any letter case), looked up once: the games' query then reads seats by user, along
        their index, rather than joining users and profiles for every seat."""
        if not hasattr(self, "_player_ids"):
            self._player_ids = players_named(name=self.form.cleaned_data.get("player") or "")
        return self._player_ids

    def count_filters(self) -> dict[str, Any]:
        """What the number of games selected depends on (`selectors.history_count_key`): the
        filters, with the players the name names now (a display name may change hands)."""
        chosen = dict(self.form.cleaned_data)
        if chosen.get("player"):
            chosen["player"] = sorted(str(pk) for pk in self.player_ids())
        return chosen

    def _player_seats(self) -> QuerySet:
        return Seat.objects.filter(game=OuterRef("pk"), user_id__in=self.player_ids())

    def filter_player(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        if not value:
            return queryset
        return queryset.filter(Exists(self._player_seats()))

    def filter_result(self, queryset: QuerySet, name: str, value: str) -> QuerySet:
        if not value or not self.form.cleaned_data.get("player"):
            return queryset
        seats = self._player_seats()
        # Another seat of the same game in first place: a shared first place.
        other_first = Seat.objects.filter(game=OuterRef("game"), place=1).exclude(pk=OuterRef("pk"))
        if value == "won":
            seats = seats.filter(place=1).exclude(Exists(other_first))
        elif value == "shared":
            seats = seats.filter(place=1).filter(Exists(other_first))
        else:
            seats = seats.filter(place__gt=1)
        return queryset.filter(Exists(seats))
