"""How a player and a seat are named: one rule for the pages, the replay, the emails and the
export.

A player is named by `player_name` (their display name, else their username; defined in
`accounts.names`, below games, so that accounts' own pages use the same rule). A seat is named
by whoever holds it (`seat_name`): its player, the name a study's export gave it, a computer at
its level, or, for a seat nobody holds yet, what the page calls an open or declined seat. A seat
the computer took over (after timeouts, or a resignation) keeps its player's name: the pages
mark it as played by the computer (`Seat.autoplay`) beside the name. Among a game's seats
(`seat_names`), computers of the same level are numbered in seat order ("Computer (random) 1",
"Computer (random) 2"), so that each name is one seat's; and a game is named by who plays it
(`game_title`: "alice v Computer (greedy), round 3").
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence

from django.utils.translation import gettext as _

from accounts.names import player_name, public_username
from games.models import Game, Seat

__all__ = [
    "computer_name",
    "game_title",
    "player_name",
    "players_title",
    "position_name",
    "public_username",
    "seat_name",
    "seat_names",
]


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


def _computer_at_level(seat: Seat) -> bool:
    """A seat named by its computer level alone (not a study's seat, named by its export)."""
    return seat.kind == Seat.Kind.COMPUTER and seat.user is None and not seat.name


def seat_names(seats: Iterable[Seat]) -> dict[int, str]:
    """Position -> `seat_name`, for the seats of one game (`game.seat_list`), where computers
    of a level that plays more than one seat are numbered in seat order: "Computer (random) 1",
    "Computer (random) 2"."""
    seats = list(seats)
    levels = Counter(seat.bot_level for seat in seats if _computer_at_level(seat))
    numbered: Counter[str] = Counter()
    names = {}
    for seat in sorted(seats, key=lambda s: s.position):
        name = seat_name(seat)
        if _computer_at_level(seat) and levels[seat.bot_level] > 1:
            numbered[seat.bot_level] += 1
            name = f"{name} {numbered[seat.bot_level]}"
        names[seat.position] = name
    return names


def players_title(names: Sequence[str]) -> str:
    """Who plays a game, in seat order: "alice v bob v Computer (strong)"."""
    if not names:
        return ""
    title = names[0]
    for name in names[1:]:
        title = _("%(players)s v %(player)s") % {"players": title, "player": name}
    return title


def game_title(names: Sequence[str], *, status: str, round_number: int | None = None) -> str:
    """A game's title, as its page and its board's heading say it: who plays it (`names`, in
    seat order: `seat_names`' values) and where it is: "alice v Computer (greedy), round 3",
    "alice v bob, finished"."""
    players = players_title(names)
    if status == Game.Status.ACTIVE and round_number:
        return _("%(players)s, round %(round)s") % {"players": players, "round": round_number}
    if status == Game.Status.FINISHED:
        return _("%(players)s, finished") % {"players": players}
    if status == Game.Status.ABORTED:
        return _("%(players)s, cancelled") % {"players": players}
    if status == Game.Status.OPEN:
        return _("%(players)s, waiting for players") % {"players": players}
    return players
