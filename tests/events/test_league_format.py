"""A league's next season as a pure function (events.formats.league): promotion and relegation
at the boundaries, leavers dropped, newcomers at the bottom by rating, divisions of 4 to 8 as
even as the numbers allow. Worked examples, then the guarantees over many sizes."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from events.formats import Entrant
from events.formats.league import division_count, ladder, next_divisions

TOP = [1, 2, 3, 4, 5, 6]
MIDDLE = [11, 12, 13, 14, 15, 16]
BOTTOM = [21, 22, 23, 24, 25, 26]


def test_the_best_go_up_and_the_worst_go_down_one_division():
    # Each division in its final standing order: 1 won the top, 6 came last in it.
    assert ladder([TOP, MIDDLE, BOTTOM], movers=1) == [
        1, 2, 3, 4, 5, 11,
        6, 12, 13, 14, 15, 21,
        16, 22, 23, 24, 25, 26,
    ]  # fmt: skip


def test_two_movers_swap_two_at_each_boundary():
    assert ladder([TOP, MIDDLE], movers=2) == [1, 2, 3, 4, 11, 12, 5, 6, 13, 14, 15, 16]


def test_no_movers_keeps_the_ladder_and_movers_never_pass_half_a_division():
    assert ladder([TOP, MIDDLE], movers=0) == TOP + MIDDLE
    # Four a division: at most two change places, however many movers are asked for.
    assert ladder([[1, 2, 3, 4], [5, 6, 7, 8]], movers=5) == [1, 2, 5, 6, 3, 4, 7, 8]
    with pytest.raises(ValueError):
        ladder([TOP], movers=-1)


def test_one_division_moves_nobody():
    assert ladder([TOP], movers=1) == TOP


def test_the_next_season_of_three_divisions_of_six():
    nxt = next_divisions([TOP, MIDDLE, BOTTOM], set(TOP + MIDDLE + BOTTOM), [], size=6, movers=1)
    assert nxt == [[1, 2, 3, 4, 5, 11], [6, 12, 13, 14, 15, 21], [16, 22, 23, 24, 25, 26]]


def test_leavers_drop_out_and_the_rest_close_up():
    # 11 won the middle division but left, 26 came last and left. The ladder is made first
    # and the leavers taken out after: the place 11 won goes to the one below them on the
    # ladder (6, who was relegated), and 16 players are cut again into 6, 5 and 5.
    stay = set(TOP + MIDDLE + BOTTOM) - {11, 26}
    nxt = next_divisions([TOP, MIDDLE, BOTTOM], stay, [], size=6, movers=1)
    assert nxt == [[1, 2, 3, 4, 5, 6], [12, 13, 14, 15, 21], [16, 22, 23, 24, 25]]


def test_newcomers_start_at_the_bottom_the_strongest_first():
    newcomers = [Entrant(31, 1400.0), Entrant(32, 1900.0), Entrant(33, 1650.0), Entrant(4, 2000.0)]
    nxt = next_divisions([TOP], set(TOP), newcomers, size=4, movers=1)
    # 4 played last season: not a newcomer, whatever their rating. The others by rating, below
    # everyone who played; nine players make two divisions of 5 and 4.
    assert nxt == [[1, 2, 3, 4, 5], [6, 32, 33, 31]]


def test_the_first_season_is_placed_by_rating_alone():
    newcomers = [Entrant(n, 1000.0 + 10 * n) for n in range(1, 10)]
    assert next_divisions([], set(), newcomers, size=4, movers=1) == [
        [9, 8, 7, 6, 5],
        [4, 3, 2, 1],
    ]


def test_nobody_left_makes_no_division():
    assert next_divisions([TOP], set(), [], size=6, movers=1) == []


def test_two_hundred_players_make_divisions_of_four_to_eight_as_even_as_can_be():
    newcomers = [Entrant(n, 1500.0 - n) for n in range(1, 201)]
    for size, count, sizes in [
        (6, 34, [6] * 30 + [5] * 4),
        (8, 25, [8] * 25),
        (4, 50, [4] * 50),
        (5, 40, [5] * 40),
        (7, 29, [7] * 26 + [6] * 3),
    ]:
        divisions = next_divisions([], set(), newcomers, size=size, movers=1)
        assert [len(d) for d in divisions] == sizes, size
        assert len(divisions) == count == division_count(200, size)
        # Placed by rating: the best rated in the top division.
        assert [p for d in divisions for p in d] == list(range(1, 201))


def test_division_count_never_makes_one_below_four():
    assert division_count(9, 8) == 2  # 5 and 4
    assert division_count(7, 4) == 1  # two would leave one of 3
    assert division_count(3, 6) == 1  # too few for two: one, the caller decides if it plays
    with pytest.raises(ValueError):
        division_count(20, 9)
    with pytest.raises(ValueError):
        division_count(20, 3)


@given(
    players=st.integers(min_value=4, max_value=400),
    size=st.integers(min_value=4, max_value=8),
)
def test_every_player_once_in_divisions_within_bounds_and_one_apart(players, size):
    newcomers = [Entrant(n, float(n % 97)) for n in range(players)]
    divisions = next_divisions([], set(), newcomers, size=size, movers=1)
    lengths = [len(d) for d in divisions]
    assert sorted(p for d in divisions for p in d) == list(range(players))
    assert max(lengths) - min(lengths) <= 1
    assert lengths == sorted(lengths, reverse=True)  # the larger ones at the top
    assert min(lengths) >= 4 and max(lengths) <= 8
    # As many divisions as the size asks for, or one fewer when that would leave one below 4.
    assert len(divisions) in (-(-players // size), -(-players // size) - 1)


@given(
    st.lists(st.integers(min_value=4, max_value=8), min_size=1, max_size=8),
    st.integers(min_value=0, max_value=3),
)
def test_a_ladder_moves_each_player_at_most_one_division(sizes, movers):
    divisions, start = [], 0
    for length in sizes:
        divisions.append(list(range(start, start + length)))
        start += length
    order = ladder(divisions, movers=movers)
    assert sorted(order) == list(range(start))
    level_before = {p: i for i, d in enumerate(divisions) for p in d}
    cut, level_after = 0, {}
    for i, length in enumerate(sizes):
        for p in order[cut : cut + length]:
            level_after[p] = i
        cut += length
    assert all(abs(level_after[p] - level_before[p]) <= 1 for p in order)
    ups = sum(1 for p in order if level_after[p] < level_before[p])
    downs = sum(1 for p in order if level_after[p] > level_before[p])
    assert ups == downs <= movers * (len(sizes) - 1)
