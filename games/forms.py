"""Forms of the game pages: creating a game and the no-JavaScript move form."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import get_user_model

DAYS_PER_MOVE = (1, 2, 3, 5, 7, 14)
SEAT_KINDS = [
    ("invite", "A player I name"),
    ("open", "Open seat (anyone may join)"),
    ("computer", "Computer player"),
]
OTHER_SEATS = (2, 3, 4)


class GameCreateForm(forms.Form):
    """A new game: size, wall, pace, and who sits in each seat besides the creator (seat 1)."""

    num_players = forms.TypedChoiceField(
        label="Players",
        choices=[(n, f"{n} players") for n in (2, 3, 4)],
        coerce=int,
        initial=2,
    )
    variant = forms.ChoiceField(
        label="Wall",
        choices=[
            ("colored", "Colored wall (standard)"),
            ("gray", "Gray wall (you choose where each tile goes)"),
        ],
        initial="colored",
        widget=forms.RadioSelect,
    )
    days_per_move = forms.TypedChoiceField(
        label="Time per move",
        choices=[(d, f"{d} day" if d == 1 else f"{d} days") for d in DAYS_PER_MOVE],
        coerce=int,
        initial=3,
    )

    def __init__(self, *args: Any, creator: Any = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.creator = creator
        for seat in OTHER_SEATS:
            self.fields[f"seat{seat}_kind"] = forms.ChoiceField(
                label=f"Seat {seat}",
                choices=SEAT_KINDS,
                initial="invite" if seat == 2 else "open",
                required=False,
            )
            self.fields[f"seat{seat}_username"] = forms.CharField(
                label=f"Seat {seat}: username",
                max_length=150,
                required=False,
                help_text="The player to invite.",
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
            kind = cleaned.get(f"seat{seat}_kind") or "open"
            username = (cleaned.get(f"seat{seat}_username") or "").strip()
            field = f"seat{seat}_username"
            if kind == "invite":
                if not username:
                    self.add_error(field, "Name the player to invite, or choose another option.")
                    continue
                if self.creator is not None and username.lower() == self.creator.username.lower():
                    self.add_error(field, "You already sit in seat 1: invite someone else.")
                    continue
                if username.lower() in named:
                    self.add_error(
                        field, f"{username} is already invited to seat {named[username.lower()]}."
                    )
                    continue
                user = User.objects.filter(username__iexact=username, is_active=True).first()
                if user is None:
                    self.add_error(field, f"There is no player called “{username}”.")
                    continue
                named[username.lower()] = seat
                seats.append({"kind": "invite", "username": user.username})
            elif kind == "computer":
                seats.append({"kind": "computer", "level": "random"})
            else:
                seats.append({"kind": "open"})
        cleaned["seats"] = seats
        return cleaned


class MoveForm(forms.Form):
    """The page's plain move form: a legal move in notation and the ply it was chosen at."""

    move = forms.CharField(max_length=64)
    expected_ply = forms.IntegerField(min_value=0)
