"""How a player and a seat are named: one rule for the pages, the replay, the emails and the
export.

A player is named by `player_name` (their display name, else their username; defined in
`accounts.names`, below games, so that accounts' own pages use the same rule). A seat is named
by whoever holds it (`seat_name`): its player, the name a study's export gave it, a computer at
its level, or, for a seat nobody holds yet, what the page calls an open or declined seat. A seat
the computer took over (after timeouts, or a resignation) keeps its player's name: the pages
mark it as played by the computer (`Seat.autoplay`) beside the name.
"""

from __future__ import annotations

from collections.abc import Iterable

from django.utils.translation import gettext as _

from accounts.names import player_name
from games.models import Seat

__all__ = ["computer_name", "player_name", "position_name", "seat_name", "seat_names"]


def computer_name(level: str) -> str:
    """A computer player as every page shows it: "Computer (greedy)", with its level's label in
    the active language (a level this site does not know is shown as it is stored)."""
    label = dict(Seat.BotLevel.choices).get(level, level)
    return _("Computer (%(level)s)") % {"level": str(label).lower()}


def position_name(position: int) -> str:
    """A seat known only by its position (0-based): "Player 1". A fallback for a position that
    no seat answers for."""
    return _("Player %(number)s") % {"number": position + 1}


def seat_name(seat: Seat, *, vacant: str | None = None) -> str:
    """What the other players call whoever holds `seat`.

    Its player (`player_name`; a pending invitation's invitee too); else the name a study's
    seat was given by its export (a study's seats belong to nobody, computers included); else a
    computer at its level; else the seat is empty: `vacant` when the caller words that itself
    (an email's "an open seat", in a sentence), otherwise "Invitation declined" or "Open seat".

    Needs `seat.user.profile` loaded with the seat (`Seat.with_players`, `Game.with_seats`) to
    make no query."""
    if seat.user is not None:
        return player_name(seat.user)
    if seat.name:
        return seat.name
    if seat.kind == Seat.Kind.COMPUTER:
        return computer_name(seat.bot_level)
    if vacant is not None:
        return vacant
    return _("Invitation declined") if seat.is_declined else _("Open seat")


def seat_names(seats: Iterable[Seat]) -> dict[int, str]:
    """Position -> `seat_name`, for the seats of one game (`game.seat_list`)."""
    return {seat.position: seat_name(seat) for seat in seats}
