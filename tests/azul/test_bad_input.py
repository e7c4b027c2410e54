"""Every public function refuses bad input with an error naming the problem, changing nothing."""

import copy
import random

import pytest

from azul import (
    IllegalMove,
    InvalidNotation,
    State,
    Take,
    apply_entry,
    deal,
    deal_entry,
    legal_moves,
    move_entry,
    new_game,
    play,
    replay,
)

from .builders import board, dealt, finish_offer, position, snapshot, tiles


def taking():
    """2 players, player 0 to take; factory 2 is empty; the center holds one yellow tile."""
    return position(
        [board(), board()],
        factories=["bbrk", "", "yyyy", "wwww", "kkkk"],
        center="y",
        marker_holder=None,
    )


@pytest.mark.parametrize(
    ("move", "player", "error", "reason"),
    [
        ("F1 blue 1", 1, IllegalMove, "it is player 0's turn, not player 1's"),
        ("F1 blue 1", 2, IllegalMove, "there is no player 2 in a 2-player game"),
        ("F1 blue 1", -1, IllegalMove, "there is no player -1"),
        (Take(1, 7, 0), None, IllegalMove, "unknown color 7"),
        (Take(1, 0, 6), None, IllegalMove, "unknown destination 6"),
        ("F1 purple 1", None, InvalidNotation, "unknown color 'purple'"),
        ("F0 blue 1", None, InvalidNotation, "the factory must be from 1 to 9, not 0"),
        ("F10 blue 1", None, InvalidNotation, "the factory must be from 1 to 9, not 10"),
        (Take(10, 0, 0), None, IllegalMove, "there is no factory 10"),
        ("F7 blue 1", None, IllegalMove, "no factory 7: a 2-player game has factories 1-5"),
        ("F6 blue 1", None, IllegalMove, "no factory 6"),
        ("F2 blue 1", None, IllegalMove, "factory 2 is empty"),
        ("F1 white 1", None, IllegalMove, "factory 1 has no white tiles"),
        ("C red 1", None, IllegalMove, "the center has no red tiles"),
        ("wall 1 1", None, IllegalMove, "it is the factory offer"),
        (("F1", "blue", 1), None, IllegalMove, "not a move"),
        (42, None, IllegalMove, "not a move"),
    ],
)
def test_play_refuses_bad_moves(move, player, error, reason):
    state = taking()
    before = snapshot(state)
    with pytest.raises(error, match=reason):
        play(state, move, player)
    assert snapshot(state) == before


def test_play_refuses_a_move_during_the_deal_phase():
    state = new_game(2)
    with pytest.raises(IllegalMove, match="the factories have not been filled for this round"):
        play(state, "F1 blue 1")
    assert legal_moves(state) == []


def test_deal_refused_during_the_take_phase():
    state = taking()
    before = snapshot(state)
    with pytest.raises(IllegalMove, match="the factories are already filled for this round"):
        deal(state, rng=random.Random(1))
    assert snapshot(state) == before


def test_moves_and_deals_refused_after_the_game_is_over():
    state = finish_offer([board(wall_rows=("xxxx.",) + (".....",) * 4, lines={1: "w"}), board()])
    assert state.phase == "over"
    with pytest.raises(IllegalMove, match="the game is over"):
        play(state, "F1 blue 1")
    with pytest.raises(IllegalMove, match="the game is over"):
        deal(state, rng=random.Random(1))


@pytest.mark.parametrize(
    ("fill", "reason"),
    [
        ([["blue"] * 4] * 4, "a deal lists the tiles of each of the 5 factories"),
        ([["blue"] * 4] * 6, "a deal lists the tiles of each of the 5 factories"),
        ("bbbb" * 5, "a deal lists the tiles of each of the 5 factories"),
        ([["blue"] * 5] + [["red"] * 4] * 4, "factory 1 must get 4 tiles, not 5"),
        ([["blue"] * 3] + [["red"] * 4] * 4, "factory 1 must get 4 tiles, not 3"),
        ([["purple"] * 4] + [["red"] * 4] * 4, "factory 1: unknown color 'purple'"),
        ([[None] * 4] + [["red"] * 4] * 4, "factory 1: unknown color None"),
        (["bbbb"] + [["red"] * 4] * 4, "factory 1: a deal lists each factory's tiles"),
        ([["blue"] * 4] * 5, "the deal draws 20 blue tiles but the bag holds 19"),
    ],
)
def test_deal_refuses_bad_tiles(fill, reason):
    state = position([board(lines={1: "b"}), board()], phase="deal", round_number=1)
    before = snapshot(state)
    with pytest.raises(IllegalMove, match=reason):
        deal(state, tiles=fill)
    assert snapshot(state) == before


def test_deal_needs_exactly_one_of_rng_and_tiles():
    state = new_game(2)
    with pytest.raises(ValueError, match="exactly one of rng or tiles"):
        deal(state)
    with pytest.raises(ValueError, match="exactly one of rng or tiles"):
        deal(state, rng=random.Random(1), tiles=[tiles("bbbb")] * 5)


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        ((5,), "Azul is for 2, 3 or 4 players, not 5"),
        ((1,), "Azul is for 2, 3 or 4 players, not 1"),
        (("2",), "Azul is for 2, 3 or 4 players, not '2'"),
        ((2, "purple"), "variant must be 'colored' or 'gray', not 'purple'"),
        ((2, "colored", 2), "first_player must be 0-1, not 2"),
    ],
)
def test_new_game_refuses_bad_settings(args, reason):
    with pytest.raises(ValueError, match=reason):
        new_game(*args)


def good_data():
    return taking().to_dict()


def edited(change):
    data = copy.deepcopy(good_data())
    change(data)
    return data


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        (lambda d: d["bag"].update(blue=d["bag"]["blue"] + 1), "100 tiles, this state has 101"),
        (lambda d: d["center"].append("purple"), "center: unknown color 'purple'"),
        (lambda d: d.update(phase="bidding"), "phase must be one of"),
        (lambda d: d.update(variant="grey"), "variant must be one of"),
        (lambda d: d.update(players=5), "players must be a whole number from 2 to 4"),
        (lambda d: d.update(format=2), "unsupported state format 2"),
        (lambda d: d["factories"].pop(), "a 2-player game has 5 factories"),
        (lambda d: d["factories"][0].append("red"), "factory 1 must be a list of at most 4"),
        (lambda d: d["boards"][0].update(score=-1), "board 0 score must be a whole number"),
        (lambda d: d["boards"][0]["floor"].extend(["marker"]), "marker_holder says not"),
        (lambda d: d["boards"].pop(), "one board per player"),
        (lambda d: d.pop("lid"), "malformed state data"),
        (
            lambda d: (d["bag"].update(blue=d["bag"]["blue"] - 1), d["lid"].update(red=1)),
            "there are 20 blue tiles, this state has 19",
        ),
    ],
)
def test_from_dict_refuses_bad_data(change, reason):
    with pytest.raises(ValueError, match=reason):
        State.from_dict(edited(change))


def test_from_dict_refuses_non_mappings():
    for value in (None, [], "state"):
        with pytest.raises(ValueError, match="state data must be a JSON object"):
            State.from_dict(value)


def test_replay_names_the_bad_entry():
    good = [
        deal_entry([tiles("bbrk"), tiles("yyyy"), tiles("wwww"), tiles("kkkk"), tiles("rrrb")]),
        move_entry(0, "F1 blue 1"),
        move_entry(1, "F2 yellow 2"),
    ]
    assert replay(good, players=2).to_move == [0]
    with pytest.raises(IllegalMove, match=r"log entry 3: the center has no blue tiles"):
        replay([*good, move_entry(0, "C blue 3")], players=2)
    with pytest.raises(IllegalMove, match=r"log entry 2: it is player 1's turn, not player 0's"):
        replay([good[0], good[1], move_entry(0, "F2 yellow 2")], players=2)
    with pytest.raises(IllegalMove, match=r"log entry 1: unknown log entry kind 'pass'"):
        replay([good[0], {"kind": "pass"}], players=2)
    with pytest.raises(IllegalMove, match=r"log entry 1: a log entry is a mapping, not str"):
        replay([good[0], "F1 blue 1"], players=2)
    with pytest.raises(IllegalMove, match=r"log entry 1: unknown color 'purple'"):
        replay([good[0], {"kind": "move", "player": 0, "move": "F1 purple 1"}], players=2)
    with pytest.raises(IllegalMove, match=r"log entry 0: a deal lists the tiles of each"):
        replay([{"kind": "deal", "tiles": []}], players=2)


def test_apply_entry_leaves_the_state_unchanged_on_error():
    state = taking()
    before = snapshot(state)
    with pytest.raises(IllegalMove):
        apply_entry(state, {"kind": "move", "player": 1, "move": "F1 blue 1"})
    with pytest.raises(IllegalMove):
        apply_entry(state, {"kind": "deal", "tiles": [[]] * 5})
    assert snapshot(state) == before


def test_legal_moves_refuses_an_unknown_player():
    state = taking()
    with pytest.raises(IllegalMove, match="there is no player 3 in a 2-player game"):
        legal_moves(state, 3)
    assert legal_moves(state, 1) == []  # a real player, just not the one to move


def test_functions_refuse_something_that_is_not_a_state():
    with pytest.raises(TypeError, match="expected a State, not dict"):
        play({}, "F1 blue 1")
    with pytest.raises(TypeError, match="expected a State, not dict"):
        deal({}, rng=random.Random(1))


def test_a_dealt_state_is_unchanged_by_a_refused_deal_entry():
    state = dealt(new_game(2), "bbbb", "yyyy", "rrrr", "kkkk", "wwww")
    before = snapshot(state)
    with pytest.raises(IllegalMove, match="already filled"):
        apply_entry(state, deal_entry([tiles("bbbb")] * 5))
    assert snapshot(state) == before


def test_from_dict_refuses_tiles_on_offer_outside_the_take_phase():
    """A deal replaces the factories: tiles already on them would vanish (96 tiles left)."""
    for phase in ("deal", "tile", "over"):
        data = edited(lambda d, phase=phase: d.update(phase=phase))
        with pytest.raises(ValueError, match=f"tiles on offer .* not the {phase} phase"):
            State.from_dict(data)


def test_from_dict_refuses_a_take_phase_with_nothing_to_take():
    """Nobody could ever move in such a state."""
    data = position([board(), board()], phase="deal").to_dict()
    data["phase"] = "take"
    with pytest.raises(ValueError, match="the take phase needs tiles on offer"):
        State.from_dict(data)


def test_from_dict_refuses_a_tile_phase_with_nobody_tiling():
    data = position([board(), board()], phase="deal").to_dict()
    data["phase"] = "tile"
    with pytest.raises(ValueError, match="the tile phase needs a player with a wall space"):
        State.from_dict(data)
