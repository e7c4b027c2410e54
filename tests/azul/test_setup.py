"""Game setup (rulebook, "Game setup")."""

import random

import pytest

from azul import COLORS, FACTORY_COUNT, deal, new_game

from .builders import count_tiles


@pytest.mark.parametrize(("players", "factories"), [(2, 5), (3, 7), (4, 9)])
def test_factory_count_per_player_count(players, factories):
    """ "In a 2-player game, place 5 Factory displays. In a 3-player game, place 7 Factory
    displays. In a 4-player game, place 9 Factory displays." """
    state = new_game(players)
    assert FACTORY_COUNT[players] == factories
    assert len(state.to_dict()["factories"]) == factories


@pytest.mark.parametrize("players", [2, 3, 4])
def test_bag_holds_100_tiles_20_of_each_colour(players):
    """ "Fill the bag with the 100 tiles (20 of each color)." """
    data = new_game(players).to_dict()
    assert data["bag"] == {name: 20 for name in COLORS}
    assert count_tiles(data) == {name: 20 for name in COLORS}
    assert new_game(players).tile_total() == 100


@pytest.mark.parametrize("players", [2, 3, 4])
def test_each_factory_gets_exactly_4_tiles(players):
    """ "[The starting player] fills each Factory display with exactly 4 tiles randomly drawn
    from the bag." """
    state = deal(new_game(players), rng=random.Random(7))
    data = state.to_dict()
    assert [len(f) for f in data["factories"]] == [4] * FACTORY_COUNT[players]
    assert sum(data["bag"].values()) == 100 - 4 * FACTORY_COUNT[players]
    assert state.tile_total() == 100


def test_scores_start_at_zero():
    """ "Take 1 scoring marker and place it on space "0" of your score track." """
    assert new_game(3).scores == [0, 0, 0]


@pytest.mark.parametrize("first_player", [0, 1, 2])
def test_starting_player_takes_the_first_turn_with_marker_in_center(first_player):
    """ "The starting player places the starting player marker in the center of the table and
    then takes the first turn." """
    state = new_game(3, first_player=first_player)
    assert state.phase == "deal"
    state = deal(state, rng=random.Random(1))
    assert state.phase == "take"
    assert state.to_move == [first_player]
    assert state.marker_in_center
    assert state.to_dict()["marker_holder"] is None


@pytest.mark.parametrize("variant", ["colored", "gray"])
def test_all_players_use_the_same_side(variant):
    """ "Each player must use the same side." (The variant is one setting for the game.)"""
    state = new_game(4, variant)
    assert state.variant == variant
    assert state.to_dict()["variant"] == variant
