"""A new game's settings and their one check, which the new-game form, the API's input and
`setup.game_create` share: the form and the API word what is wrong in their own way
(`SeatProblem.code`), the service raises its own message."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from accounts.models import User
from accounts.selectors import player_get
from games.errors import InvalidAction
from games.models import DAYS_PER_MOVE_CHOICES, Game, Seat

PLAYER_COUNTS = (2, 3, 4)
DAYS_PER_MOVE = tuple(d for d, _ in DAYS_PER_MOVE_CHOICES)
BOT_LEVELS = tuple(Seat.BotLevel.values)
SEAT_KINDS = ("invite", "open", "computer")

SeatKind = Literal["invite", "open", "computer"]


@dataclass(frozen=True)
class SeatSpec:
    """One seat other than the creator's: invite a named player, leave open, or a computer."""

    kind: SeatKind
    username: str | None = None
    level: str = Seat.BotLevel.RANDOM


SeatProblemCode = Literal[
    "not_a_seat",
    "no_username",
    "self",
    "already_invited",
    "unknown_player",
    "unknown_level",
    "unknown_kind",
]


@dataclass(frozen=True)
class SeatProblem:
    """What is wrong with one seat of a new game: `code` says what, for a page or the API to say
    in its own words; `message` is the service's. `number` is the seat's as players count them
    (the creator's is 1); `name` the username as given, and for `already_invited`,
    `invited_at` the number of the seat the player is invited to already."""

    number: int
    code: SeatProblemCode
    message: str
    name: str = ""
    invited_at: int = 0


def invitee_missing(kind: str, username: str | None) -> bool:
    """An invitation that names nobody."""
    return kind == "invite" and not (username or "").strip()


def seat_problems(
    *, creator: User | None, seats: list[Any]
) -> tuple[list[tuple[SeatSpec, User | None]], list[SeatProblem]]:
    """Check the seats of a new game besides the creator's (numbered from 2): each with the
    player it invites (None for an open or a computer seat), and what is wrong, at most one
    problem a seat, in seat order. One query per invitation (none for a name that is the
    creator's or invited already)."""
    resolved: list[tuple[SeatSpec, User | None]] = []
    problems: list[SeatProblem] = []
    invited: dict[str, int] = {}  # lower-case username -> seat number

    def problem(number: int, code: SeatProblemCode, message: str, **more: Any) -> None:
        problems.append(SeatProblem(number=number, code=code, message=message, **more))

    for number, spec in enumerate(seats, 2):
        where = {"number": number}
        if not isinstance(spec, SeatSpec):
            problem(number, "not_a_seat", _("Seat %(number)s: not a seat description.") % where)
        elif spec.kind == "invite":
            username = (spec.username or "").strip()
            named = {**where, "name": repr(username)}
            if invitee_missing(spec.kind, username):
                message = _("Seat %(number)s: name the player to invite.") % where
                problem(number, "no_username", message)
            elif creator is not None and username.lower() == creator.get_username().lower():
                message = _("Seat %(number)s: you cannot invite yourself.") % where
                problem(number, "self", message, name=username)
            elif username.lower() in invited:
                message = _("Seat %(number)s: %(name)s is already invited.") % named
                problem(
                    number,
                    "already_invited",
                    message,
                    name=username,
                    invited_at=invited[username.lower()],
                )
            elif (user := player_get(username=username)) is None:
                message = _("Seat %(number)s: there is no player called %(name)s.") % named
                problem(number, "unknown_player", message, name=username)
            else:
                invited[username.lower()] = number
                resolved.append((spec, user))
        elif spec.kind == "computer":
            if spec.level in BOT_LEVELS:
                resolved.append((spec, None))
            else:
                message = _(
                    "Seat %(number)s: unknown computer level %(level)s (levels: %(levels)s)."
                ) % {**where, "level": repr(spec.level), "levels": ", ".join(BOT_LEVELS)}
                problem(number, "unknown_level", message)
        elif spec.kind == "open":
            resolved.append((spec, None))
        else:
            message = _(
                "Seat %(number)s: the kind must be 'invite', 'open' or 'computer', not %(kind)s."
            ) % {**where, "kind": repr(spec.kind)}
            problem(number, "unknown_kind", message)
    return resolved, problems


def validate_settings(
    *, creator: User, num_players: Any, variant: Any, days_per_move: Any, seats: Any
) -> list[tuple[SeatSpec, User | None]]:
    """A new game's settings, checked: the other seats with the players they invite, or
    InvalidAction saying the first thing wrong."""
    if type(num_players) is not int or num_players not in PLAYER_COUNTS:
        raise InvalidAction(
            _("Azul is for 2, 3 or 4 players, not %(number)s.") % {"number": repr(num_players)}
        )
    if variant not in Game.Variant.values:
        raise InvalidAction(
            _("The variant must be 'colored' or 'gray', not %(variant)s.")
            % {"variant": repr(variant)}
        )
    if type(days_per_move) is not int or days_per_move not in DAYS_PER_MOVE:
        choices = ", ".join(str(d) for d in DAYS_PER_MOVE)
        raise InvalidAction(
            _("Days per move must be one of %(choices)s, not %(days)s.")
            % {"choices": choices, "days": repr(days_per_move)}
        )
    seats = list(seats)
    if len(seats) != num_players - 1:
        raise InvalidAction(
            ngettext(
                "A %(players)s-player game needs %(others)s other seat besides yours, not"
                " %(given)s.",
                "A %(players)s-player game needs %(others)s other seats besides yours, not"
                " %(given)s.",
                num_players - 1,
            )
            % {"players": num_players, "others": num_players - 1, "given": len(seats)}
        )
    resolved, problems = seat_problems(creator=creator, seats=seats)
    if problems:
        raise InvalidAction(problems[0].message)
    return resolved
