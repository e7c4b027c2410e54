"""Swiss rounds: tables by score then rating, no repeat while another plan exists (checked
against a brute force on small fields), byes to the lowest without one, seats balanced."""

import itertools
import random
from collections import Counter
from unittest.mock import patch

import networkx as nx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from events.formats import Entrant, TableResult, swiss, swiss_round
from events.formats.scoring import meetings_so_far, points_by_entrant


def field(n, seed=0):
    rng = random.Random(seed)
    return [Entrant(i, round(rng.gauss(1500, 300))) for i in range(1, n + 1)]


def play(tables, rng):
    """A result per table: random placings (ties now and then) and scores."""
    results = []
    for table in tables:
        scores = [rng.randrange(20, 90, 10) for _ in table]  # coarse: ties happen
        placings = [1 + sum(other > mine for other in scores) for mine in scores]
        results.append(TableResult(tuple(table), tuple(placings), tuple(scores)))
    return results


def run_swiss(entrants, table_size, rounds, seed):
    """`rounds` rounds played with random results: (results, byes, the rounds)."""
    rng = random.Random(seed)
    results, byes, played = [], [], []
    for _ in range(rounds):
        this = swiss_round(entrants, results, table_size=table_size, byes=byes)
        played.append(this)
        results += play(this.tables, rng)
        byes += this.byes
    return results, byes, played


def repeats(tables, results):
    met = meetings_so_far(results)
    return sum(
        met.get(frozenset(pair), 0) > 0 for t in tables for pair in itertools.combinations(t, 2)
    )


def repeat_free_plan_exists(entrants, results, table_size, byes):
    """Brute force: can the entrants not on a bye be seated with no pair meeting again?"""
    met = meetings_so_far(results)
    left = [e.id for e in entrants if e.id not in byes]
    if table_size == 2:
        graph = nx.Graph()
        graph.add_nodes_from(left)
        graph.add_edges_from(
            p for p in itertools.combinations(left, 2) if not met.get(frozenset(p))
        )
        return 2 * len(nx.max_weight_matching(graph, maxcardinality=True)) == len(left)

    def fits(rest):
        if not rest:
            return True
        head, others = rest[0], rest[1:]
        for mates in itertools.combinations(others, table_size - 1):
            table = (head, *mates)
            clear = all(not met.get(frozenset(p)) for p in itertools.combinations(table, 2))
            if clear and fits([e for e in others if e not in mates]):
                return True
        return False

    return fits(left)


def test_the_first_round_pairs_neighbours_by_rating_the_higher_rated_first():
    entrants = [Entrant(i, 2000 - 100 * i) for i in range(1, 9)]

    first = swiss_round(entrants, [], table_size=2)

    assert first.tables == ((1, 2), (3, 4), (5, 6), (7, 8))
    assert first.byes == ()


def test_winners_meet_winners_and_who_moved_second_moves_first():
    entrants = [Entrant(i, 2000 - 100 * i) for i in range(1, 9)]
    results = [
        TableResult((1, 2), (1, 2), (60, 50)),
        TableResult((3, 4), (2, 1), (40, 55)),
        TableResult((5, 6), (1, 2), (70, 30)),
        TableResult((7, 8), (2, 1), (20, 45)),
    ]

    second = swiss_round(entrants, results, table_size=2)

    # Winners (1, 4, 5, 8 by rating) and losers (2, 3, 6, 7), each pair by rating, no repeat;
    # the one who moved first last time (1, 5; 3, 7) moves second now when paired with one
    # who moved second.
    assert {frozenset(t) for t in second.tables} == {
        frozenset(p) for p in [(1, 4), (5, 8), (2, 3), (6, 7)]
    }
    for table in second.tables:
        assert table[0] in {2, 4, 6, 8}


def test_the_bye_goes_to_the_lowest_who_has_had_none():
    entrants = field(7)
    lowest = sorted(entrants, key=lambda e: e.rating)[0].id

    first = swiss_round(entrants, [], table_size=2)
    second = swiss_round(
        entrants, play(first.tables, random.Random(1)), table_size=2, byes=first.byes
    )

    assert first.byes == (lowest,)
    assert len(second.byes) == 1 and second.byes != first.byes


def test_tables_of_four_leave_the_remainder_on_byes():
    entrants = field(10)

    first = swiss_round(entrants, [], table_size=4)

    assert [len(t) for t in first.tables] == [4, 4]
    by_rating = [e.id for e in sorted(entrants, key=lambda e: -e.rating)]
    assert set(first.byes) == set(by_rating[-2:])
    assert first.tables[0] == tuple(sorted(first.tables[0], key=by_rating.index)) or set(
        first.tables[0]
    ) == set(by_rating[:4])


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=12),
    table_size=st.sampled_from([2, 3, 4]),
    rounds=st.integers(min_value=0, max_value=5),
    seed=st.integers(min_value=0, max_value=10**6),
)
def test_every_round_places_each_entrant_once_and_repeats_only_when_unavoidable(
    n, table_size, rounds, seed
):
    if n < table_size:
        return
    entrants = field(n, seed)
    results, byes, played = run_swiss(entrants, table_size, rounds, seed)

    nxt = swiss_round(entrants, results, table_size=table_size, byes=byes)

    for this in [*played, nxt]:
        seated = [e for t in this.tables for e in t] + list(this.byes)
        assert sorted(seated) == sorted(e.id for e in entrants)
        assert len(this.byes) == n % table_size
        assert all(len(t) == table_size for t in this.tables)
    if repeats(nxt.tables, results):
        assert not repeat_free_plan_exists(entrants, results, table_size, set(nxt.byes))
    bye_counts = Counter(byes + list(nxt.byes))
    assert (
        max(bye_counts.values(), default=0) - min((bye_counts[e.id] for e in entrants), default=0)
        <= 1
    ), "nobody has a second bye while another has none"


@settings(max_examples=60, deadline=None)
@given(
    n=st.integers(min_value=8, max_value=16),
    table_size=st.sampled_from([2, 3, 4]),
    rounds=st.integers(min_value=1, max_value=6),
    seed=st.integers(min_value=0, max_value=10**6),
)
def test_runs_of_the_standing_order_still_repeat_only_when_unavoidable(n, table_size, rounds, seed):
    """With runs of four (a large field's runs, in small), merged or matched again when they
    cannot avoid a repeat on their own."""
    entrants = field(n, seed)
    with patch.object(swiss, "RUN", 4):
        results, byes, _ = run_swiss(entrants, table_size, rounds, seed)
        nxt = swiss_round(entrants, results, table_size=table_size, byes=byes)

    if repeats(nxt.tables, results):
        assert not repeat_free_plan_exists(entrants, results, table_size, set(nxt.byes))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(min_value=0, max_value=10**6))
def test_two_a_table_first_seats_stay_balanced(seed):
    """Over six rounds of 16, nobody moves first more than twice as often as second or the
    reverse: the surplus of first seats stays within 2."""
    entrants = field(16, seed)

    results, _, _ = run_swiss(entrants, 2, 6, seed)

    firsts = Counter(r.seats[0] for r in results)
    seconds = Counter(r.seats[1] for r in results)
    assert max(abs(firsts[e.id] - seconds[e.id]) for e in entrants) <= 2


def test_a_large_field_pairs_without_repeats():
    entrants = field(200, 3)

    results, byes, _ = run_swiss(entrants, 2, 5, 3)
    nxt = swiss_round(entrants, results, table_size=2, byes=byes)

    assert repeats(nxt.tables, results) == 0
    points = points_by_entrant(entrants, results, byes)
    # Tables by score: most pairs are level on points.
    level = sum(points[a] == points[b] for a, b in nxt.tables)
    assert level >= 0.8 * len(nxt.tables)


@pytest.mark.parametrize(
    ("n", "size", "message"),
    [(3, 4, "cannot fill a table of 4"), (4, 5, "2, 3 or 4"), (1, 2, "cannot fill")],
)
def test_bad_input_is_refused(n, size, message):
    with pytest.raises(ValueError, match=message):
        swiss_round(field(n), [], table_size=size)
