"""Whole recorded games (tests/engine/fixtures/*.json) replay to their known final scores.

The fixtures were generated once with seeded random play and saved; they pin the engine's
behaviour over complete games (deals, takes, gray-wall choices, scoring, end bonuses).
"""

import json
from pathlib import Path

import pytest

from azul import State, apply_entry, new_game, replay, result

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("game_*.json"))


def load(path: Path) -> dict:
    return json.loads(path.read_text())


def test_there_is_a_game_for_each_player_count_and_wall():
    kinds = {(g["players"], g["variant"]) for g in map(load, FIXTURES)}
    assert kinds == {(p, v) for p in (2, 3, 4) for v in ("colored", "gray")}


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_recorded_game_replays_to_its_final_scores(path):
    game = load(path)
    state = replay(
        game["entries"],
        players=game["players"],
        variant=game["variant"],
        first_player=game["first_player"],
    )
    assert state.phase == "over"
    assert state.scores == game["final_scores"]
    assert result(state).winners == game["winners"]
    assert state.round == game["rounds"]
    assert state.tile_total() == 100


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_recorded_game_is_playable_entry_by_entry(path):
    """Applying the entries one at a time gives the same game, and only the last one ends it."""
    game = load(path)
    state = new_game(game["players"], game["variant"], game["first_player"])
    for entry in game["entries"]:
        assert state.phase != "over"
        state = State.from_dict(apply_entry(state, entry).to_dict())
    assert state.scores == game["final_scores"]
    if game["variant"] == "gray":
        assert any(e.get("move", "").startswith("wall") for e in game["entries"])
