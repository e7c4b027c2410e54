"""What the event page shows, shaped for its template: the rounds with their tables and results,
the standings with the players' names, and the crosstable as a grid. Reads through
`events.selectors` (and the tables' seats, for their scores and places)."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from accounts.models import User
from events import formats, selectors
from events.models import Bye, Entry, Event
from games.models import Seat

CROSSTABLE_MOST = 32
"""The most entrants whose crosstable the page draws (a grid of n x n cells): a round robin's
most; a larger Swiss shows its standings and rounds alone."""


@dataclass
class TableSeat:
    user: User | None
    score: int | None
    place: int | None


@dataclass
class TableShown:
    number: int
    game_id: Any
    finished: bool
    seats: list[TableSeat]


@dataclass
class RoundShown:
    number: int
    tables: list[TableShown] = field(default_factory=list)
    byes: list[User] = field(default_factory=list)


def rounds_shown(
    event: Event, results: dict[Any, formats.TableResult] | None = None
) -> list[RoundShown]:
    """The event's rounds, each with its tables (their players in the order they move, and how
    each did once the game ended: their score, and their place as the event counts it, a
    timeout a loss: `selectors.results_by_game`, passed in by a page that read it already) and
    its byes: three queries, five without `results`."""
    if results is None:
        results = selectors.results_by_game(event)
    tables = selectors.tables_of(event)
    seats: dict[Any, dict[Any, Seat]] = defaultdict(dict)
    for seat in Seat.objects.filter(game_id__in=[t.game_id for t in tables]).select_related(
        "user__profile"
    ):
        seats[seat.game_id][seat.user_id] = seat
    rounds: dict[int, RoundShown] = {}
    for table in tables:
        shown = rounds.setdefault(table.round, RoundShown(table.round))
        finished = table.game.status == table.game.Status.FINISHED
        by_user = seats[table.game_id]
        shown.tables.append(
            TableShown(
                number=table.number,
                game_id=table.game_id,
                finished=finished,
                seats=[
                    TableSeat(
                        user=by_user[u].user if u in by_user else None,
                        score=by_user[u].final_score if u in by_user and finished else None,
                        place=results[table.game_id].placing_of(u)
                        if table.game_id in results
                        else None,
                    )
                    for u in table.players
                ],
            )
        )
    for bye in Bye.objects.filter(event=event).select_related("user__profile").order_by("round"):
        rounds.setdefault(bye.round, RoundShown(bye.round)).byes.append(bye.user)
    return [rounds[n] for n in sorted(rounds)]


@dataclass
class CrossRow:
    number: int
    user: User
    cells: list[list[str] | None]
    """One cell per column: each meeting's "score–score", the row player's first (None on the
    diagonal, the player against themself)."""


def crosstable_shown(
    event: Event,
    lines: list[selectors.StandingsLine],
    *,
    entries: list[Entry] | None = None,
    results: list[formats.TableResult] | None = None,
) -> list[CrossRow] | None:
    """The crosstable as rows in the standings' order, with a column per entrant in the same
    order; None when the event is too large for a grid (`CROSSTABLE_MOST`). `entries` and
    `results` as for `selectors.crosstable_of`."""
    if len(lines) > CROSSTABLE_MOST:
        return None
    cross = selectors.crosstable_of(event, entries=entries, results=results)
    order = [line.user.pk for line in lines]
    rows = []
    for number, line in enumerate(lines, 1):
        met = cross.get(line.user.pk, {})
        cells: list[list[str] | None] = [
            None
            if other == line.user.pk
            else [f"{m.score}–{m.opponent_score}" for m in met.get(other, ())]
            for other in order
        ]
        rows.append(CrossRow(number=number, user=line.user, cells=cells))
    return rows


def has_results(lines: list[selectors.StandingsLine]) -> bool:
    """Whether anyone has played a game or had a bye yet (before that the standings say
    nothing)."""
    return any(line.row.played or line.row.byes for line in lines)
