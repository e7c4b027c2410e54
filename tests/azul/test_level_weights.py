"""Which evaluation each computer level plays by: a level that uses fitted round-end tables takes
the ones shipped for the game's player count and wall, and keeps the hand-written evaluation
where none ship; the levels below ``strong`` never take them; the analysis judges by the
``strong`` level's evaluation. (The arena playing a level without its tables, or with other
ones: tests/research/test_arena.py.)"""

from __future__ import annotations

import dataclasses
import json
import random

import pytest

from azul import FLOOR, deal, legal_moves, new_game
from azul.ai import bots
from azul.ai.bots import LEVELS, level_weights, shipped_tables
from azul.ai.evaluation import DEFAULT, load_round_end_tables
from azul.ai.judge import analysis_weights, judge_position

from .builders import plain_tables_data, write_plain_tables


@pytest.fixture
def fresh_caches():
    """The shipped tables and the levels' weights are read once a process: start and end clean."""
    bots.shipped_tables.cache_clear()
    bots._weights_for.cache_clear()
    yield
    bots.shipped_tables.cache_clear()
    bots._weights_for.cache_clear()


def opening(players: int, variant: str = "colored", seed: int = 3):
    return deal(new_game(players, variant), rng=random.Random(seed))


def test_the_shipped_tables_are_found_by_player_count_and_wall(tmp_path, monkeypatch, fresh_caches):
    write_plain_tables(tmp_path / "roundend-3p-gray.json")
    monkeypatch.setattr(bots, "WEIGHTS_DIR", tmp_path)
    tables = shipped_tables(3, "gray")
    assert tables is not None and tables.source == "roundend-3p-gray.json"
    assert shipped_tables(3, "colored") is None
    assert shipped_tables(2, "gray") is None
    assert shipped_tables(2, "colored") is None  # its named file is not in this folder


def test_the_two_player_colored_game_ships_the_corrected_tables_with_their_search_knobs():
    tables = shipped_tables(2, "colored")
    assert tables is not None and tables.source == "roundend-2p-residual.json"
    assert tables.residual is not None
    assert dict(tables.search) == {"own_weight": 1.0, "win_spread": 6.0}
    # the same tables as research/weights/roundend-2p.json: tests/research/test_residual.py


def test_a_fitted_level_takes_the_tables_of_its_game_and_else_keeps_the_hand(
    tmp_path, monkeypatch, fresh_caches
):
    write_plain_tables(tmp_path / "roundend-3p.json")
    monkeypatch.setattr(bots, "WEIGHTS_DIR", tmp_path)
    fitted_strong = dataclasses.replace(LEVELS["strong"], fitted=True)
    monkeypatch.setitem(LEVELS, "strong", fitted_strong)
    with_tables = level_weights("strong", opening(3))
    assert with_tables.fitted is not None and with_tables.fitted.source == "roundend-3p.json"
    assert dataclasses.replace(with_tables, fitted=None) == fitted_strong.weights
    assert level_weights("strong", opening(3)) is with_tables  # built once, its caches kept
    assert level_weights("strong", opening(4)) == fitted_strong.weights  # none ship for 4
    assert level_weights("strong", opening(3, "gray")).fitted is None


@pytest.mark.parametrize("level", ["random", "greedy", "medium"])
@pytest.mark.parametrize(("players", "variant"), [(2, "colored"), (3, "gray"), (4, "colored")])
def test_the_levels_below_strong_keep_the_hand_written_evaluation(level, players, variant):
    assert not LEVELS[level].fitted
    assert level_weights(level, opening(players, variant)) == DEFAULT


def test_the_analysis_judges_by_the_strong_levels_hand_written_evaluation():
    """The fitted tables' points are not yet the analysis's (azul.ai.judge.analysis_weights)."""
    state = opening(2)
    player = state.to_move[0]
    floor = next(m for m in legal_moves(state, player) if m.line == FLOOR)
    assert analysis_weights(state) == LEVELS["strong"].weights
    assert level_weights("strong", state) != LEVELS["strong"].weights
    by_default = judge_position(state, player, floor, seed=4, iterations=150)
    by_hand = judge_position(
        state, player, floor, seed=4, iterations=150, weights=LEVELS["strong"].weights
    )
    assert by_default.values == by_hand.values


@pytest.mark.parametrize("level", ["strong", "master"])
def test_strong_and_master_play_two_player_colored_games_by_the_corrected_tables(level):
    """BOTS.md, "The levels play by it" and "The search's knobs for the tables": strong and
    master against their hand-written selves in 2-player colored games, with the shipped file's
    knobs (own_weight 1.0, win_spread 6); every other game as before."""
    own = LEVELS[level].weights
    played = level_weights(level, opening(2))
    assert played.fitted is shipped_tables(2, "colored")
    assert played == dataclasses.replace(own, fitted=played.fitted, win_spread=6.0, own_weight=1.0)
    assert own.win_spread == 0.0 and own.fitted is None and own.own_weight == 1.5
    for players, variant in [(2, "gray"), (3, "colored"), (4, "gray")]:
        assert level_weights(level, opening(players, variant)) == own


def test_the_tables_can_be_asked_for_whatever_the_level_chooses():
    """To measure the tables (research/analysis_accuracy.py --evaluation shipped): ``tables=True``
    takes them where they ship, ``tables=False`` leaves them out."""
    shipped = shipped_tables(2, "colored")
    assert level_weights("strong", opening(2), tables=True).fitted is shipped
    assert level_weights("strong", opening(2), tables=False) == LEVELS["strong"].weights
    assert level_weights("strong", opening(3), tables=True) == LEVELS["strong"].weights


@pytest.mark.parametrize("knob", ["no_such_knob", "fitted"])
def test_a_tables_file_with_a_search_knob_that_is_no_weight_is_refused(tmp_path, knob):
    data = plain_tables_data()
    data["search"] = {knob: 1.0}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ValueError, match=knob):
        load_round_end_tables(str(path))
