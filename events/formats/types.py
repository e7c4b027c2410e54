"""The values the formats take and give: entrants, tables, rounds and table results.

Every one is a frozen dataclass of ids and numbers, so a format is a pure function of them: the
Django app turns its rows into these, calls a format, and writes back what it returns.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

Table = tuple[int, ...]
"""The entrant ids at one table, in seat order: the first moves first."""

TABLE_SIZES = (2, 3, 4)
"""Azul is played by 2, 3 or 4 at a table."""


def check_table_size(table_size: int) -> None:
    """Refuse a table size Azul is not played at."""
    if table_size not in TABLE_SIZES:
        raise ValueError(f"a table seats 2, 3 or 4 players, not {table_size}")


@dataclass(frozen=True)
class Entrant:
    """A player in an event: their id (the site's user id) and their rating when paired."""

    id: int
    rating: float


@dataclass(frozen=True)
class Round:
    """One round: its tables (each a tuple of entrant ids in seat order) and the entrants who sit
    it out (a Swiss bye, or a seed who goes straight on in an elimination).

    For a round robin "all at once" the whole schedule is one tuple of tables instead (a player
    sits at several tables at the same time), so this invariant is the rounds' own: nobody sits
    at two of a round's tables, nor at a table and on a bye.
    """

    tables: tuple[Table, ...]
    byes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        seated = [entrant for table in self.tables for entrant in table] + list(self.byes)
        twice = sorted(entrant for entrant, n in Counter(seated).items() if n > 1)
        if twice:
            raise ValueError(f"entrants {twice} are placed twice in one round")
        for table in self.tables:
            check_table_size(len(table))

    @property
    def entrants(self) -> frozenset[int]:
        """Everyone the round places, at a table or on a bye."""
        return frozenset(e for table in self.tables for e in table) | frozenset(self.byes)


@dataclass(frozen=True)
class TableResult:
    """How one table ended, seat by seat: `seats` in seat order (the first moved first), each
    seat's `placings` (1 for the winner) and the game's own `scores` (its final score).

    Placings are as the game decided them, its own tie-breaker (in Azul the most complete rows)
    already applied; entrants it could not separate share a placing, numbered as in sport: two
    sharing first place are both 1 and the next is 3 (1, 1, 3, 4). A shared place splits the
    points of the places it covers (`events.formats.scoring`).
    """

    seats: Table
    placings: tuple[int, ...]
    scores: tuple[int, ...]

    def __post_init__(self) -> None:
        check_table_size(len(self.seats))
        if len(set(self.seats)) != len(self.seats):
            raise ValueError(f"an entrant sits twice at table {self.seats}")
        if not len(self.placings) == len(self.scores) == len(self.seats):
            raise ValueError("a table result needs one placing and one score per seat")
        for placing in self.placings:
            better = sum(1 for other in self.placings if other < placing)
            if placing != better + 1:
                raise ValueError(
                    f"placings {self.placings} are not a ranking (1, 1, 3: shared places skip)"
                )

    def placing_of(self, entrant: int) -> int:
        return self.placings[self.seats.index(entrant)]

    def score_of(self, entrant: int) -> int:
        return self.scores[self.seats.index(entrant)]
