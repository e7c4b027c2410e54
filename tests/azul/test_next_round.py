"""Phase C, preparing the next round: refilling the factories from the bag and the lid."""

import random

import pytest

from azul import COLORS, IllegalMove, deal, draw_tiles

from .builders import board, crowded_boards, dealt, position, snapshot, tiles

# Player boards that hold 52 tiles between them (2 players): the bag and lid share the other 48.
BUSY_WALL = ("xxxx.", "xxxx.", "xxxx.", "xxxx.", ".....")  # 16 tiles, no complete row


def busy_boards():
    """Two boards holding 16 wall tiles and 10 pattern-line tiles each (52 tiles in all)."""
    held = {2: "k", 3: "rr", 4: "yyy", 5: "bbbb"}
    return [board(wall_rows=BUSY_WALL, lines=held), board(wall_rows=BUSY_WALL, lines=held)]


def low_bag_state():
    """Deal phase, 2 players: 6 tiles in the bag (b b y y r r), 42 in the lid."""
    bag = "bbyyrr"
    state = position(busy_boards(), phase="deal", bag=bag, lid=lid_rest(bag))
    assert sum(state.to_dict()["bag"].values()) == 6
    return state


def lid_rest(bag: str) -> str:
    """Letters for the tiles that neither busy_boards() nor ``bag`` hold."""
    probe = position(busy_boards(), phase="deal")
    rest = dict(probe.to_dict()["bag"])
    for name in tiles(bag):
        rest[name] -= 1
    letter = {"blue": "b", "yellow": "y", "red": "r", "black": "k", "white": "w"}
    return "".join(letter[name] * n for name, n in rest.items())


def test_bag_runs_empty_mid_fill_and_is_refilled_from_the_lid():
    """ "If the bag is empty, refill it with all the tiles that you have placed in the lid of the
    game box and then continue filling the remaining Factory displays." """
    state = low_bag_state()
    bag_before = state.to_dict()["bag"]
    lid_before = state.to_dict()["lid"]
    after = deal(state, rng=random.Random(3))
    data = after.to_dict()
    assert [len(f) for f in data["factories"]] == [4] * 5
    drawn = {name: sum(f.count(name) for f in data["factories"]) for name in COLORS}
    # every tile of the bag was drawn before the lid was poured in
    assert all(drawn[name] >= bag_before[name] for name in COLORS)
    assert sum(data["lid"].values()) == 0
    assert sum(data["bag"].values()) == 6 + 42 - 20
    for name in COLORS:
        assert data["bag"][name] == bag_before[name] + lid_before[name] - drawn[name]
    assert after.tile_total() == 100


def test_a_recorded_mid_fill_deal_must_hold_the_whole_bag():
    """Reading (rules.py): "When the bag runs out mid-fill, every tile still in the bag is drawn
    before the lid is poured in, so a recorded deal is valid only if it holds the whole bag and
    the rest comes from the lid." """
    state = low_bag_state()
    ok = dealt(state, "bbyy", "rrkk", "kkww", "wwkk", "kkkk")
    assert ok.phase == "take"
    assert sum(ok.to_dict()["lid"].values()) == 0
    before = snapshot(state)
    with pytest.raises(IllegalMove, match="all 2 red tiles in it are drawn before the lid"):
        dealt(state, "bbyy", "kkkk", "kkww", "wwkk", "kkkk")
    assert snapshot(state) == before


def test_factories_stay_short_when_bag_and_lid_are_both_empty():
    """ "In the rare case that you run out of tiles again while there are none left in the lid,
    start the new round as usual even though not all Factory displays are properly filled." """
    state = position(crowded_boards(spare=5), phase="deal")
    assert sum(state.to_dict()["bag"].values()) == 5
    assert sum(state.to_dict()["lid"].values()) == 0
    after = deal(state, rng=random.Random(0))
    assert [len(f) for f in after.to_dict()["factories"]] == [4, 1, 0, 0, 0, 0, 0, 0, 0]
    assert after.phase == "take"
    assert after.to_move == [0]
    assert draw_tiles(state, random.Random(0)) == after.factory_tiles()


def test_short_deal_takes_what_the_lid_has_after_the_bag():
    """Bag (2 tiles) and lid (3 tiles) together cannot fill the factories: the bag's tiles, then
    the lid's, and the remaining factories stay short."""
    boards = crowded_boards(spare=5)
    state = position(boards, phase="deal", bag="kk", lid="kww")
    after = deal(state, rng=random.Random(5))
    data = after.to_dict()
    assert [len(f) for f in data["factories"]] == [4, 1] + [0] * 7
    assert sum(data["bag"].values()) + sum(data["lid"].values()) == 0
    with pytest.raises(IllegalMove, match="factory 2 must get 1 tiles, not 4"):
        dealt(state, "kkww", "kkww")


def test_a_deal_that_finds_no_tile_ends_the_game():
    """Reading (rules.py): "A deal that finds no tile at all (bag and lid both empty, every tile
    on walls and pattern lines): no player could ever move again, so the game ends after that
    round with the end-of-game bonuses, as if a row had been completed." """
    state = position(crowded_boards(), phase="deal", round_number=9)
    assert draw_tiles(state, random.Random(1)) == [[]] * 9
    after = dealt(state)
    assert after.phase == "over"
    assert after.scores == [0, 0, 0, 0]  # these walls earn no bonus
    assert deal(state, rng=random.Random(1)) == after
