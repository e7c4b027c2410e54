"""Points per placing, standings with their tie-breaks (worked by hand below) and the
crosstable."""

import pytest

from events.formats import Entrant, TableResult, crosstable, place_points, standings, table_points


def result(seats, placings, scores):
    return TableResult(tuple(seats), tuple(placings), tuple(scores))


@pytest.mark.parametrize(
    ("size", "points"),
    [(4, [3, 2, 1, 0]), (3, [2, 1, 0]), (2, [1, 0])],
)
def test_each_place_is_worth_the_places_below_it(size, points):
    assert [place_points(size, p) for p in range(1, size + 1)] == points


def test_a_shared_place_splits_the_points_of_the_places_it_covers():
    assert table_points(result([1, 2], [1, 1], [50, 50])) == {1: 0.5, 2: 0.5}
    # Two share second at four: places 2 and 3, (2 + 1) / 2 each.
    assert table_points(result([1, 2, 3, 4], [1, 2, 2, 4], [9, 8, 8, 1])) == {
        1: 3.0,
        2: 1.5,
        3: 1.5,
        4: 0.0,
    }
    # Three share first at three: (2 + 1 + 0) / 3.
    assert table_points(result([1, 2, 3], [1, 1, 1], [5, 5, 5])) == {1: 1.0, 2: 1.0, 3: 1.0}


@pytest.mark.parametrize(
    ("seats", "placings", "scores", "message"),
    [
        ((1, 2, 3), (1, 2, 2, 3), (1, 1, 1), "one placing and one score per seat"),
        ((1, 2, 2), (1, 2, 3), (1, 1, 1), "sits twice"),
        ((1, 2, 3, 4), (1, 2, 2, 3), (4, 3, 3, 1), "not a ranking"),
        ((1, 2), (1, 1), (4, 3), None),
        ((1,), (1,), (4,), "2, 3 or 4"),
        ((1, 2, 3, 4, 5), (1, 2, 3, 4, 5), (1, 1, 1, 1, 1), "2, 3 or 4"),
    ],
)
def test_a_table_result_refuses_what_no_game_can_end_with(seats, placings, scores, message):
    if message is None:
        TableResult(seats, placings, scores)
        return
    with pytest.raises(ValueError, match=message):
        TableResult(seats, placings, scores)


def test_standings_worked_by_hand_at_tables_of_four():
    """Five entrants, two tables of four (entrant 2 sat one, 5 sat one).

    Table A (1, 2, 3, 4): places 1, 2=, 2=, 4 -> points 3, 1.5, 1.5, 0; scores 70 55 55 40.
    Table B (5, 4, 3, 1): places 1, 2, 3, 4   -> points 3, 2, 1, 0;     scores 80 60 50 30.

    Points: 1: 3 + 0 = 3; 5: 3; 3: 1.5 + 1 = 2.5; 4: 0 + 2 = 2; 2: 1.5.
    Opponents' points (each table's opponents' totals):
      1: A (2, 3, 4) 1.5 + 2.5 + 2 = 6, B (5, 4, 3) 3 + 2 + 2.5 = 7.5 -> 13.5
      5: B (4, 3, 1) 2 + 2.5 + 3 = 7.5
      3: A (1, 2, 4) 3 + 1.5 + 2 = 6.5, B (5, 4, 1) 3 + 2 + 3 = 8 -> 14.5
      4: A (1, 2, 3) 3 + 1.5 + 2.5 = 7, B (5, 3, 1) 3 + 2.5 + 3 = 8.5 -> 15.5
      2: A (1, 3, 4) 3 + 2.5 + 2 = 7.5
    Game scores: 1: 100; 5: 80; 3: 105; 4: 100; 2: 55.
    So 1 and 5 are level on points, and 1 is first on opponents' points (13.5 against 7.5).
    """
    entrants = [Entrant(i, 1500.0) for i in (1, 2, 3, 4, 5)]
    results = [
        result([1, 2, 3, 4], [1, 2, 2, 4], [70, 55, 55, 40]),
        result([5, 4, 3, 1], [1, 2, 3, 4], [80, 60, 50, 30]),
    ]

    rows = standings(entrants, results)

    assert [(r.rank, r.entrant, r.points, r.opponents_points, r.game_score) for r in rows] == [
        (1, 1, 3.0, 13.5, 100),
        (2, 5, 3.0, 7.5, 80),
        (3, 3, 2.5, 14.5, 105),
        (4, 4, 2.0, 15.5, 100),
        (5, 2, 1.5, 7.5, 55),
    ]
    assert [r.played for r in rows] == [2, 1, 2, 2, 1]


def test_standings_worked_by_hand_down_to_direct_meetings():
    """Four entrants in 2-player games: X=1, Y=2, Z=3, W=4.

    X beats Y 50-40; Z beats X 60-40; Y beats W 50-30; W beats Z 55-35.
    Points: one win each, 1 apiece. Opponents' points: each met two who have 1: 2 apiece.
    Game scores: X 50 + 40 = 90; Y 40 + 50 = 90; Z 60 + 35 = 95; W 30 + 55 = 85.
    So Z first and W last on game score; X and Y level on all three, and X beat Y: X second.
    """
    entrants = [Entrant(i, 1500.0) for i in (1, 2, 3, 4)]
    results = [
        result([1, 2], [1, 2], [50, 40]),
        result([3, 1], [1, 2], [60, 40]),
        result([2, 4], [1, 2], [50, 30]),
        result([4, 3], [1, 2], [55, 35]),
    ]

    rows = standings(entrants, results)

    assert [(r.rank, r.entrant) for r in rows] == [(1, 3), (2, 1), (3, 2), (4, 4)]
    assert {r.entrant: r.points for r in rows} == {1: 1.0, 2: 1.0, 3: 1.0, 4: 1.0}
    assert {r.entrant: r.opponents_points for r in rows} == {1: 2.0, 2: 2.0, 3: 2.0, 4: 2.0}
    assert {r.entrant: r.direct for r in rows} == {3: 0.0, 1: 1.0, 2: 0.0, 4: 0.0}


def test_entrants_level_on_every_tie_break_share_a_rank():
    """A three-way cycle of wins with the same scores: nothing separates them."""
    entrants = [Entrant(1, 1600.0), Entrant(2, 1500.0), Entrant(3, 1400.0)]
    results = [
        result([1, 2], [1, 2], [50, 40]),
        result([2, 3], [1, 2], [50, 40]),
        result([3, 1], [1, 2], [50, 40]),
    ]

    rows = standings(entrants, results)

    assert [(r.rank, r.entrant, r.direct) for r in rows] == [(1, 1, 1.0), (1, 2, 1.0), (1, 3, 1.0)]


def test_a_bye_is_worth_a_win_by_default_and_adds_no_opponent():
    entrants = [Entrant(1, 1500.0), Entrant(2, 1500.0), Entrant(3, 1500.0)]
    results = [result([1, 2], [1, 2], [50, 40])]

    rows = {r.entrant: r for r in standings(entrants, results, byes=[3])}

    assert rows[3].points == 1.0 and rows[3].byes == 1 and rows[3].opponents_points == 0
    assert rows[3].played == 0
    assert standings(entrants, results, byes=[3], bye_points=0.5)[1].points == 0.5


def test_the_crosstable_holds_every_meeting_from_both_sides():
    entrants = [Entrant(i, 1500.0) for i in (1, 2, 3, 4)]
    results = [
        result([1, 2, 3], [1, 2, 2], [60, 50, 50]),
        result([2, 1], [1, 2], [45, 44]),
    ]

    table = crosstable(entrants, results)

    assert [(m.table, m.placing, m.opponent_placing, m.points) for m in table[1][2]] == [
        (0, 1, 2, 2.0),
        (1, 2, 1, 0.0),
    ]
    assert [(m.score, m.opponent_score) for m in table[2][1]] == [(50, 60), (45, 44)]
    assert table[3][2][0].placing == table[3][2][0].opponent_placing == 2
    assert table[4] == {}
    assert set(table[1]) == {2, 3}
