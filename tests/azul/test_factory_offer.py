"""Phase A, the factory offer: taking tiles, pattern lines and the floor line."""

import pytest

from azul import CENTER, FLOOR, IllegalMove, Take, legal_moves, play

from .builders import BLUE, RED, YELLOW, board, position, snapshot


def two_players(**kw):
    return position([board(), board()], **kw)


def test_factory_take_takes_every_tile_of_the_colour_and_moves_the_rest_to_the_center():
    """ "Pick all tiles of the same color from any one Factory display and then move the
    remaining tiles from this Factory display to the center of the table." """
    state = two_players(factories=["bbyr", "kkkw"], center="w")
    after = play(state, "F1 blue 5")
    data = after.to_dict()
    assert data["boards"][0]["pattern_lines"][4] == ["blue", 2]
    assert data["factories"][0] == []
    assert data["factories"][1] == ["black"] * 3 + ["white"]
    assert sorted(data["center"]) == ["red", "white", "yellow"]
    assert after.tile_total() == 100


def test_center_take_takes_every_tile_of_the_colour_and_leaves_the_rest():
    """ "Pick all tiles of the same color from the center of the table." """
    state = two_players(factories=["kkkw"], center="rrrby", marker_holder=1)
    after = play(state, "C red 3")
    data = after.to_dict()
    assert data["boards"][0]["pattern_lines"][2] == ["red", 3]
    assert sorted(data["center"]) == ["blue", "yellow"]


def test_first_center_take_also_takes_the_marker_onto_the_leftmost_free_floor_space():
    """ "If you are the first player in this round to pick tiles from the center of the table,
    also take the starting player marker and place it onto the leftmost free space of your
    floor line." """
    state = position([board(floor="kk"), board()], factories=["bbbb"], center="rry")
    assert state.marker_in_center
    after = play(state, "C red 1")  # 1 red fits, 1 falls to the floor after the marker
    data = after.to_dict()
    assert data["boards"][0]["floor"] == ["black", "black", "marker", "red"]
    assert data["marker_holder"] == 0
    assert not after.marker_in_center


def test_later_center_takes_do_not_take_the_marker():
    """Only "the first player in this round to pick tiles from the center" takes the marker."""
    state = two_players(factories=["bbbb"], center="rry")
    state = play(state, "C red 2")
    state = play(state, "C yellow floor")
    data = state.to_dict()
    assert data["boards"][0]["floor"] == ["marker"]
    assert data["boards"][1]["floor"] == ["yellow"]
    assert data["marker_holder"] == 0


def test_tiles_fill_a_pattern_line_from_right_to_left_until_it_is_complete():
    """ "Place the tiles, one by one, from right to left in your chosen pattern line. [...] Once
    all spaces of a pattern line are filled, that line is considered complete." """
    state = two_players(factories=["rkkk", "rrww", "bbbb"])
    state = play(state, "F1 red 3")
    assert state.to_dict()["boards"][0]["pattern_lines"][2] == ["red", 1]
    state = play(state, "F3 blue floor", 1)
    state = play(state, "F2 red 3")
    assert state.to_dict()["boards"][0]["pattern_lines"][2] == ["red", 3]
    assert state.to_dict()["boards"][0]["floor"] == []
    state = play(state, "C white floor", 1)
    assert Take(CENTER, 3, 2) not in legal_moves(state)
    with pytest.raises(IllegalMove, match="pattern line 3 is already full"):
        play(state, "C black 3")


def test_a_started_pattern_line_takes_only_its_colour():
    """ "If the pattern line already holds tiles, you may only add tiles of the same color to
    it." """
    state = position([board(lines={3: "b"}), board()], factories=["rrky"])
    assert Take(1, RED, 2) not in legal_moves(state)
    with pytest.raises(IllegalMove, match="pattern line 3 already holds blue"):
        play(state, "F1 red 3")
    state = position([board(lines={3: "b"}), board()], factories=["bbky"])
    assert play(state, "F1 blue 3").to_dict()["boards"][0]["pattern_lines"][2] == ["blue", 3]


def test_no_colour_in_a_pattern_line_whose_wall_row_already_has_it():
    """ "You are not allowed to place tiles of a certain color in a pattern line whose
    corresponding line of your wall already holds a tile of that color." """
    # The colored wall's row 2 has yellow in its 3rd column.
    state = position(
        [board(wall_rows=(".....", "..y..", ".....", ".....", ".....")), board()],
        factories=["yyrk"],
    )
    assert Take(1, YELLOW, 1) not in legal_moves(state)
    before = snapshot(state)
    with pytest.raises(IllegalMove, match="the wall's row 2 already has yellow"):
        play(state, "F1 yellow 2")
    assert snapshot(state) == before
    assert Take(1, YELLOW, 2) in legal_moves(state)


def test_excess_tiles_go_to_the_floor_line():
    """ "If you have picked up more tiles than you can place in your chosen pattern line, you
    must place the excess tiles in the floor line." """
    state = two_players(factories=["bbbb", "rrrr"])
    data = play(state, "F1 blue 2").to_dict()["boards"][0]
    assert data["pattern_lines"][1] == ["blue", 2]
    assert data["floor"] == ["blue", "blue"]


def test_excess_fills_the_floor_line_from_left_to_right():
    """ "[...] you must place in your floor line, filling its spaces from left to right." """
    state = position([board(floor="rk"), board()], factories=["bbbw"])
    data = play(state, "F1 blue 1").to_dict()["boards"][0]
    assert data["floor"] == ["red", "black", "blue", "blue"]


def test_tiles_that_do_not_fit_on_a_full_floor_line_go_to_the_lid():
    """ "If all spaces of your floor line are occupied, return any further fallen tiles to the
    lid of the game box to store them for now." """
    state = position([board(floor="kkkkkk"), board()], factories=["bbbw"])
    after = play(state, "F1 blue floor")
    data = after.to_dict()
    assert data["boards"][0]["floor"] == ["black"] * 6 + ["blue"]
    assert data["lid"]["blue"] == 2
    assert after.tile_total() == 100


def test_floor_line_is_always_a_legal_destination():
    """ "Any tiles you have picked that you cannot or do not want to place according to the
    rules, you must place in your floor line." """
    state = two_players(factories=["bbry", "kkkk"], center="w")
    moves = legal_moves(state)
    for source, color in [(1, BLUE), (1, RED), (1, YELLOW), (2, 3), (CENTER, 4)]:
        assert Take(source, color, FLOOR) in moves
        assert Take(source, color, 0) in moves  # a line was possible: the floor is a choice
    data = play(state, "F2 black floor").to_dict()["boards"][0]
    assert data["floor"] == ["black"] * 4
    assert data["pattern_lines"] == [[None, 0]] * 5


def test_play_continues_clockwise():
    """ "[The starting player] takes the first turn. Play then continues clockwise." """
    state = position(
        [board(), board(), board()],
        factories=["bbbb", "yyyy", "rrrr", "kkkk"],
        current=1,
        first_player=1,
    )
    order = []
    for source in range(1, 5):
        order.append(state.to_move[0])
        state = play(state, f"F{source} {['blue', 'yellow', 'red', 'black'][source - 1]} floor")
    assert order == [1, 2, 0, 1]


def test_the_offer_goes_on_while_the_center_still_has_tiles():
    """ "This phase ends when the center of the table AND all Factory displays contain no more
    tiles." (Factories empty but center not: the phase goes on.)"""
    state = two_players(factories=["bbyr"])
    state = play(state, "F1 blue floor")
    assert state.phase == "take"
    assert state.to_move == [1]
    state = play(state, "C yellow floor")
    assert state.phase == "take"
    state = play(state, "C red floor")
    assert state.phase == "deal"  # colored wall: the tiling phase ran by itself


def test_the_offer_goes_on_while_a_factory_still_has_tiles():
    """ "This phase ends when the center of the table AND all Factory displays contain no more
    tiles." (Center empty but a factory not: the phase goes on.)"""
    state = two_players(factories=["bbbb", "rrrr"])
    state = play(state, "F1 blue floor")
    assert state.phase == "take"
    assert play(state, "F2 red floor").phase == "deal"


def test_first_turns_example():
    """Rulebook, "First turns example": "On his turn, Peter picks the 2 black tiles from a
    Factory display and places the remaining tiles in the center of the table. Martin picks the
    yellow tile from a Factory display and places the remaining 3 red tiles in the center of the
    table. Then, Andrea picks these 3 red tiles from the center of the table. As she is the first
    one to pick from the center, she also takes the starting player marker and places it on the
    leftmost space of her floor line." """
    peter, martin, andrea = 0, 1, 2
    state = position(
        [board(), board(), board()],
        factories=["kkbw", "yrrr", "bbyy", "wwww", "kyrb", "bbbb", "yyyy"],
    )
    state = play(state, "F1 black 2", peter)
    assert sorted(state.to_dict()["center"]) == ["blue", "white"]
    state = play(state, "F2 yellow 1", martin)
    assert sorted(state.to_dict()["center"]) == ["blue", "red", "red", "red", "white"]
    state = play(state, "C red 3", andrea)
    data = state.to_dict()
    assert data["boards"][andrea]["pattern_lines"][2] == ["red", 3]
    assert data["boards"][andrea]["floor"] == ["marker"]
    assert data["marker_holder"] == andrea
    assert sorted(data["center"]) == ["blue", "white"]
    assert state.to_move == [peter]


def test_andreas_legal_and_illegal_destinations():
    """Rulebook example: "Andrea picks 2 yellow tiles from a Factory display. She is not allowed
    to place them in her second or third pattern line, as their corresponding wall lines each
    have a yellow tile. She may not place them in the fourth pattern line either, as there is
    already 1 blue tile [...]. She may, however, place 1 of them in the first pattern line and
    the excess tile in the floor line (A). Or she may place both tiles in the fifth pattern line
    (B). She may even choose to place both tiles in the floor line (C)." """
    andrea = board(
        lines={4: "b"},
        wall_rows=(".....", "..y..", "...y.", ".....", "....."),
    )
    state = position([andrea, board()], factories=["yybk"])
    yellow_from_f1 = {m.line for m in legal_moves(state) if m[:2] == (1, YELLOW)}
    assert yellow_from_f1 == {0, 4, FLOOR}

    before = snapshot(state)
    for text, reason in [
        ("F1 yellow 2", "the wall's row 2 already has yellow"),
        ("F1 yellow 3", "the wall's row 3 already has yellow"),
        ("F1 yellow 4", "pattern line 4 already holds blue"),
    ]:
        with pytest.raises(IllegalMove, match=reason):
            play(state, text)
    assert snapshot(state) == before

    a = play(state, "F1 yellow 1").to_dict()["boards"][0]
    assert a["pattern_lines"][0] == ["yellow", 1]
    assert a["floor"] == ["yellow"]
    b = play(state, "F1 yellow 5").to_dict()["boards"][0]
    assert b["pattern_lines"][4] == ["yellow", 2]
    assert b["floor"] == []
    c = play(state, "F1 yellow floor").to_dict()["boards"][0]
    assert c["floor"] == ["yellow", "yellow"]
    assert c["pattern_lines"][0] == [None, 0]
