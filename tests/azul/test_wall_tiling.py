"""Phase B, wall tiling: moving tiles, scoring, the floor line and the starting player marker."""

import pytest

from azul import FLOOR_PENALTY, deal

from .builders import board, finish_offer, tiles


def scored(wall_rows, lines, score=0, floor=""):
    """Player 0's board after a wall-tiling phase: (score, to_dict board, whole state)."""
    state = finish_offer(
        [board(score=score, lines=lines, wall_rows=wall_rows, floor=floor), board()]
    )
    return state.scores[0], state.to_dict()["boards"][0], state


def test_complete_lines_move_their_rightmost_tile_incomplete_lines_stay():
    """ "Go through your pattern lines from top to bottom. Move the rightmost tile of each
    complete line to the space of the same color in the corresponding line of your wall. [...]
    Then, remove all tiles from any pattern lines that now have no tile in the rightmost space.
    Place them into the lid [...]. Once that is done, any remaining tiles on the pattern lines
    stay on your player board for the next round." """
    score, data, state = scored((".....",) * 5, {1: "k", 3: "rr", 5: "wwwww"})
    assert data["wall"][0] == [None, None, None, "black", None]
    assert data["wall"][4][3] == "white"
    assert data["pattern_lines"] == [[None, 0], [None, 0], ["red", 2], [None, 0], [None, 0]]
    lid = state.to_dict()["lid"]
    assert lid["white"] == 4 + 1  # 4 from line 5, 1 from the last player's floor line
    assert lid["black"] == 0
    assert state.tile_total() == 100


def test_peters_wall_tiling_example():
    """Rulebook example: "Peter's second pattern line is complete with 2 red tiles. So he moves
    the rightmost tile of this pattern line over to the red space on the wall (and immediately
    scores 1 point [...]). As the third pattern line is not complete, he ignores it. From his
    complete fourth pattern line, he moves the rightmost blue tile over to the blue space on the
    wall (and scores 1 point immediately). He ignores the fifth pattern line, as it is not
    complete. Afterwards, he removes the remaining tiles from the second and fourth pattern lines
    and places them in the lid of the game box. The tiles in his third and fifth pattern lines
    stay on his board." """
    score, data, state = scored((".....",) * 5, {2: "rr", 3: "kk", 4: "bbbb", 5: "yyy"})
    assert data["wall"][1] == [None, None, None, "red", None]
    assert data["wall"][3] == [None, None, None, "blue", None]
    assert score == 1 + 1
    assert data["pattern_lines"] == [[None, 0], [None, 0], ["black", 2], [None, 0], ["yellow", 3]]
    lid = state.to_dict()["lid"]
    assert (lid["red"], lid["blue"]) == (1, 3)


def test_lines_are_tiled_top_to_bottom():
    """ "Go through your pattern lines from top to bottom." Line 1's tile is placed first, so it
    scores alone (1) and line 2's tile, placed below it, scores the 2 vertically linked tiles."""
    # Row 1 blue is in column 1; row 2 blue is in column 2. Row 1 yellow (col 2) sits above
    # row 2 blue (col 2).
    score, data, _ = scored((".....",) * 5, {1: "y", 2: "bb"})
    assert data["wall"][0][1] == "yellow" and data["wall"][1][1] == "blue"
    assert score == 1 + 2


def test_isolated_tile_scores_1_point():
    """ "If there are no tiles directly adjacent (vertically or horizontally) to the newly placed
    tile, gain 1 point on the score track." ("Placing the red tile gives you 1 point.")"""
    score, _, _ = scored(("x...x", ".....", "x....", ".....", "....."), {2: "rr"})
    assert score == 1  # diagonal neighbours do not count


def test_yellow_tile_scores_3_for_horizontally_linked_tiles():
    """ "In this example, placing the yellow tile gives you 3 points for the 3 horizontally linked
    tiles (including the newly placed yellow tile)." """
    # Row 3 reads black white blue yellow red: yellow goes right of white and blue.
    score, data, _ = scored((".....", ".....", ".xx..", ".....", "....."), {3: "yyy"})
    assert data["wall"][2][3] == "yellow"
    assert score == 3


def test_blue_tile_scores_3_for_vertically_linked_tiles():
    """ "In this example, placing the blue tile gives you 3 points for the vertically linked
    tiles." """
    # Blue in row 3 is in column 3, below red (row 1) and yellow (row 2).
    score, data, _ = scored(("..x..", "..x..", ".....", ".....", "....."), {3: "bbb"})
    assert data["wall"][2][2] == "blue"
    assert score == 3


def test_yellow_tile_scores_4_horizontal_plus_3_vertical():
    """ "In this example, placing the yellow tile gives you not only 4 points for the
    horizontally linked tiles but also 3 points for the vertical ones." """
    # Row 4 reads red black white blue yellow: yellow closes a run of 4 and sits below 2 tiles.
    wall_rows = (".....", "....x", "....x", ".xxx.", ".....")
    score, data, _ = scored(wall_rows, {4: "yyyy"})
    assert data["wall"][3][4] == "yellow"
    assert score == 4 + 3


def test_linked_tiles_count_on_both_sides_and_stop_at_a_gap():
    """ "Count all these linked tiles (including the newly placed one)": on both sides of the new
    tile, up to the first empty space."""
    # Row 1: x . [red] x x -> 3 horizontally; column 3: row 2 x, row 3 empty, row 4 x -> 2.
    score, _, _ = scored(("x..xx", "..x..", ".....", "..x..", "....."), {1: "r"})
    assert score == 3 + 2


@pytest.mark.parametrize(
    ("floor", "penalty"),
    [("k", 1), ("kk", 2), ("kkk", 4), ("kkkk", 6), ("kkkkk", 8), ("kkkkkk", 11), ("kkkkkkk", 14)],
)
def test_floor_line_penalties(floor, penalty):
    """ "For each tile in your floor line, you lose the number of points indicated directly above
    it." The spaces show -1 -1 -2 -2 -2 -3 -3."""
    assert FLOOR_PENALTY == (1, 1, 2, 2, 2, 3, 3)
    score, data, state = scored((".....",) * 5, {}, score=20, floor=floor)
    assert score == 20 - penalty
    assert data["floor"] == []
    assert state.to_dict()["lid"]["black"] == len(floor)


def test_score_never_drops_below_zero():
    """ "Adjust your scoring marker on your score track accordingly (however, you can never drop
    below 0 points)." """
    score, _, _ = scored((".....",) * 5, {}, score=3, floor="kkkk")
    assert score == 0


def test_points_for_wall_tiles_come_before_floor_penalties():
    """Tiles score "immediately" as they move; "Finally, at the end of the Wall-tiling phase"
    the floor line costs points: a 1-point tile and 4 floor tiles (-6) from 3 points leave 0,
    not 1 (which it would be if the floor were scored first and clamped at 0)."""
    score, _, _ = scored((".....",) * 5, {1: "b"}, score=3, floor="kkkk")
    assert score == 0
    score, _, _ = scored((".....",) * 5, {1: "b"}, score=6, floor="kkkk")
    assert score == 1


def test_peter_loses_8_points_for_4_tiles_and_the_marker():
    """Rulebook example: "Peter loses a total of 8 points as he has 4 tiles and the starting
    player marker in his floor line." """
    state = finish_offer([board(score=10, floor="mkbry"), board()], marker_holder=0)
    assert state.scores[0] == 10 - 8


def test_marker_counts_as_a_floor_tile_but_goes_back_to_its_player_not_the_lid():
    """ "If you have the starting player marker in your floor line, it counts as a normal tile
    there. But instead of placing it in the lid, place it in front of you." """
    state = finish_offer([board(floor="bm"), board(score=5)], marker_holder=0)
    data = state.to_dict()
    assert data["boards"][0]["floor"] == []
    assert sum(data["lid"].values()) == 1 + 1  # player 0's blue and player 1's white
    assert state.tile_total() == 100
    assert state.first_player == 0


def test_the_marker_holder_starts_the_next_round():
    """ "The player with the starting player marker refills each of the Factory displays [...]"
    and, as at setup, "places the starting player marker in the center of the table and then
    takes the first turn." """
    state = finish_offer([board(), board(floor="m"), board()], marker_holder=1)
    assert state.phase == "deal"
    assert state.first_player == 1
    state = deal(state, tiles=[tiles(f) for f in ("bbbb", "yyyy", "rrrr", "kkkk", "wwww") * 2][:7])
    assert state.to_move == [1]
    assert state.marker_in_center
    assert state.to_dict()["marker_holder"] is None
