"""The readings rules.py chose where the rulebook leaves a case open (see its docstring).

The third reading, a deal that finds no tile at all, is tested in test_next_round.py.
"""

from azul import play

from .builders import board, dealt, position


def test_full_floor_line_and_first_center_take():
    """Reading: "Taking from the center first with a full floor line: the player still takes
    the starting player marker and starts the next round, but it occupies no floor space (there
    is none) and costs no further points: the floor line's seven spaces are the most a player
    can lose in a round." (The rulebook: "If you are the first player in this round to pick
    tiles from the center of the table, also take the starting player marker and place it onto
    the leftmost free space of your floor line.")"""
    state = position([board(score=20, floor="kkkkkkk"), board()], factories=["rrrr"], center="bb")
    state = play(state, "C blue floor")
    data = state.to_dict()
    assert data["marker_holder"] == 0
    assert data["boards"][0]["floor"] == ["black"] * 7
    assert data["lid"]["blue"] == 2  # no room on the floor line: both blue tiles to the lid
    state = play(state, "F1 red floor")
    assert state.phase == "deal"
    assert state.scores[0] == 20 - 14
    assert state.first_player == 0
    assert state.tile_total() == 100


def test_nobody_takes_from_the_center():
    """Reading: "Nobody takes from the center in a round (every factory was taken whole): the
    marker stays in the center and the same player starts the next round." """
    state = position(
        [board(), board(), board()],
        factories=["bbbb", "yyyy", "rrrr"],
        current=1,
        first_player=1,
    )
    state = play(state, "F1 blue floor", 1)
    state = play(state, "F2 yellow floor", 2)
    state = play(state, "F3 red floor", 0)
    assert state.phase == "deal"
    assert state.to_dict()["marker_holder"] is None
    assert state.first_player == 1
    assert dealt(state, "bbbb", "yyyy", "rrrr", "kkkk", "wwww", "bbbb", "yyyy").to_move == [1]


DEAD_GRAY_WALL = ("kb.rw", "b.rky", "wy.br", "rwy.b", "yrkw.")
"""A gray wall where each row misses one colour that already stands in its empty space's column."""


def test_game_ends_when_no_row_can_ever_be_completed_on_the_gray_wall():
    """Reading: "Nobody can ever complete a row": on the gray wall a row whose missing colours
    already stand in the columns of its empty spaces can never be finished ("in each of the 5
    vertical lines of your wall, no color may appear more than once"). When that holds for every
    row of every player, the game ends after that round's wall tiling, with the bonuses, since
    the rulebook's end ("after the round in which at least one player has completed a horizontal
    line") would never come."""
    state = position(
        [board(wall_rows=DEAD_GRAY_WALL), board(wall_rows=DEAD_GRAY_WALL)],
        factories=["wwww"],
        variant="gray",
    )
    state = play(state, "F1 white floor")
    assert state.phase == "over"
    assert state.to_move == []


def test_game_goes_on_while_one_player_can_still_complete_a_row():
    """The reading above only ends a game when no player at all can complete a row."""
    state = position([board(wall_rows=DEAD_GRAY_WALL), board()], factories=["wwww"], variant="gray")
    state = play(state, "F1 white floor")
    assert state.phase == "deal"


def test_game_ends_when_the_tiles_rows_need_are_locked_in_pattern_lines():
    """Reading: the tiles a row needs can all end up where they never move again: on walls, or
    in pattern lines that can never fill up. Here every row of both walls misses only yellow and
    all 20 yellow tiles sit in pattern lines that each need one more yellow, so no row can ever
    be completed and the game ends."""
    missing_yellow = ("x.xxx", "xx.xx", "xxx.x", "xxxx.", ".xxxx")
    locked = {2: "y", 3: "yy", 4: "yyy", 5: "yyyy"}
    state = position([board(lines=locked, wall_rows=missing_yellow)] * 2, factories=["wwww"])
    state = play(state, "F1 white floor")
    assert state.phase == "over"
    assert state.tile_total() == 100
