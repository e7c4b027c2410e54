"""Swiss: round by round, tables formed by score then rating, no repeat meeting while another
pairing exists, seats balanced, and a bye for the lowest-ranked who has had none.

The standing order is points (`events.formats.scoring`), then rating, then id. When the number
of entrants does not divide by the table size, the remainder sit out with a bye: the lowest in
the standing order among those with the fewest byes so far (nobody has a second bye while
someone has none).

**Two a table** is a maximum-weight matching (networkx's blossom algorithm) on a graph whose
edges are the pairings allowed, weighted so that, in this order of importance, the matching:
meets no pair twice (only when a repeat cannot be avoided are repeated pairs given edges, with
the heaviest cost), keeps scores close (the square of the points' gap, so two half-point
floats beat one full-point one), keeps ratings close, and balances seats (the pairing of two
entrants who both have moved first more often than second, or both less, costs a little). Each
cost's unit exceeds the most that all the lesser costs could add up to over the entrants matched
together, so the order is strict.

For speed the graph is never complete: each entrant is joined to the `WINDOW` nearest below
them in the standing order, the window doubling only while no perfect matching exists without
repeats. And the blossom algorithm, pure Python, grows with the cube of the entrants in the
worst case: at 1,000 it took seconds even on a window of four. So the standing order is cut
into runs of about `RUN` entrants (cut where the score changes when one is near), each matched
on its own; a run that cannot be matched without a repeat is merged with the next and matched
again. The runs cost little: in a run of 20 the best partners are a few places away, which the
run almost always holds; the price is that a pairing never crosses a cut, which only matters
when a repeat forces a float, and then the merge widens the choice. When the last run cannot do
without a repeat, everyone is matched again at once (slower, and rare), so a repeat is made only
when no pairing of the whole field avoids it. And a run whose neighbours
in the standing order (first with second, third with fourth...) are level on points and have not
met is paired so without a matching: that is the matching's answer (see `_match`).
`scripts/bench_swiss.py` measures a round of 1,000.

**Three or four a table** cannot be a matching (a perfect matching of triples or quadruples is
NP-hard in general), so tables are formed by a search in standing order: the highest unseated
entrant opens a table, filled by the next unseated entrants in the standing order who have met
none of those already seated there; when that dead-ends, the search backtracks (a depth-first
search, so it finds a table plan without repeats whenever one exists, within `SEARCH_LIMIT`
steps). Taking the next in the standing order keeps each table's scores and ratings as close as
the repeats allow, which is the same order of importance as for pairs. The search runs on the
same runs of the standing order as the pairs (a multiple of the table size long), a run without
a plan merged with the next, up to `SEARCH_MOST` entrants (the search's depth and time grow with
them). Past that, or at the last run, the greedy plan (each seat to the next entrant in the
standing order who has met the table least) is kept and repaired by swapping two entrants of two
tables, any table of the round, the nearest first, while that lowers the repeats. That repair is
a heuristic: on small fields (one run, within the step limit) the search is complete, so a repeat
there is one no plan
avoids (tests/events/test_swiss.py checks it against a brute force); on large ones a repeat is
rare (none in `scripts/bench_swiss.py`'s rounds of 1,000). Seats then go to whoever has sat least
in them so far, the first seat (moving first) weighing most.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence

import networkx as nx

from .scoring import default_bye_points, meetings_so_far, points_by_entrant
from .types import Entrant, Round, Table, TableResult, check_table_size

WINDOW = 6
"""How many entrants below in the standing order each is first joined to (two a table)."""
RUN = 20
"""About how many entrants are matched together (two a table); see the module's docstring."""
SEARCH_LIMIT = 20_000
"""The steps the depth-first search of tables of three or four takes before settling."""
SEARCH_MOST = 200
"""The most entrants the depth-first search seats at once (its depth grows with them)."""


class History:
    """What the results so far say about each entrant: points, meetings and seats."""

    def __init__(
        self,
        entrants: Sequence[Entrant],
        results: Sequence[TableResult],
        byes: Sequence[int],
        bye_points: float | None,
    ) -> None:
        got = default_bye_points(results) if bye_points is None else bye_points
        self.points = points_by_entrant(entrants, results, byes, got)
        self.met = meetings_so_far(results)
        self.opponents: dict[int, set[int]] = {e.id: set() for e in entrants}
        for pair in self.met:
            for entrant in pair:
                self.opponents.setdefault(entrant, set()).update(pair - {entrant})
        self.rating = {e.id: e.rating for e in entrants}
        self.byes = Counter(byes)
        # sat[entrant][seat]: how often the entrant sat there (seat 0 moves first).
        self.sat: dict[int, Counter[int]] = {e.id: Counter() for e in entrants}
        for result in results:
            for seat, entrant in enumerate(result.seats):
                self.sat.setdefault(entrant, Counter())[seat] += 1
        self.order = sorted(
            (e.id for e in entrants),
            key=lambda e: (-self.points[e], -self.rating[e], e),
        )
        self.rank = {entrant: position for position, entrant in enumerate(self.order)}

    def meetings(self, a: int, b: int) -> int:
        return self.met.get(frozenset((a, b)), 0)

    def first_surplus(self, entrant: int) -> int:
        """How many more times the entrant moved first than not (two a table)."""
        sat = self.sat[entrant]
        return sat[0] - sum(n for seat, n in sat.items() if seat)


def swiss_round(
    entrants: Sequence[Entrant],
    results: Sequence[TableResult],
    *,
    table_size: int,
    byes: Sequence[int] = (),
    bye_points: float | None = None,
) -> Round:
    """The next round of a Swiss among `entrants` (those still playing), after `results` (every
    table so far, in the order played; withdrawn entrants' too) and `byes` (an id per bye
    given). `bye_points` as in `events.formats.scoring.standings`."""
    check_table_size(table_size)
    if len({e.id for e in entrants}) != len(entrants):
        raise ValueError("an entrant is listed twice")
    if len(entrants) < table_size:
        raise ValueError(f"{len(entrants)} entrants cannot fill a table of {table_size}")
    history = History(entrants, results, byes, bye_points)
    sitting_out = _byes(history, len(entrants) % table_size)
    order = [e for e in history.order if e not in sitting_out]
    if table_size == 2:
        tables = [_seat_pair(history, a, b) for a, b in _pairs(history, order)]
    else:
        tables = [_seat_table(history, t) for t in _tables(history, order, table_size)]
    tables.sort(key=lambda t: min(history.rank[e] for e in t))
    return Round(tables=tuple(tables), byes=tuple(sitting_out))


def _byes(history: History, count: int) -> list[int]:
    """The lowest in the standing order among those with the fewest byes."""
    ranked = list(enumerate(history.order))
    ranked.sort(key=lambda item: (history.byes[item[1]], -item[0]))
    return [entrant for _, entrant in ranked[:count]]


# -- two a table -----------------------------------------------------------------------------


def _pairs(history: History, order: list[int]) -> list[tuple[int, int]]:
    """The round's pairs: the standing order cut into runs, each run matched on its own, a run
    that needs a repeat merged with the next (the module's docstring)."""
    runs = _runs(history, order)
    pairs: list[tuple[int, int]] = []
    pending: list[int] = []
    for index, run in enumerate(runs):
        pending += run
        matched = _match(history, pending, allow_repeats=False)
        if matched is None and index == len(runs) - 1:
            # The last run cannot do without a repeat: the runs above may hold the way out, so
            # everyone is matched again at once (with a repeat only if even that needs one).
            everyone = _match(history, order, allow_repeats=True)
            assert everyone is not None
            return everyone
        if matched is not None:
            pairs += matched
            pending = []
    return pairs


def _runs(history: History, order: list[int], size: int = 2) -> list[list[int]]:
    """The standing order in runs of a multiple of `size`, about `RUN` long, each cut where the
    points change if such a place is within a quarter run of the nominal cut."""
    length = RUN - RUN % size
    reach = length // 4 - length // 4 % size
    runs: list[list[int]] = []
    start = 0
    while len(order) - start > length + length // 2:
        nominal = start + length
        cuts = [
            c
            for c in range(nominal - reach, nominal + reach + 1, size)
            if history.points[order[c - 1]] != history.points[order[c]]
        ]
        cut = min(cuts, key=lambda c: abs(c - nominal)) if cuts else nominal
        runs.append(order[start:cut])
        start = cut
    runs.append(order[start:])
    return runs


def _match(
    history: History, run: list[int], *, allow_repeats: bool
) -> list[tuple[int, int]] | None:
    """A perfect matching of `run` (even-sized) of the greatest weight: on a window of the
    standing order, widened while no perfect matching exists; with repeated pairs only when even
    the complete graph has none without, and `allow_repeats`. None when a repeat is needed but
    not allowed."""
    if not run:
        return []
    neighbours = list(zip(run[::2], run[1::2], strict=True))
    if all(
        history.points[a] == history.points[b] and not history.meetings(a, b) for a, b in neighbours
    ):
        # Each in the standing order with the next: no repeat, no score gap, and, within a
        # group level on points, the least sum of rating gaps there is (on a line, pairing
        # neighbours is the one least sum), so this is what the matching would find.
        return neighbours
    window = WINDOW
    units = _units(history, run)
    while True:
        whole = window >= len(run) - 1
        graph = _graph(history, run, window, units, repeats=False)
        matching = nx.max_weight_matching(graph, maxcardinality=True)
        if 2 * len(matching) == len(run):
            return [(a, b) for a, b in matching]
        if whole:
            break
        window *= 2
    if not allow_repeats:
        return None
    graph = _graph(history, run, len(run), units, repeats=True)
    return [(a, b) for a, b in nx.max_weight_matching(graph, maxcardinality=True)]


def _units(history: History, run: list[int]) -> tuple[int, int, int]:
    """The weights of a repeat, a squared half-point of score gap and a point of rating gap:
    each above the most all the lesser costs can add up to over the run's pairings."""
    pairs = len(run) // 2 + 1
    ratings = [history.rating[e] for e in run]
    points = [history.points[e] for e in run]
    seat_unit = 1
    most_seat = 2 * pairs * seat_unit
    rating_unit = most_seat + 1
    most_rating = pairs * (round(max(ratings) - min(ratings)) + 1) * rating_unit
    score_unit = most_rating + 1
    most_score = pairs * (round(2 * (max(points) - min(points))) ** 2 + 1) * score_unit
    return most_score + 1, score_unit, rating_unit


def _graph(
    history: History,
    run: list[int],
    window: int,
    units: tuple[int, int, int],
    *,
    repeats: bool,
) -> nx.Graph:
    """The pairings allowed, each entrant to the `window` after it in the standing order, with
    the weight of the module's docstring (a large constant less the pairing's cost)."""
    repeat_unit, score_unit, rating_unit = units
    graph = nx.Graph()
    graph.add_nodes_from(run)
    costs: dict[tuple[int, int], int] = {}
    for i, a in enumerate(run):
        for b in run[i + 1 : i + 1 + window]:
            met = history.meetings(a, b)
            if met and not repeats:
                continue
            gap = round(2 * abs(history.points[a] - history.points[b]))
            costs[a, b] = (
                met * repeat_unit
                + gap * gap * score_unit
                + round(abs(history.rating[a] - history.rating[b])) * rating_unit
                + _seat_clash(history, a, b)
            )
    top = max(costs.values(), default=0) + 1
    graph.add_weighted_edges_from((a, b, top - cost) for (a, b), cost in costs.items())
    return graph


def _seat_clash(history: History, a: int, b: int) -> int:
    """0 when the two can each get the seat they are due; 1 when both are due the same seat;
    2 when both are two or more games past even on the same side."""
    sa, sb = history.first_surplus(a), history.first_surplus(b)
    if sa * sb <= 0:
        return 0
    return 2 if abs(sa) >= 2 and abs(sb) >= 2 else 1


def _seat_pair(history: History, a: int, b: int) -> Table:
    """Who moves first: the one who has moved first less often (by the surplus), then the one
    higher in the standing order."""
    key = {e: (history.first_surplus(e), history.rank[e]) for e in (a, b)}
    return (a, b) if key[a] <= key[b] else (b, a)


# -- three or four a table --------------------------------------------------------------------


def _tables(history: History, order: list[int], size: int) -> list[list[int]]:
    """Tables of `size`: the standing order in runs (as for pairs), each run's tables found by a
    depth-first search without repeats; a run that has none is merged with the next; past
    `SEARCH_MOST` entrants, or at the last run, the greedy plan improved by swaps (the module's
    docstring)."""
    tables: list[list[int]] = []
    pending: list[int] = []
    runs = _runs(history, order, size)
    repaired = False
    for index, run in enumerate(runs):
        pending += run
        found = _search(history, pending, size) if len(pending) <= SEARCH_MOST else None
        if found is None and (index == len(runs) - 1 or len(pending) > SEARCH_MOST):
            found = _greedy(history, pending, size)
            repaired = True
        if found is not None:
            tables += found
            pending = []
    if repaired:
        # Swaps with any table, the nearest first: the runs above may hold the way out.
        _swap_away_repeats(history, tables)
    return tables


def _clear_of(history: History, entrant: int, table: list[int]) -> bool:
    """Whether `entrant` has met nobody at `table`."""
    met = history.opponents[entrant]
    return not any(other in met for other in table)


def _search(history: History, order: list[int], size: int) -> list[list[int]] | None:
    """The first table plan in standing order with no repeat, or None (none, or the limit)."""
    steps = 0
    tables: list[list[int]] = []
    seated: set[int] = set()

    def fill(table: list[int], after: int) -> bool:
        """Complete `table` with entrants after position `after`, then the rest of the plan."""
        nonlocal steps
        if len(table) == size:
            tables.append(table)
            if place():
                return True
            tables.pop()
            return False
        for position in range(after + 1, len(order)):
            entrant = order[position]
            if entrant in seated or not _clear_of(history, entrant, table):
                continue
            steps += 1
            if steps > SEARCH_LIMIT:
                return False
            seated.add(entrant)
            if fill([*table, entrant], position):
                return True
            seated.discard(entrant)
        return False

    def place() -> bool:
        """Open a table with the highest unseated entrant and fill it."""
        head = next((p for p, e in enumerate(order) if e not in seated), None)
        if head is None:
            return True
        seated.add(order[head])
        if fill([order[head]], head):
            return True
        seated.discard(order[head])
        return False

    return tables if place() and steps <= SEARCH_LIMIT else None


def _greedy(history: History, order: list[int], size: int) -> list[list[int]]:
    """Tables in standing order, each seat to the next unseated entrant who has met nobody at
    the table, or, when none has, who has met it least."""
    left = list(order)
    tables: list[list[int]] = []
    while left:
        table = [left.pop(0)]
        while len(table) < size:
            pick = min(
                range(len(left)),
                key=lambda i: (sum(history.meetings(left[i], o) for o in table), i),
            )
            table.append(left.pop(pick))
        tables.append(table)
    return tables


def _repeats(history: History, table: list[int]) -> int:
    return sum(history.meetings(a, b) for a, b in itertools.combinations(table, 2))


def _swap_away_repeats(history: History, tables: list[list[int]]) -> None:
    """Swap two entrants of two tables while that lowers the repeats, trying nearby tables
    first so that tables keep close scores."""
    improved = True
    while improved:
        improved = False
        for i, table in enumerate(tables):
            if not _repeats(history, table):
                continue
            others = sorted(range(len(tables)), key=lambda j: abs(j - i))[1:]
            for j, si, sj in itertools.product(others, range(len(table)), range(len(table))):
                other = tables[j]
                before = _repeats(history, table) + _repeats(history, other)
                table[si], other[sj] = other[sj], table[si]
                if _repeats(history, table) + _repeats(history, other) < before:
                    improved = True
                    break
                table[si], other[sj] = other[sj], table[si]
            if improved:
                break


def _seat_table(history: History, table: list[int]) -> Table:
    """The seat order whose entrants have sat least in the seats it gives them, the first seat
    weighing as much as all the others together (then the standing order, for a steady
    answer)."""
    size = len(table)
    weights = [size] + [1] * (size - 1)

    def worn(order: tuple[int, ...]) -> tuple[int, list[int]]:
        used = sum(weights[s] * history.sat[e][s] for s, e in enumerate(order))
        return used, [history.rank[e] for e in order]

    return min(itertools.permutations(table), key=worn)


def first_seats(results: Sequence[TableResult]) -> Mapping[int, int]:
    """How often each entrant has moved first."""
    return Counter(result.seats[0] for result in results)
