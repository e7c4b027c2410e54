"""Round robin "all at once", the correspondence classic: every table of the schedule starts
together, and each entrant plays all of their tables at the same time.

Two players a table: every pair meets once (n - 1 games each), and seats are oriented along an
Euler circuit of the complete graph, so each entrant moves first in half their games ((n - 1) / 2
when n is odd; n / 2 or n / 2 - 1 when n is even, the least spread there can be).

Three or four a table (k): a pair cannot meet exactly once unless a Steiner system exists for
that n, so the schedule is a *design* found by search:

- every entrant plays the same number of tables, r: the smallest r with r (k - 1) >= n - 1 (so
  every pair can meet) and n r divisible by k (so every table is full). For example 6 players at
  4: 2 tables each, 3 tables; 7 at 3: 3 each, the Fano plane;
- the tables start as consecutive runs of the entrants repeated r times; a search then swaps two
  entrants of two tables to lower the sum over pairs of (meetings squared): half its swaps at
  random, half bringing together a pair that meets too little, a worse swap kept now and then
  (simulated annealing, cooling as it goes), from a generator seeded by n and k, so the same
  entrants always get the same schedule. With the total of meetings fixed, that sum is least
  exactly when the meetings of any two pairs differ by at most one, where the search stops;
- who sits first is a least-cost flow (`_seat`), the other seats follow table by table.

When the search cannot seat every pair within r tables each, the next r that fills every table
is taken, so that every pair meets (a round robin); for 4 to 32 entrants this happens at 4 a
table for 8, 12, 24, 25, 28, 30 and 32 entrants (`LONGER`), whose entrants play a table or a few
more than the least.

Guarantees, checked by tests/events/test_round_robin.py for 4 to 32 entrants at 3 and 4 a table:
every entrant plays the same number of tables; every pair meets; the meetings of any two pairs
differ by at most one; the first-seat counts differ by at most one. Exact (every pair meets the
same number of times) at `EXACT_SIZES`: at 3 a table, every n that is 1 or 3 modulo 6 (a
Steiner triple system exists there, and the search finds it) and 4; at 4, n = 4, 5, 7, 13, 16.
The search does not find every design that exists (an exact one exists at 4 a table for 25),
so elsewhere the spread of one is what it reached, not proven least.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Sequence

import networkx as nx

from .types import Table, check_table_size

EXACT_SIZES = {3: (4, 7, 9, 13, 15, 19, 21, 25, 27, 31), 4: (4, 5, 7, 13, 16)}
"""Table size -> the entrant counts (4 to 32) whose schedule meets every pair equally often."""
LONGER = {3: (), 4: (8, 12, 24, 25, 28, 30, 32)}
"""Table size -> the entrant counts (4 to 32) that play more than `games_per_entrant` tables."""
TEMPERATURE = 0.3
"""The annealing's starting heat, in units of the cost (a swap's cost changes by 2 or more)."""
SEARCH_STEPS = 60_000
"""Swaps tried before the search settles for the best schedule it has (never reached for 4 to
32 entrants, where it ends at the least spread within a few thousand)."""


def games_per_entrant(entrants: int, table_size: int) -> int:
    """r: the smallest number of tables per entrant that can seat every pair and fill every
    table (see the module's docstring)."""
    check_table_size(table_size)
    if entrants < table_size:
        raise ValueError(f"{entrants} entrants cannot fill a table of {table_size}")
    r = -(-(entrants - 1) // (table_size - 1))
    while entrants * r % table_size:
        r += 1
    return r


def round_robin(entrant_ids: Sequence[int], table_size: int) -> tuple[Table, ...]:
    """Every table of a round robin of `entrant_ids` at tables of `table_size`, in seat order,
    all to start together."""
    ids = list(entrant_ids)
    if len(set(ids)) != len(ids):
        raise ValueError("an entrant is listed twice")
    games_per_entrant(len(ids), table_size)  # refuses too few entrants
    if table_size == 2:
        return _pairs_all_at_once(ids)
    n, r = len(ids), games_per_entrant(len(ids), table_size)
    design = _design(n, table_size, r)
    while not _every_pair_meets(design, n):
        r += 1
        while n * r % table_size:
            r += 1
        design = _design(n, table_size, r)
    seated = _seat(design, n)
    return tuple(tuple(ids[i] for i in table) for table in seated)


def _pairs_all_at_once(ids: list[int]) -> tuple[Table, ...]:
    """Every pair once, oriented along an Euler circuit: an entrant leaves each vertex as often
    as it enters it, so moves first in half their games. With an even count, a perfect matching
    of extra edges makes every degree even first, and is dropped after."""
    graph = nx.MultiGraph()
    graph.add_nodes_from(range(len(ids)))
    graph.add_edges_from(itertools.combinations(range(len(ids)), 2))
    extra = set()
    if len(ids) % 2 == 0:
        for i in range(0, len(ids), 2):
            graph.add_edge(i, i + 1)
            extra.add((i, i + 1))
    tables: list[Table] = []
    for first, second in nx.eulerian_circuit(graph):
        pair = (min(first, second), max(first, second))
        if pair in extra:
            extra.discard(pair)  # one of the two parallel edges is the extra one
            continue
        tables.append((ids[first], ids[second]))
    return tuple(sorted(tables, key=lambda t: (min(t), max(t))))


def _least_cost(pair_slots: int, pairs: int) -> int:
    """The least sum of squared meetings: meetings spread over the pairs as evenly as can be."""
    low, high_pairs = divmod(pair_slots, pairs)
    return high_pairs * (low + 1) ** 2 + (pairs - high_pairs) * low**2


def _every_pair_meets(tables: list[list[int]], n: int) -> bool:
    met = {(a, b) for table in tables for a, b in itertools.combinations(sorted(table), 2)}
    return len(met) == n * (n - 1) // 2


def _design(n: int, k: int, r: int) -> list[list[int]]:
    """Tables of k of entrants 0..n-1, each entrant at r of them, the pairs' meetings spread as
    evenly as the search finds (the module's docstring)."""
    cycle = list(range(n)) * r
    tables = [cycle[i : i + k] for i in range(0, n * r, k)]
    if len(tables) < 2:
        return tables
    where: list[set[int]] = [set() for _ in range(n)]  # the tables each entrant sits at
    met = [[0] * n for _ in range(n)]  # met[a][b]: the tables a and b share
    for index, table in enumerate(tables):
        for a in table:
            where[a].add(index)
        for a, b in itertools.combinations(table, 2):
            met[a][b] += 1
            met[b][a] += 1
    pair_count = n * (n - 1) // 2
    low = len(tables) * k * (k - 1) // 2 // pair_count  # every pair meets at least this often
    short = {(a, b) for a, b in itertools.combinations(range(n), 2) if met[a][b] < low}
    cost = sum(met[a][b] ** 2 for a, b in itertools.combinations(range(n), 2))
    target = _least_cost(len(tables) * k * (k - 1) // 2, pair_count)
    rng = random.Random(n * 10 + k)

    def count(entrant: int, table: list[int], step: int) -> int:
        """Count `entrant` in (+1) or out (-1) of `table`'s other seats: the change of cost."""
        change = 0
        row = met[entrant]
        for other in table:
            if other != entrant:
                before = row[other]
                row[other] = met[other][entrant] = before + step
                change += step * (2 * before + step)
                pair = (min(entrant, other), max(entrant, other))
                if before + step < low:
                    short.add(pair)
                else:
                    short.discard(pair)
        return change

    def swap(ta: int, ia: int, tb: int, ib: int) -> int:
        """Swap seat ia of table ta with seat ib of table tb: the change of cost."""
        a, b = tables[ta], tables[tb]
        x, y = a[ia], b[ib]
        change = count(x, a, -1) + count(y, b, -1)
        a[ia], b[ib] = y, x
        where[x].remove(ta)
        where[x].add(tb)
        where[y].remove(tb)
        where[y].add(ta)
        return change + count(y, a, +1) + count(x, b, +1)

    best_cost, best = cost, [t[:] for t in tables]
    for step in range(SEARCH_STEPS):
        if cost == target:
            break
        if short and step % 2:
            # A pair that meets too little: bring z to a table of x, in exchange for one of
            # that table's other entrants.
            x, z = rng.choice(sorted(short)) if len(short) < 8 else next(iter(short))
            if rng.random() < 0.5:
                x, z = z, x
            ta = rng.choice(sorted(where[x] - where[z]))
            tb = rng.choice(sorted(where[z] - where[x]))
            ia = rng.choice([i for i, e in enumerate(tables[ta]) if e != x])
            ib = tables[tb].index(z)
        else:
            ta, tb = rng.sample(range(len(tables)), 2)
            ia, ib = rng.randrange(k), rng.randrange(k)
        if tables[ta][ia] in tables[tb] or tables[tb][ib] in tables[ta]:
            continue
        change = swap(ta, ia, tb, ib)
        # Annealing: a swap that costs more is kept now and then, less often as the search
        # goes on, so that it leaves the schedules no single swap improves.
        heat = TEMPERATURE * (1 - step / SEARCH_STEPS)
        if change <= 0 or rng.random() < math.exp(-change / max(heat, 1e-9)):
            cost += change
            if cost < best_cost:
                best_cost, best = cost, [t[:] for t in tables]
        else:
            swap(ta, ia, tb, ib)
    return best


def _seat(tables: list[list[int]], n: int) -> list[Table]:
    """Each table's seat order. Who sits first (moves first) is a flow: each table sends one
    unit to one of its entrants, each entrant takes floor(b / n) units free and one more at a
    cost, so the least-cost flow gives every entrant floor(b / n) or ceil(b / n) first seats (the
    even split, each entrant 1/k of each table, shows it exists). The other seats follow, table
    by table, in the order whose entrants have sat least in the seats it gives them."""
    k = len(tables[0])
    floor = len(tables) // n
    flow = nx.DiGraph()
    for index, table in enumerate(tables):
        flow.add_edge("source", ("table", index), capacity=1, weight=0)
        for entrant in table:
            flow.add_edge(("table", index), ("entrant", entrant), capacity=1, weight=0)
    for entrant in range(n):
        flow.add_edge(("entrant", entrant), "sink", capacity=floor, weight=0)
        flow.add_edge(("entrant", entrant), ("more", entrant), capacity=1, weight=1)
        flow.add_edge(("more", entrant), "sink", capacity=1, weight=0)
    chosen = nx.max_flow_min_cost(flow, "source", "sink")
    sat: list[list[int]] = [[0] * k for _ in range(n)]
    seated: list[Table] = []
    for index, table in enumerate(tables):
        sent = chosen[("table", index)]
        first = next(e for e in table if sent[("entrant", e)])
        rest = min(
            itertools.permutations(sorted(e for e in table if e != first)),
            key=lambda order: sum(sat[e][s] for s, e in enumerate(order, start=1)),
        )
        order = (first, *rest)
        for s, e in enumerate(order):
            sat[e][s] += 1
        seated.append(order)
    return seated


def pair_meetings(tables: Sequence[Table]) -> Counter[frozenset[int]]:
    """How many times each pair sits at the same table (pairs that never do are absent)."""
    met: Counter[frozenset[int]] = Counter()
    for table in tables:
        for a, b in itertools.combinations(table, 2):
            met[frozenset((a, b))] += 1
    return met
