"""Elimination by groups: snake-seeded tables, byes to the top seeds, the best k of each table
on to the next stage, until a final table."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from events.formats import TableResult, elimination_stage, going_on, is_final, next_stage


def finish(stage, rng):
    """A result for each table of the stage: a random order, distinct scores."""
    results = []
    for table in stage.tables:
        scores = rng.sample(range(10, 100), len(table))
        placings = [1 + sum(o > s for o in scores) for s in scores]
        results.append(TableResult(table, tuple(placings), tuple(scores)))
    return results


def test_sixteen_at_four_two_go_on_three_stages_to_the_final():
    seeding = list(range(1, 17))

    first = elimination_stage(seeding, table_size=4, advance=2)

    # The snake: seeds 1-4 across, 5-8 back, 9-12 across, 13-16 back.
    assert first.tables == ((1, 8, 9, 16), (2, 7, 10, 15), (3, 6, 11, 14), (4, 5, 12, 13))
    assert first.byes == ()
    results = [
        TableResult((1, 8, 9, 16), (1, 2, 3, 4), (80, 70, 60, 50)),
        TableResult((2, 7, 10, 15), (4, 1, 2, 3), (40, 90, 70, 50)),
        # 11 and 14 share second: 11 goes on on game score... both scored 60: the better seed.
        TableResult((3, 6, 11, 14), (1, 2, 2, 4), (70, 60, 60, 30)),
        TableResult((4, 5, 12, 13), (3, 2, 1, 4), (50, 60, 70, 20)),
    ]
    assert going_on(first, results, seeding, advance=2) == [1, 3, 5, 6, 7, 8, 10, 12]

    second = next_stage(first, results, seeding, table_size=4, advance=2)

    assert second is not None and not is_final(second)
    assert second.tables == ((1, 6, 7, 12), (3, 5, 8, 10))
    third = next_stage(second, finish(second, random.Random(1)), seeding, table_size=4, advance=2)
    assert third is not None and is_final(third) and len(third.tables[0]) == 4
    assert (
        next_stage(third, finish(third, random.Random(2)), seeding, table_size=4, advance=2) is None
    )


def test_a_shared_place_at_the_cut_goes_to_the_higher_game_score():
    stage = elimination_stage([1, 2, 3, 4, 5, 6, 7, 8], table_size=4, advance=1)
    results = [
        TableResult((1, 4, 5, 8), (1, 1, 3, 4), (50, 61, 40, 30)),
        TableResult((2, 3, 6, 7), (1, 2, 3, 4), (70, 60, 50, 40)),
    ]

    assert going_on(stage, results, [1, 2, 3, 4, 5, 6, 7, 8], advance=1) == [2, 4]


def test_the_remainder_the_top_seeds_go_straight_on():
    stage = elimination_stage(list(range(1, 11)), table_size=4, advance=2)

    assert stage.byes == (1, 2)
    assert stage.tables == ((3, 6, 7, 10), (4, 5, 8, 9))


def test_a_stage_without_every_result_cannot_go_on():
    stage = elimination_stage([1, 2, 3, 4], table_size=2, advance=1)

    with pytest.raises(ValueError, match="has no result yet"):
        next_stage(
            stage, [TableResult((1, 4), (1, 2), (5, 4))], [1, 2, 3, 4], table_size=2, advance=1
        )


@pytest.mark.parametrize(
    ("seeding", "size", "advance", "message"),
    [
        ([1, 2, 3], 4, 4, "between 1 and 3"),
        ([1, 2, 3], 2, 0, "between 1 and 1"),
        ([1], 2, 1, "at least two"),
        ([1, 1, 2], 2, 1, "seeded twice"),
    ],
)
def test_bad_input_is_refused(seeding, size, advance, message):
    with pytest.raises(ValueError, match=message):
        elimination_stage(seeding, table_size=size, advance=advance)


@given(
    n=st.integers(min_value=2, max_value=200),
    table_size=st.sampled_from([2, 3, 4]),
    data=st.data(),
    seed=st.integers(min_value=0, max_value=10**6),
)
def test_every_event_reaches_one_final_table_placing_everyone_once_a_stage(
    n, table_size, data, seed
):
    advance = data.draw(st.integers(min_value=1, max_value=table_size - 1))
    seeding = list(range(1, n + 1))
    rng = random.Random(seed)
    stage = elimination_stage(seeding, table_size=table_size, advance=advance)
    left = set(seeding)
    stages = 0
    while stage is not None:
        stages += 1
        assert stage.entrants == left
        assert all(len(t) == table_size for t in stage.tables) or is_final(stage)
        results = finish(stage, rng)
        if is_final(stage):
            assert 2 <= len(stage.tables[0]) <= table_size
        else:
            left = set(going_on(stage, results, seeding, advance=advance))
        stage = next_stage(stage, results, seeding, table_size=table_size, advance=advance)
    assert stages <= n
