"""Points per table placing, standings with their tie-breaks, and the crosstable.

Points: at a table of n, place p is worth n - p (4 players: 3/2/1/0; 3 players: 2/1/0; 2 players:
1/0). Entrants who share a place split the points of the places they cover: two sharing first
at a 4-player table cover places 1 and 2, (3 + 2) / 2 = 2.5 each; a drawn 2-player game is 0.5
each. A bye is worth `bye_points` (by default a win at the event's table size, as a Swiss bye is
in chess: the lowest-ranked gets it, so it rarely lifts anyone above a winner).

Standings order entrants by, in turn:

1. points;
2. opponents' points: the sum, over every table an entrant sat at, of the points of each
   opponent there (an opponent met twice counts twice; a bye adds nothing). It rewards having
   met the strong, as the Buchholz score does in chess;
3. the sum of the entrant's own game scores (Azul's final scores);
4. direct meetings, among the entrants still level on all of the above only: at each table where
   two of them sat, the one placed better gets 1, a shared place 0.5 each. This is the only
   tie-break that depends on who else is level, so it comes last.

Entrants level on all four share a rank (listed by rating, then id, for a steady order).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from .types import Entrant, TableResult, check_table_size


def place_points(table_size: int, placing: int, shared: int = 1) -> float:
    """The points of `placing` at a table of `table_size`, shared by `shared` entrants: the mean
    of the points of the places they cover (placing .. placing + shared - 1)."""
    check_table_size(table_size)
    if not 1 <= placing <= placing + shared - 1 <= table_size:
        raise ValueError(f"no place {placing} shared by {shared} at a table of {table_size}")
    covered = range(placing, placing + shared)
    return sum(table_size - p for p in covered) / shared


def table_points(result: TableResult) -> dict[int, float]:
    """Each seated entrant's points from one table."""
    size = len(result.seats)
    return {
        entrant: place_points(size, placing, result.placings.count(placing))
        for entrant, placing in zip(result.seats, result.placings, strict=True)
    }


@dataclass(frozen=True)
class Meeting:
    """One table from one entrant's side of the crosstable, against one opponent."""

    table: int
    """The index of the table result in the results given."""
    placing: int
    opponent_placing: int
    score: int
    opponent_score: int
    points: float
    """What the entrant scored at that table (not against that opponent alone)."""


Crosstable = dict[int, dict[int, tuple[Meeting, ...]]]
"""entrant -> opponent -> each table at which they met, in the order of the results."""


def crosstable(entrants: Iterable[Entrant], results: Sequence[TableResult]) -> Crosstable:
    """Who met whom and how each table went, for every entrant (with an empty row for one who
    has not played yet)."""
    cells: dict[int, dict[int, list[Meeting]]] = {e.id: defaultdict(list) for e in entrants}
    for index, result in enumerate(results):
        points = table_points(result)
        for entrant, placing, score in zip(
            result.seats, result.placings, result.scores, strict=True
        ):
            row = cells.setdefault(entrant, defaultdict(list))
            for opponent, their_placing, their_score in zip(
                result.seats, result.placings, result.scores, strict=True
            ):
                if opponent != entrant:
                    row[opponent].append(
                        Meeting(index, placing, their_placing, score, their_score, points[entrant])
                    )
    return {
        entrant: {opponent: tuple(meetings) for opponent, meetings in row.items()}
        for entrant, row in cells.items()
    }


@dataclass(frozen=True)
class StandingsRow:
    """An entrant's line of the standings, with every tie-break's value."""

    rank: int
    """1 for the first; entrants level on every tie-break share a rank (1, 2, 2, 4)."""
    entrant: int
    points: float
    opponents_points: float
    game_score: int
    direct: float
    """Direct meetings among those level with this entrant on the three tie-breaks before (0
    when nobody is)."""
    played: int
    byes: int


def points_by_entrant(
    entrants: Iterable[Entrant],
    results: Iterable[TableResult],
    byes: Iterable[int] = (),
    bye_points: float = 1.0,
) -> dict[int, float]:
    """Each entrant's points: their tables' and their byes'."""
    points: dict[int, float] = {e.id: 0.0 for e in entrants}
    for result in results:
        for entrant, got in table_points(result).items():
            points[entrant] = points.get(entrant, 0.0) + got
    for entrant in byes:
        points[entrant] = points.get(entrant, 0.0) + bye_points
    return points


def default_bye_points(results: Sequence[TableResult]) -> float:
    """A win's points at the event's table size (the first result's): 1 when there is none."""
    return place_points(len(results[0].seats), 1) if results else 1.0


def standings(
    entrants: Sequence[Entrant],
    results: Sequence[TableResult],
    *,
    byes: Sequence[int] = (),
    bye_points: float | None = None,
) -> list[StandingsRow]:
    """The standings of `entrants` after `results` (and `byes`, an entrant once per bye), best
    first, with the tie-breaks of this module's docstring. Entrants with no result yet stand
    with zeros; a result's entrant missing from `entrants` (withdrawn) still counts as an
    opponent but gets no row."""
    got = default_bye_points(results) if bye_points is None else bye_points
    points = points_by_entrant(entrants, results, byes, got)
    opponents: dict[int, float] = defaultdict(float)
    game_score: dict[int, int] = defaultdict(int)
    played: dict[int, int] = defaultdict(int)
    for result in results:
        for seated, score in zip(result.seats, result.scores, strict=True):
            game_score[seated] += score
            played[seated] += 1
            opponents[seated] += sum(points[o] for o in result.seats if o != seated)
    bye_count: dict[int, int] = defaultdict(int)
    for bye in byes:
        bye_count[bye] += 1

    def first_three(e: Entrant) -> tuple[float, float, int]:
        return (points[e.id], opponents[e.id], game_score[e.id])

    groups: dict[tuple[float, float, int], list[Entrant]] = defaultdict(list)
    for entrant in entrants:
        groups[first_three(entrant)].append(entrant)
    direct: dict[int, float] = {e.id: 0.0 for e in entrants}
    for level in groups.values():
        if len(level) > 1:
            direct.update(direct_meetings({e.id for e in level}, results))

    def key(e: Entrant) -> tuple[float, float, int, float]:
        return (*first_three(e), direct[e.id])

    ordered = sorted(entrants, key=lambda e: (key(e), e.rating, -e.id), reverse=True)
    rows: list[StandingsRow] = []
    for position, entrant in enumerate(ordered):
        level_above = rows and key(ordered[position - 1]) == key(entrant)
        rank = rows[-1].rank if level_above else position + 1
        rows.append(
            StandingsRow(
                rank=rank,
                entrant=entrant.id,
                points=points[entrant.id],
                opponents_points=opponents[entrant.id],
                game_score=game_score[entrant.id],
                direct=direct[entrant.id],
                played=played[entrant.id],
                byes=bye_count[entrant.id],
            )
        )
    return rows


def direct_meetings(level: set[int], results: Iterable[TableResult]) -> dict[int, float]:
    """Among the entrants of `level`: at each table where two of them sat, 1 to the one placed
    better, 0.5 each for a shared place."""
    got = dict.fromkeys(level, 0.0)
    for result in results:
        here = [(e, p) for e, p in zip(result.seats, result.placings, strict=True) if e in level]
        for i, (a, placing_a) in enumerate(here):
            for b, placing_b in here[i + 1 :]:
                if placing_a == placing_b:
                    got[a] += 0.5
                    got[b] += 0.5
                else:
                    got[a if placing_a < placing_b else b] += 1.0
    return got


def meetings_so_far(results: Iterable[TableResult]) -> Mapping[frozenset[int], int]:
    """How many times each pair of entrants has sat at the same table."""
    met: dict[frozenset[int], int] = defaultdict(int)
    for result in results:
        for i, a in enumerate(result.seats):
            for b in result.seats[i + 1 :]:
                met[frozenset((a, b))] += 1
    return met
