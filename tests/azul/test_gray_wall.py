"""The gray-wall variant (rulebook, "Variant play")."""

import pytest

from azul import IllegalMove, Place, Take, legal_moves, play

from .builders import board, finish_offer, position, snapshot

EMPTY = (".....",) * 5


def gray_tiling(*boards):
    """The gray-wall tiling phase for these boards (the last player drops a white tile)."""
    return finish_offer(list(boards), variant="gray")


def test_player_chooses_the_column():
    """ "When you move a tile from a pattern line to the wall, you may place it on any space of
    its corresponding wall line." """
    state = gray_tiling(board(lines={3: "rrr"}), board())
    assert state.phase == "tile"
    assert state.to_move == [0]
    assert sorted(legal_moves(state)) == [Place(2, column) for column in range(5)]
    for column in range(5):
        after = play(state, Place(2, column))
        assert after.to_dict()["boards"][0]["wall"][2][column] == "red"
        assert after.scores[0] == 1
        assert after.phase == "deal"


def test_chosen_column_scores_like_the_colored_wall():
    """ "Rules are exactly the same as in the normal game" apart from the choice of space: a tile
    placed next to others scores the linked tiles."""
    rows = (".b...", "w....", ".....", ".....", ".....")
    state = gray_tiling(board(lines={2: "rr"}, wall_rows=rows), board())
    assert play(state, "wall 2 2").scores[0] == 2 + 2  # row: white, red; column: blue, red
    assert play(state, "wall 2 5").scores[0] == 1


def test_no_colour_twice_in_a_column():
    """ "In each of the 5 vertical lines of your wall, no color may appear more than once." """
    rows = ("r....", ".....", "...r.", ".....", ".....")
    state = gray_tiling(board(lines={4: "rrrr"}, wall_rows=rows), board())
    assert sorted(legal_moves(state)) == [Place(3, 1), Place(3, 2), Place(3, 4)]
    before = snapshot(state)
    with pytest.raises(IllegalMove, match="the wall's column 1 already has red"):
        play(state, "wall 4 1")
    assert snapshot(state) == before


def test_no_colour_twice_in_a_row():
    """ "Also keep in mind that in each horizontal line, no color may appear more than once
    either." (The pattern line rule applies: no red on line 2 once wall row 2 has red.)"""
    rows = (".....", "....r", ".....", ".....", ".....")
    state = position([board(wall_rows=rows), board()], variant="gray", factories=["rrkk"])
    assert Take(1, 2, 1) not in legal_moves(state)
    with pytest.raises(IllegalMove, match="the wall's row 2 already has red"):
        play(state, "F1 red 2")


def test_occupied_space_and_wrong_line_are_refused():
    """A tile goes on a free space of "its corresponding wall line", and the lines are tiled
    "from top to bottom": an occupied space or a line out of turn is refused."""
    rows = (".....", "..b..", ".....", ".....", ".....")
    state = gray_tiling(board(lines={2: "rr", 4: "kkkk"}, wall_rows=rows), board())
    with pytest.raises(IllegalMove, match="already has a tile in column 3"):
        play(state, "wall 2 3")
    with pytest.raises(IllegalMove, match="pattern line 2 is the one to tile now, not 4"):
        play(state, "wall 4 1")


def test_single_legal_space_is_filled_without_asking():
    """The rulebook's player has no choice when only one space is legal: the engine places it
    ("a line whose tile has exactly one legal space is placed there without asking")."""
    # Row 2 has columns 1 and 5 free, but column 1 already has white (row 1).
    rows = ("w....", ".ykr.", ".....", ".....", ".....")
    state = gray_tiling(board(lines={2: "ww"}, wall_rows=rows), board())
    assert state.phase == "deal"
    assert state.to_dict()["boards"][0]["wall"][1] == [None, "yellow", "black", "red", "white"]
    assert state.scores[0] == 4  # 4 horizontally linked tiles, none above or below


def test_full_line_with_no_legal_space_falls_to_the_floor_whole():
    """ "In the wall-tiling phase, it may happen that you are not able to move the rightmost
    tile of a certain pattern line over to the wall because there is no valid space left for
    it. In this case, you must immediately place all tiles of that pattern line in your floor
    line." """
    # Row 3: columns 1-3 taken; columns 4 and 5 already hold red in other rows.
    rows = ("...r.", "....r", "bwk..", ".....", ".....")
    state = gray_tiling(board(score=10, lines={3: "rrr"}, wall_rows=rows), board())
    assert state.phase == "deal"  # no choice was asked for
    data = state.to_dict()
    assert data["boards"][0]["wall"][2] == ["blue", "white", "black", None, None]
    assert data["boards"][0]["pattern_lines"][2] == [None, 0]
    assert state.scores[0] == 10 - (1 + 1 + 2)  # 3 red tiles on the floor line
    assert data["lid"]["red"] == 3
    assert state.tile_total() == 100


def test_fallen_line_joins_what_is_already_on_the_floor():
    """The fallen tiles fill the floor line from left to right after the tiles already there;
    those that do not fit go to the lid."""
    rows = ("...r.", "....r", "bwk..", ".....", ".....")
    state = gray_tiling(board(score=20, lines={3: "rrr"}, wall_rows=rows, floor="kkkkk"), board())
    assert state.scores[0] == 20 - 14
    assert state.to_dict()["lid"]["red"] == 3


def test_every_player_with_a_choice_is_to_move():
    """Reading: "Players tile independently, so to_move lists everyone with a choice pending." The
    rulebook: "This phase can be carried out by all players simultaneously." """
    state = gray_tiling(board(lines={1: "b"}), board(lines={2: "yy"}), board())
    assert state.phase == "tile"
    assert state.to_move == [0, 1]
    with pytest.raises(ValueError, match=r"players \[0, 1\] are each choosing"):
        legal_moves(state)
    with pytest.raises(IllegalMove, match="say which one moves"):
        play(state, "wall 1 1")
    with pytest.raises(IllegalMove, match="player 2 has no wall space to choose now"):
        play(state, "wall 1 1", 2)
    assert legal_moves(state, 2) == []
    assert legal_moves(state, 1) == [Place(1, c) for c in range(5)]

    one_then_other = play(play(state, "wall 2 3", 1), "wall 1 4", 0)
    other_then_one = play(play(state, "wall 1 4", 0), "wall 2 3", 1)
    assert one_then_other == other_then_one
    assert one_then_other.phase == "deal"


def test_lines_are_tiled_top_to_bottom_and_later_forced_lines_wait_for_the_choice():
    """ "Go through your pattern lines from top to bottom." Line 1's choice comes first; line 2,
    whose space depends on it, is tiled after."""
    rows = (".....", ".ykr.", ".....", ".....", ".....")
    state = gray_tiling(board(lines={1: "w", 2: "ww"}, wall_rows=rows), board())
    assert state.to_move == [0]
    assert state.to_dict()["boards"][0]["tiling_line"] == 1
    assert state.to_dict()["boards"][0]["pattern_lines"][1] == ["white", 2]
    # white in column 1 of row 1 leaves row 2's white one space, column 5: placed without asking
    after = play(state, "wall 1 1")
    assert after.phase == "deal"
    assert after.to_dict()["boards"][0]["wall"][1][4] == "white"
    # and the other way round
    after = play(state, "wall 1 5")
    assert after.to_dict()["boards"][0]["wall"][1][0] == "white"
    # white in column 3 leaves two spaces: line 2 now waits for its own choice
    after = play(state, "wall 1 3")
    assert after.phase == "tile"
    assert after.to_dict()["boards"][0]["tiling_line"] == 2
    assert legal_moves(after) == [Place(1, 0), Place(1, 4)]


def test_take_during_tiling_and_wall_move_during_the_offer_are_refused():
    """Each phase has its own moves: takes in the factory offer, wall spaces in the tiling."""
    state = gray_tiling(board(lines={1: "b"}), board())
    with pytest.raises(IllegalMove, match="wall-tiling phase is under way"):
        play(state, "F1 blue 1")
    taking = position([board(), board()], variant="gray", factories=["bbbb", "rrrr"])
    with pytest.raises(IllegalMove, match="it is the factory offer"):
        play(taking, "wall 1 1")


def test_gray_game_ends_only_after_every_player_has_tiled():
    """ "The game ends right after the Wall-tiling phase in which at least one player has
    completed at least one horizontal line": a row completed by a forced placement does not end
    the game while another player still has a wall space to choose."""
    done_row = ("bykr.",) + EMPTY[1:]
    state = gray_tiling(board(lines={1: "w"}, wall_rows=done_row), board(lines={1: "b"}))
    assert state.to_dict()["boards"][0]["wall"][0][4] == "white"  # forced: row 1 complete
    assert state.phase == "tile"
    assert state.to_move == [1]
    state = play(state, "wall 1 3")
    assert state.phase == "over"
    assert state.scores == [5 + 2, 1 - 1]  # row of 5 + row bonus; 1 point - 1 floor tile
