from django import forms

from games.models import Game


class LeaderboardFilterForm(forms.Form):
    variant = forms.ChoiceField(
        choices=[("", "Any variant"), *Game.Variant.choices], required=False
    )
    players = forms.TypedChoiceField(
        choices=[("", "Any number of players"), *((n, f"{n} players") for n in (2, 3, 4))],
        coerce=int,
        empty_value=None,
        required=False,
    )
