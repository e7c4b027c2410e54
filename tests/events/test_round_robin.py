"""The round robin "all at once": every pair meets, as evenly as the numbers allow, with
balanced first seats (the guarantees of events.formats.round_robin's docstring)."""

import itertools
from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from events.formats import games_per_entrant, pair_meetings, round_robin
from events.formats.round_robin import EXACT_SIZES, LONGER

# The sizes whose search takes seconds (a harder design, or a second r after the first failed).
SLOW = {(3, 25), (3, 27), (3, 30), (3, 31)} | {(4, n) for n in LONGER[4]}


def sizes():
    for table_size in (3, 4):
        for n in range(4, 33):
            marks = [pytest.mark.slow] if (table_size, n) in SLOW else []
            yield pytest.param(table_size, n, marks=marks, id=f"{n}-at-{table_size}")


@given(st.integers(min_value=2, max_value=24))
def test_two_a_table_every_pair_meets_once_and_each_moves_first_half_the_time(n):
    ids = list(range(100, 100 + n))

    tables = round_robin(ids, 2)

    assert sorted(frozenset(t) for t in tables) == sorted(
        frozenset(p) for p in itertools.combinations(ids, 2)
    )
    firsts = Counter(t[0] for t in tables)
    assert {firsts[e] for e in ids} <= {(n - 1) // 2, n // 2}


@pytest.mark.parametrize(("table_size", "n"), list(sizes()))
def test_three_or_four_a_table_every_pair_meets_and_as_evenly_as_can_be(table_size, n):
    ids = [7 * i + 3 for i in range(n)]  # any ids, not 0..n-1

    tables = round_robin(ids, table_size)

    assert all(len(t) == len(set(t)) == table_size for t in tables)
    plays = Counter(e for t in tables for e in t)
    assert set(plays) == set(ids)
    assert len(set(plays.values())) == 1, "everyone plays the same number of tables"
    least = games_per_entrant(n, table_size)
    assert plays[ids[0]] == least or n in LONGER[table_size]
    met = pair_meetings(tables)
    counts = [met[frozenset(p)] for p in itertools.combinations(ids, 2)]
    assert min(counts) >= 1, "every pair meets"
    assert max(counts) - min(counts) <= 1
    assert (max(counts) == min(counts)) == (n in EXACT_SIZES[table_size])
    firsts = Counter(t[0] for t in tables)
    assert max(firsts[e] for e in ids) - min(firsts[e] for e in ids) <= 1


def test_the_same_entrants_get_the_same_schedule():
    assert round_robin(list(range(10)), 4) == round_robin(list(range(10)), 4)


def test_a_league_division_of_six_at_four_plays_two_tables_each():
    """Six at tables of four: three tables, each pair meets once or twice (18 seats of pairs for
    15 pairs: three pairs meet twice)."""
    tables = round_robin([1, 2, 3, 4, 5, 6], 4)

    assert len(tables) == 3
    assert sorted(pair_meetings(tables).values()) == [1] * 12 + [2] * 3


@pytest.mark.parametrize(
    ("ids", "size", "message"),
    [
        ([1, 2, 3], 4, "cannot fill a table of 4"),
        ([1], 2, "cannot fill a table of 2"),
        ([1, 2, 2], 2, "listed twice"),
        ([1, 2, 3, 4, 5], 5, "2, 3 or 4"),
    ],
)
def test_bad_input_is_refused(ids, size, message):
    with pytest.raises(ValueError, match=message):
        round_robin(ids, size)
