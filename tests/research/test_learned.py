"""The learned evaluator (issue #36, first step): its features, its shipped weights and the
self-play data generator that trains it."""

import json
import random

import numpy as np
import pytest

from azul import CENTER, FLOOR, Take, deal, legal_moves, new_game, play
from research.learn import evaluator as learned
from research.learn import selfplay
from research.learn.features import (
    BOARD_FEATURES,
    SHARED_FEATURES,
    feature_count,
    feature_names,
    feature_rows,
    features,
)
from tests.azul.builders import BLUE, EMPTY_WALL, board, position


@pytest.mark.parametrize(("players", "length"), [(2, 92), (3, 128), (4, 164)])
def test_features_have_the_documented_length(players, length):
    assert (SHARED_FEATURES, BOARD_FEATURES) == (20, 36)
    state = deal(new_game(players), rng=random.Random(players))
    assert feature_count(players) == length
    assert len(feature_names(players)) == length
    for player in range(players):
        assert features(state, player).shape == (length,)


def test_each_view_puts_its_own_board_first_and_the_next_player_after_it():
    state = deal(new_game(3), rng=random.Random(1))
    state = play(state, next(m for m in legal_moves(state) if m.line == FLOOR))  # player 0
    names = feature_names(3)
    floor = {name: names.index(name) for name in ("me.floor", "opp1.floor", "opp2.floor")}
    views = feature_rows(state)
    dropped = views[0][floor["me.floor"]]
    assert dropped > 0
    assert views[1][floor["opp2.floor"]] == dropped  # player 0 follows player 2
    assert views[2][floor["opp1.floor"]] == dropped
    assert views[1][names.index("me.to_move")] == 1.0  # player 1 takes next


def test_the_shipped_weights_load_with_their_figures():
    assert 2 in learned.available()
    for players in learned.available():
        evaluator = learned.load(players)
        assert evaluator.players == players
        info = json.loads(learned.weights_path(players).with_suffix(".json").read_text())
        assert info == evaluator.info
        for key in ("command", "seed", "rows", "training_seconds", "validation", "baselines"):
            assert key in info
        # the model beats the current score margin on the held-out games
        assert info["validation"]["rmse"] < info["baselines"]["score_margin"]["rmse"]
        state = deal(new_game(players), rng=random.Random(0))
        margins = evaluator.margins(state)
        assert len(margins) == players and all(np.isfinite(margins))
        assert evaluator.margin(state, 1) == pytest.approx(margins[1])
        with pytest.raises(ValueError):
            evaluator.margins(deal(new_game(3 if players == 2 else 2), rng=random.Random(0)))


def blunder_position():
    """Player 0 to move: five blues in the centre, which their empty pattern line 5 takes whole
    (the obvious move), or drops on the floor line for 8 points of penalty (the blunder); three
    factories still on offer, three rounds to play (as in test_judge)."""
    return position(
        [
            board(score=10, lines={2: "r"}, wall_rows=("x....", ".x...", *EMPTY_WALL[2:])),
            board(
                score=9, lines={3: "kk"}, wall_rows=("..x..", "....x", *EMPTY_WALL[2:]), floor="m"
            ),
        ],
        center="bbbbbyy",
        factories=("rrkw", "yyww", "", "kkbw"),
        marker_holder=1,
        round_number=2,
    )


def test_the_evaluator_ranks_an_obvious_blunder_below_the_obvious_move():
    state = blunder_position()
    evaluator = learned.load(2)
    obvious = evaluator.margins(play(state, Take(CENTER, BLUE, 4), 0))
    blunder = evaluator.margins(play(state, Take(CENTER, BLUE, FLOOR), 0))
    assert obvious[0] > blunder[0] + 3  # the floor alone costs 8 points
    assert obvious[1] < blunder[1]  # and the opponent's margin moves the other way
    # among all of player 0's moves, the blunder is in the worse half
    ranked = sorted(legal_moves(state, 0), key=lambda m: -evaluator.margin(play(state, m, 0), 0))
    assert ranked.index(Take(CENTER, BLUE, FLOOR)) >= len(ranked) // 2


def test_the_data_generator_is_deterministic_for_a_seed(monkeypatch):
    # a tiny run: two light levels so that the test stays fast
    monkeypatch.setattr(selfplay, "SEATS", {"greedy": None, "medium": 20})
    first, figures = selfplay.generate(games=2, players=2, seed=5, explore=0.2)
    again, _ = selfplay.generate(games=2, players=2, seed=5, explore=0.2)
    other, _ = selfplay.generate(games=2, players=2, seed=6, explore=0.2)
    assert figures["rows"] == len(first["margin"]) > 0
    assert first["features"].shape == (figures["rows"], feature_count(2))
    for name, values in first.items():
        np.testing.assert_array_equal(values, again[name], err_msg=name)
    differs = first["features"].shape != other["features"].shape
    assert differs or not np.array_equal(first["features"], other["features"])
    # the label is each view's final margin: the two views of a position are opposite
    assert np.array_equal(first["margin"][0::2], -first["margin"][1::2])
