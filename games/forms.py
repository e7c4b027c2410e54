"""Forms of the game pages: creating a game and the no-JavaScript move form."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from django import forms
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from games.models import Seat
from games.presenters.levels import bot_levels
from games.services import DAYS_PER_MOVE, PLAYER_COUNTS, SeatProblem, SeatSpec, seat_problems

if TYPE_CHECKING:
    from django_stubs_ext import StrOrPromise

# The seats besides the creator's (seat 1), as players number them.
OTHER_SEATS = tuple(range(2, max(PLAYER_COUNTS) + 1))

DEFAULT_BOT_LEVEL = Seat.BotLevel.MEDIUM
DEFAULT_SEAT_KIND = f"computer:{DEFAULT_BOT_LEVEL}"


def seat_kind_choices() -> list[tuple[StrOrPromise, Any]]:
    """A seat's choices, grouped: every computer level, then people. Each level's name only:
    how well it plays is said under the list (a whole sentence would be cut off in it on a
    phone), and listed above it (`bot_levels`)."""
    computers = [
        (level["choice"], _("Computer (%(level)s)") % {"level": level["label"].lower()})
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
        choices=[(n, n) for n in PLAYER_COUNTS],  # labelled in the request's language (__init__)
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
        cast(forms.TypedChoiceField, self.fields["num_players"]).choices = [
            (n, _("%(n)d players") % {"n": n}) for n in PLAYER_COUNTS
        ]
        cast(forms.TypedChoiceField, self.fields["days_per_move"]).choices = [
            (d, ngettext("%(days)d day", "%(days)d days", d) % {"days": d}) for d in DAYS_PER_MOVE
        ]
        choices = seat_kind_choices()
        for seat in OTHER_SEATS:
            self.fields[f"seat{seat}_kind"] = SeatKindField(
                label=_("Seat %(seat)d") % {"seat": seat},
                choices=choices,
                initial=DEFAULT_SEAT_KIND,
                required=False,
                widget=forms.Select(attrs={"aria-describedby": f"seat{seat}_level"}),
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
        """The seats, checked as the service checks them (`services.seat_problems`), each
        problem said under its seat's username field."""
        super().clean()
        cleaned = self.cleaned_data
        num_players = cleaned.get("num_players")
        if not num_players:
            return cleaned
        specs: list[SeatSpec] = []
        for seat in OTHER_SEATS[: num_players - 1]:
            kind = cleaned.get(f"seat{seat}_kind") or DEFAULT_SEAT_KIND
            if kind.startswith("computer:"):
                specs.append(SeatSpec(kind="computer", level=kind.partition(":")[2]))
            elif kind == "invite":
                username = cleaned.get(f"seat{seat}_username") or ""
                specs.append(SeatSpec(kind="invite", username=username))
            else:
                specs.append(SeatSpec(kind="open"))
        resolved, problems = seat_problems(creator=self.creator, seats=specs)
        for problem in problems:
            self.add_error(f"seat{problem.number}_username", _seat_problem_text(problem))
        cleaned["seats"] = [
            {"kind": "invite", "username": user.get_username()}
            if user is not None
            else {"kind": "computer", "level": spec.level}
            if spec.kind == "computer"
            else {"kind": "open"}
            for spec, user in resolved
        ]
        return cleaned


def _seat_problem_text(problem: SeatProblem) -> str:
    """What the form says of a problem with a seat, under the seat's username field."""
    if problem.code == "no_username":
        return str(_("Name the player to invite, or choose another option."))
    if problem.code == "self":
        return str(_("You already sit in seat 1: invite someone else."))
    if problem.code == "already_invited":
        return str(_("%(name)s is already invited to seat %(seat)d.")) % {
            "name": problem.name,
            "seat": problem.invited_at,
        }
    if problem.code == "unknown_player":
        return str(_("There is no player called “%(name)s”.")) % {"name": problem.name}
    return problem.message


class MoveForm(forms.Form):
    """The page's plain move form: a legal move in notation and the ply it was chosen at."""

    move = forms.CharField(max_length=64)
    expected_ply = forms.IntegerField(min_value=0)
