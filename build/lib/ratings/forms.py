from django import forms
from django.utils.functional import lazy
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from games.models import Game


def _players_label(count: int) -> str:
    return ngettext("%(count)d player", "%(count)d players", count) % {"count": count}


class LeaderboardFilterForm(forms.Form):
    variant = forms.ChoiceField(
        choices=[("", _("Any variant")), *Game.Variant.choices], required=False
    )
    players = forms.TypedChoiceField(
        choices=[
            ("", _("Any number of players")),
            *((n, lazy(_players_label, str)(n)) for n in (2, 3, 4)),
        ],
        coerce=int,
        empty_value=None,
        required=False,
    )
    computers = forms.BooleanField(required=False, label=_("Show the computer levels"))
