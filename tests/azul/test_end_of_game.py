"""End of the game: when it ends, the end bonuses, and the winner."""

import pytest

from azul import IllegalMove, deal, legal_moves, play, result

from .builders import board, finish_offer, position, snapshot

EMPTY = (".....",) * 5


def test_game_ends_after_the_wall_tiling_of_the_round_a_row_is_completed():
    """ "The game ends right after the Wall-tiling phase in which at least one player has
    completed at least one horizontal line of 5 consecutive tiles on her wall." The round is
    played out and every player tiles; only then does the game end."""
    state = position(
        [board(wall_rows=("xxxx.",) + EMPTY[1:]), board(lines={2: "r"})],
        factories=["wrrk", "bbbb"],
    )
    state = play(state, "F1 white 1")  # player 0 will complete row 1 when tiling
    assert state.phase == "take"  # not immediately: the offer goes on
    state = play(state, "F2 blue floor")  # player 1: 4 blue on the floor
    state = play(state, "C black floor")  # player 0: the marker and a black tile on the floor
    assert state.phase == "take"
    state = play(state, "C red 2")  # player 1 completes pattern line 2 (1 red to the floor)
    assert state.phase == "over"
    data = state.to_dict()
    assert data["boards"][1]["wall"][1][3] == "red"  # player 1 tiled in the final round too
    # player 0: white closes row 1 (+5), floor marker + black (-2), row bonus (+2)
    assert state.scores[0] == 5 - 2 + 2
    # player 1: red alone (+1), floor 4 blue + 1 red (-8), never below 0
    assert state.scores[1] == 0


def test_no_game_end_without_a_complete_horizontal_line():
    """Only a horizontal line ends the game: a complete column does not."""
    column = ("x....", "x....", "x....", "x....", ".....")
    state = finish_offer([board(wall_rows=column, lines={5: "yyyyy"}), board()])
    assert state.to_dict()["boards"][0]["wall"][4][0] == "yellow"
    assert state.phase == "deal"


def test_no_deal_and_no_move_after_the_game_ended():
    """ "The game ends [...]": no next round is prepared."""
    state = finish_offer([board(wall_rows=("xxxx.",) + EMPTY[1:], lines={1: "w"}), board()])
    assert state.phase == "over"
    assert legal_moves(state) == []
    before = snapshot(state)
    with pytest.raises(IllegalMove, match="the game is over"):
        deal(state, tiles=[[]] * 5)
    with pytest.raises(IllegalMove, match="the game is over"):
        play(state, "F1 blue 1")
    assert snapshot(state) == before


def test_row_bonus_2_points():
    """ "Gain 2 points for each complete horizontal line of 5 consecutive tiles on your wall." """
    state = finish_offer([board(score=10, wall_rows=("xxxx.",) + EMPTY[1:], lines={1: "w"})] * 2)
    assert state.scores[0] == 10 + 5 + 2
    standing = result(state).standings[0]
    assert (standing.complete_rows, standing.row_bonus, standing.bonus) == (1, 2, 2)


def test_column_bonus_7_points():
    """ "Gain 7 points for each complete vertical line of 5 consecutive tiles on your wall." """
    rows = (".xxxx", "x....", "x....", "x....", "x....")
    state = finish_offer([board(wall_rows=rows, lines={1: "b"}), board()])
    # blue closes row 1 (5) and column 1 (5): 10 points, then +2 row, +7 column
    assert state.scores[0] == 10 + 2 + 7
    standing = result(state).standings[0]
    assert (standing.row_bonus, standing.column_bonus, standing.color_bonus) == (2, 7, 0)


def test_colour_bonus_10_points():
    """ "Gain 10 points for each color of which you have placed all 5 tiles on your wall." """
    rows = ("xxxx.", ".x...", "..x..", "...x.", "....x")  # all five blue tiles on the diagonal
    state = finish_offer([board(wall_rows=rows, lines={1: "w"}), board()])
    # white closes row 1 (5 points; nothing below it in column 5 of row 2) -> +2 row, +10 blue
    assert state.scores[0] == 5 + 2 + 10
    assert result(state).standings[0].color_bonus == 10


def test_all_bonuses_add_up():
    """Two rows (+4), one column (+7) and one colour (+10) on the same wall."""
    rows = ("xxxxx", "xxxxx", "x.x..", "x..x.", "x...x")
    state = finish_offer([board(score=30, wall_rows=rows), board()])
    assert state.scores[0] == 30 + 2 * 2 + 7 + 10
    assert result(state).standings[0].bonus == 21


def over(*boards):
    return position(list(boards), phase="over", factories=[])


def test_most_points_wins():
    """ "The player with the most points on her score track wins the game." """
    final = result(over(board(score=40), board(score=52), board(score=7)))
    assert final.winners == [1]
    assert [s.place for s in final.standings] == [2, 1, 3]
    assert final.ranking == [1, 0, 2]


def test_tie_broken_by_more_complete_rows():
    """ "In the case of a tie, the tied player with more complete horizontal lines wins the
    game." """
    one_row = ("xxxxx",) + EMPTY[1:]
    two_rows = ("xxxxx", "xxxxx") + EMPTY[2:]
    final = result(over(board(score=50, wall_rows=one_row), board(score=50, wall_rows=two_rows)))
    assert final.winners == [1]
    assert [s.place for s in final.standings] == [2, 1]


def test_tie_on_points_and_rows_is_a_shared_victory():
    """ "If that does not break the tie, the victory is shared." """
    one_row = ("xxxxx",) + EMPTY[1:]
    other_row = (".....", "xxxxx") + EMPTY[2:]
    final = result(
        over(
            board(score=50, wall_rows=one_row),
            board(score=61),
            board(score=61, wall_rows=other_row),
            board(score=61, wall_rows=one_row),
        )
    )
    assert final.winners == [2, 3]
    assert [s.place for s in final.standings] == [4, 3, 1, 1]


def test_result_only_for_a_finished_game():
    state = position([board(), board()], factories=["bbbb"])
    with pytest.raises(ValueError, match="the game is not over yet"):
        result(state)


def test_hand_verified_final_round():
    """A short last round whose scores are worked out by hand, not by the engine.

    Player 0 (20 points) has blue yellow red black on wall row 1; player 1 (15 points) has blue
    and yellow there. Two factories are left: F1 = white yellow black, F2 = red red blue blue.
    """
    p0 = board(score=20, wall_rows=("xxxx.",) + EMPTY[1:])
    p1 = board(score=15, wall_rows=("xx...",) + EMPTY[1:])
    state = position([p0, p1], factories=["wyk", "rrbb"])
    state = play(state, "F1 white 1")  # p0: white on line 1 (complete); y, k -> center
    state = play(state, "F2 red 3")  # p1: 2 red on line 3 (incomplete); b, b -> center
    state = play(state, "C blue 2")  # p0: 2 blue complete line 2, and the marker (floor 1)
    state = play(state, "C yellow floor")  # p1: yellow on the floor (floor 1)
    state = play(state, "C black floor")  # p0: black on the floor (floor 2)
    assert state.phase == "over"

    # Player 0, by hand:
    #   line 1 white -> row 1 column 5: row 1 becomes 5 linked tiles, nothing below -> +5
    #   line 2 blue  -> row 2 column 2: no horizontal neighbour, yellow above it -> +2
    #   floor: marker + black = 2 tiles -> -1 -1 = -2
    #   end: one complete row -> +2; no column, no colour
    p0_score = 20 + 5 + 2 - (1 + 1) + 2
    # Player 1, by hand: line 3 is incomplete (2 of 3) and stays; floor: 1 tile -> -1
    p1_score = 15 - 1
    assert (p0_score, p1_score) == (27, 14)
    assert state.scores == [p0_score, p1_score]
    assert result(state).winners == [0]
    assert state.to_dict()["boards"][1]["pattern_lines"][2] == ["red", 2]
