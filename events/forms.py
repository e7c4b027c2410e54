"""Forms of the events' pages: the list's filters and a new event's settings.

The new event's form checks what a form can (numbers are numbers, a choice is one of its
choices, within what the columns hold); what makes an event possible (a size for its format, a
start in the future, rounds for a Swiss) the service decides (`services.settings_problem`), and
the page shows its answer beside the field it names."""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

from events.models import CODE_MAX, DESCRIPTION_MAX, ENTRANTS_MAX, NAME_MAX, Event
from events.services import SWISS_ROUNDS_MAX, EventSettings
from games.models import DAYS_PER_MOVE_CHOICES, Game

# The list's tabs, in the order shown: the statuses a player looks for.
LIST_TABS = (Event.Status.REGISTRATION, Event.Status.RUNNING, Event.Status.FINISHED)
TABLE_SIZES = (2, 3, 4)
# Ratings are shown between a few hundred and a few thousand; the column holds up to 32767.
RATING_MOST = 4000
GAMES_MOST = 10_000


def _players_choices() -> list[tuple[Any, Any]]:
    return [(n, _("%(n)d players") % {"n": n}) for n in TABLE_SIZES]


class EventListFilterForm(forms.Form):
    """The events list's filters (`?status=...&format=...&players=...`); every one optional."""

    status = forms.ChoiceField(
        label=_("Status"),
        choices=[(s.value, s.label) for s in LIST_TABS],
        required=False,
        widget=forms.HiddenInput,
    )
    format = forms.ChoiceField(
        label=_("Format"),
        choices=[("", _("Any format")), *Event.Format.choices],
        required=False,
    )
    players = forms.TypedChoiceField(
        label=_("Players per table"),
        choices=[("", _("Any number of players"))],  # the rest in __init__, in the language
        coerce=int,
        empty_value=None,
        required=False,
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        players = self.fields["players"]
        assert isinstance(players, forms.TypedChoiceField)
        players.choices = [("", _("Any number of players")), *_players_choices()]


class DateTimeInput(forms.DateTimeInput):
    """A date and time picker (`<input type="datetime-local">`), in the player's time zone."""

    input_type = "datetime-local"

    def __init__(self) -> None:
        super().__init__(format="%Y-%m-%dT%H:%M")


class EventCreateForm(forms.Form):
    """A new event's settings (`services.EventSettings`)."""

    name = forms.CharField(label=_("Name"), max_length=NAME_MAX)
    description = forms.CharField(
        label=_("Description"),
        max_length=DESCRIPTION_MAX,
        required=False,
        widget=forms.Textarea(attrs={"rows": 4}),
    )
    format = forms.ChoiceField(
        label=_("Format"),
        choices=Event.Format.choices,
        initial=Event.Format.SWISS,
        help_text=_(
            "Swiss: round by round, each against players of the same score. Round robin: every"
            " table of the schedule starts at once, each player meeting every other. Elimination:"
            " the best of each table go on, until a final table."
        ),
    )
    table_size = forms.TypedChoiceField(
        label=_("Players per table"), choices=[], coerce=int, initial=2
    )
    variant = forms.ChoiceField(
        label=_("Wall"),
        choices=Game.Variant.choices,
        initial=Game.Variant.COLORED,
        widget=forms.RadioSelect,
    )
    days_per_move = forms.TypedChoiceField(
        label=_("Time per move"),
        choices=DAYS_PER_MOVE_CHOICES,
        coerce=int,
        initial=3,
        help_text=_(
            "Each player has this long for each move; a player whose time runs out loses the game."
        ),
    )
    rated = forms.BooleanField(label=_("Rated"), required=False, initial=True)
    max_entrants = forms.IntegerField(
        label=_("Most players"),
        min_value=2,
        max_value=ENTRANTS_MAX,
        initial=8,
        help_text=_("A round robin takes 3 to 32 players; a Swiss or an elimination up to 1000."),
    )
    rating_min = forms.IntegerField(
        label=_("Lowest rating"),
        min_value=0,
        max_value=RATING_MOST,
        required=False,
        help_text=_("Leave empty for no limit."),
    )
    rating_max = forms.IntegerField(
        label=_("Highest rating"),
        min_value=0,
        max_value=RATING_MOST,
        required=False,
        help_text=_("Leave empty for no limit."),
    )
    min_games = forms.IntegerField(
        label=_("Games finished at least"), min_value=0, max_value=GAMES_MOST, initial=0
    )
    invitation_code = forms.CharField(
        label=_("Invitation code"),
        max_length=CODE_MAX,
        required=False,
        strip=True,
        help_text=_(
            "Leave empty for an event anyone may enter; with a code, only those you give it to can."
        ),
    )
    starts_at = forms.DateTimeField(
        label=pgettext_lazy("when an event starts", "Start"),
        required=False,
        widget=DateTimeInput(),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"],
        help_text=_(
            "In your time zone, within 90 days. Leave empty to start as soon as the event is full."
        ),
    )
    rounds = forms.IntegerField(
        label=_("Rounds (Swiss)"),
        min_value=1,
        max_value=SWISS_ROUNDS_MAX,
        required=False,
        help_text=_("For a Swiss: how many rounds are played."),
    )
    advance = forms.IntegerField(
        label=_("Players who go on from each table (elimination)"),
        min_value=1,
        max_value=max(TABLE_SIZES) - 1,
        required=False,
        help_text=_("For an elimination: how many of each table go on to the next stage."),
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        table_size = self.fields["table_size"]
        assert isinstance(table_size, forms.TypedChoiceField)
        table_size.choices = _players_choices()
        if not self.is_bound:
            self.initial.setdefault("rounds", 3)
            self.initial.setdefault("advance", 1)

    def event_settings(self) -> EventSettings:
        """The cleaned fields as the service takes them (after `is_valid`)."""
        data = self.cleaned_data
        return EventSettings(
            name=data["name"],
            description=data["description"],
            format=data["format"],
            table_size=data["table_size"],
            variant=data["variant"],
            days_per_move=data["days_per_move"],
            rated=data["rated"],
            max_entrants=data["max_entrants"],
            rating_min=data["rating_min"],
            rating_max=data["rating_max"],
            min_games=data["min_games"] or 0,
            invitation_code=data["invitation_code"],
            starts_at=data["starts_at"],
            rounds=data["rounds"],
            advance=data["advance"],
        )
