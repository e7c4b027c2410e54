"""Forms of the game pages: creating a game and the no-JavaScript move form."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from azul.ai.bots import LEVELS
from games.models import Seat

DAYS_PER_MOVE = (1, 2, 3, 5, 7, 14)
OTHER_SEATS = (2, 3, 4)

# What a player can expect of each computer level, in one line (games/engine/BOTS.md says how
# they play). The figures are 2-player games on the colored wall, one second a move, measured
# with `python -m tools.arena`: random scored 0.6 a game on average against greedy (40
# games, all lost), medium won 39 of 40 against greedy (1 tie), strong 20 of 20 against greedy
# and 13 of 20 against medium.
BOT_LEVEL_DESCRIPTIONS = {
    "random": _("plays any legal move and scores next to nothing: for learning the controls"),
    "greedy": _("takes the most points now and never looks ahead"),
    "medium": _("looks a little ahead (a short search); beats greedy most games"),
    "strong": _("searches about a second a move; beats greedy nearly every game"),
    "master": _("searches four seconds a move: the strongest, and the slowest to answer"),
}
DEFAULT_BOT_LEVEL = Seat.BotLevel.MEDIUM
DEFAULT_SEAT_KIND = f"computer:{DEFAULT_BOT_LEVEL}"


def bot_level_description(level: str) -> str:
    """One line on how well `level` plays: ours, else the first sentence of the engine's own
    description (in English), for a level added to `Seat.BotLevel` after this list was
    written."""
    if level in BOT_LEVEL_DESCRIPTIONS:
        return str(BOT_LEVEL_DESCRIPTIONS[level])
    engine_level = LEVELS.get(level)
    if engine_level is not None and engine_level.description:
        sentence = engine_level.description.split(". ")[0].rstrip(".")
        return sentence[:1].lower() + sentence[1:]
    return str(_("a computer player"))


def bot_levels() -> list[dict[str, str]]:
    """The computer levels, weakest first, as the form offers them (read from `Seat.BotLevel`,
    so that a new level is offered without changing this form)."""
    return [
        {
            "value": level.value,
            "label": str(level.label),
            "description": bot_level_description(level.value),
            "choice": f"computer:{level.value}",
        }
        for level in Seat.BotLevel
    ]


def seat_kind_choices() -> list[tuple[str, Any]]:
    """A seat's choices, grouped: every computer level (with how well it plays), then people."""
    computers = [
        (
            level["choice"],
            _("Computer (%(level)s): %(description)s")
            % {"level": level["label"].lower(), "description": level["description"]},
        )
        for level in bot_levels()
    ]
    people = [("invite", _("A player I name")), ("open", _("Open seat (anyone may join)"))]
    return [(_("Computer player"), computers), (_("A person"), people)]


class SeatKindField(forms.ChoiceField):
    """A seat: `computer:<level>`, `invite` or `open`. A bare `computer` (what the form sent
    before it offered levels) is the default level."""

    def to_python(self, value: Any) -> str:
        value = super().to_python(value)
        return DEFAULT_SEAT_KIND if value == "computer" else value


class GameCreateForm(forms.Form):
    """A new game: size, wall, pace, and who sits in each seat besides the creator (seat 1).

    Submitted unchanged, it creates a 2-player game against the medium computer player, which
    starts at once: every other seat starts as a computer player, one choice away from an
    invitation or an open seat."""

    num_players = forms.TypedChoiceField(
        label=_("Players"),
        choices=[(n, n) for n in (2, 3, 4)],  # labelled in the request's language (__init__)
        coerce=int,
        initial=2,
    )
    variant = forms.ChoiceField(
        label=_("Wall"),
        choices=[
            ("colored", _("Colored wall (standard)")),
            ("gray", _("Gray wall (you choose where each tile goes)")),
        ],
        initial="colored",
        widget=forms.RadioSelect,
    )
    days_per_move = forms.TypedChoiceField(
        label=_("Time per move"),
        choices=[(d, d) for d in DAYS_PER_MOVE],  # labelled in __init__
        coerce=int,
        initial=3,
    )

    def __init__(self, *args: Any, creator: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.creator = creator
        # Labels with numbers in them, in the request's language.
        self.fields["num_players"].choices = [(n, _("%(n)d players") % {"n": n}) for n in (2, 3, 4)]
        self.fields["days_per_move"].choices = [
            (d, ngettext("%(days)d day", "%(days)d days", d) % {"days": d}) for d in DAYS_PER_MOVE
        ]
        choices = seat_kind_choices()
        for seat in OTHER_SEATS:
            self.fields[f"seat{seat}_kind"] = SeatKindField(
                label=_("Seat %(seat)d") % {"seat": seat},
                choices=choices,
                initial=DEFAULT_SEAT_KIND,
                required=False,
            )
            self.fields[f"seat{seat}_username"] = forms.CharField(
                label=_("Seat %(seat)d: username") % {"seat": seat},
                max_length=150,
                required=False,
                help_text=_("The player to invite: type the start of their name to search."),
            )

    def seat_fields(self) -> list[dict[str, Any]]:
        """Bound fields per seat, for the template."""
        return [
            {
                "number": seat,
                "kind": self[f"seat{seat}_kind"],
                "username": self[f"seat{seat}_username"],
            }
            for seat in OTHER_SEATS
        ]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        num_players = cleaned.get("num_players")
        if not num_players:
            return cleaned
        User = get_user_model()
        seats: list[dict[str, str]] = []
        named: dict[str, int] = {}
        for seat in OTHER_SEATS[: num_players - 1]:
            kind = cleaned.get(f"seat{seat}_kind") or DEFAULT_SEAT_KIND
            username = (cleaned.get(f"seat{seat}_username") or "").strip()
            field = f"seat{seat}_username"
            if kind == "invite":
                if not username:
                    self.add_error(field, _("Name the player to invite, or choose another option."))
                    continue
                if self.creator is not None and username.lower() == self.creator.username.lower():
                    self.add_error(field, _("You already sit in seat 1: invite someone else."))
                    continue
                if username.lower() in named:
                    message = _("%(name)s is already invited to seat %(seat)d.")
                    self.add_error(
                        field, message % {"name": username, "seat": named[username.lower()]}
                    )
                    continue
                user = User.objects.filter(username__iexact=username, is_active=True).first()
                if user is None:
                    self.add_error(
                        field, _("There is no player called “%(name)s”.") % {"name": username}
                    )
                    continue
                named[username.lower()] = seat
                seats.append({"kind": "invite", "username": user.username})
            elif kind.startswith("computer:"):
                seats.append({"kind": "computer", "level": kind.partition(":")[2]})
            else:
                seats.append({"kind": "open"})
        cleaned["seats"] = seats
        return cleaned


class MoveForm(forms.Form):
    """The page's plain move form: a legal move in notation and the ply it was chosen at."""

    move = forms.CharField(max_length=64)
    expected_ply = forms.IntegerField(min_value=0)
