"""The margin residual over the round-end tables (issue #36 experiment,
``research/learn/residual.py``): it is antisymmetric, it loads with the tables and moves only the
margin, the tool's view of the tables is the search's, and training finds a planted
interaction between the two boards."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from azul import new_game
from azul.ai.evaluation import (
    CONTEXT_FEATURES,
    ROUND_END_FEATURES,
    MarginResidual,
    Weights,
    board_vector,
    context_terms,
    load_round_end_tables,
    rounds_left,
    worths,
)
from research.learn import residual, roundend
from tests.research.test_roundend import round_ends

WIDTH = 2 * len(ROUND_END_FEATURES) + 4
SHIPPED = "research/weights/roundend-2p.json"


def random_net(hidden: int = 6, seed: int = 1) -> MarginResidual:
    rng = np.random.default_rng(seed)
    return MarginResidual(
        rng.normal(0, 0.2, (hidden, WIDTH)), rng.normal(0, 0.2, hidden), rng.normal(0, 2, hidden)
    )


def test_the_correction_to_one_player_is_minus_the_others():
    net = random_net()
    rng = np.random.default_rng(2)
    for rounds in (1, 2, 3, 4):
        a = rng.integers(0, 5, len(ROUND_END_FEATURES)).astype(float).tolist()
        b = rng.integers(0, 5, len(ROUND_END_FEATURES)).astype(float).tolist()
        assert net(a, b, rounds) == pytest.approx(-net(b, a, rounds))
        assert net(a, b, rounds) != 0.0
        assert net(a, a, rounds) == 0.0


def test_a_residual_of_the_wrong_shape_is_refused():
    with pytest.raises(ValueError, match="hidden"):
        MarginResidual(np.zeros((4, WIDTH - 1)), np.zeros(4), np.zeros(4))


def test_tables_with_a_residual_move_the_margin_and_nothing_else(tmp_path):
    net = random_net()
    data = json.loads(Path(SHIPPED).read_text())
    data["residual"] = {
        "hidden": net.hidden_t.T.tolist(),
        "bias": net.bias.tolist(),
        "out": net.out.tolist(),
    }
    path = tmp_path / "with-residual.json"
    path.write_text(json.dumps(data))
    plain = Weights(fitted=load_round_end_tables(SHIPPED))
    corrected = Weights(fitted=load_round_end_tables(str(path)))
    assert corrected.fitted is not None and corrected.fitted.residual is not None
    moved = 0
    for state in round_ends(4):
        rounds = rounds_left(state)
        before, after = worths(state, rounds, plain), worths(state, rounds, corrected)
        starter = state.marker_holder if state.marker_holder >= 0 else state.first_player
        first, second = (board_vector(b, False, p == starter) for p, b in enumerate(state.boards))
        shift = net(first, second, rounds)
        assert after[0] - after[1] == pytest.approx(before[0] - before[1] + shift)
        assert sum(after) == pytest.approx(sum(before))  # the worths' total is the tables'
        moved += abs(shift) > 1e-6
    assert moved


def test_the_tools_tables_margin_is_the_searchs():
    # the residual is trained on what the tables' margin missed: the tool's margin must be the
    # one the search computes where its rollouts stop
    tables = Weights(fitted=load_round_end_tables(SHIPPED))
    buckets = {int(k): v for k, v in json.loads(Path(SHIPPED).read_text())["buckets"].items()}
    ends = round_ends(6)
    rows = [roundend.board_features(state, player) for state in ends for player in range(2)]
    data = {
        "features": np.array(rows),
        "bucket": np.array([rounds_left(s) for s in ends for _ in range(2)]),
        "event": np.repeat(np.arange(len(ends)), 2),
        "hand": np.zeros(2 * len(ends)),
    }
    got = residual.tables_margin(data, buckets)
    for i, state in enumerate(ends):
        values = worths(state, rounds_left(state), tables)
        assert got[2 * i] == pytest.approx(values[0] - values[1], abs=1e-3)
        assert got[2 * i + 1] == pytest.approx(values[1] - values[0], abs=1e-3)


def planted(n: int, seed: int = 3) -> tuple[dict, np.ndarray]:
    """Round ends of two boards and a margin with an interaction planted: the player's
    near-complete columns pay only while the rival has no row missing one tile (the game would
    end first): no per-board linear term can say that."""
    rng = np.random.default_rng(seed)
    width = len(ROUND_END_FEATURES)
    features = rng.integers(0, 3, (2 * n, width)).astype(float)
    column1, row1 = ROUND_END_FEATURES.index("column1"), ROUND_END_FEATURES.index("row1")

    def value(me, rival):
        return 4.0 * me[:, column1] * (rival[:, row1] == 0)

    mine, theirs = features[0::2], features[1::2]
    margin = value(mine, theirs) - value(theirs, mine) + rng.normal(0, 1.0, n)
    data = {
        "features": features,
        "bucket": rng.integers(1, 5, 2 * n).repeat(1)[: 2 * n],
        "event": np.repeat(np.arange(n), 2),
        "hand": np.zeros(2 * n),
    }
    data["bucket"][1::2] = data["bucket"][0::2]
    target = np.empty(2 * n)
    target[0::2], target[1::2] = margin, -margin
    return data, target


def corrections(net: dict, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.tanh(a @ net["hidden"].T + net["bias"]) @ net["out"] - (
        np.tanh(b @ net["hidden"].T + net["bias"]) @ net["out"]
    )


def test_training_finds_an_interaction_between_the_boards():
    n = 4000
    width = len(ROUND_END_FEATURES)
    data, target = planted(n)
    a, b = residual.inputs(data)
    held = np.zeros(2 * n, dtype=bool)
    held[-800:] = True
    net, history = residual.train(a, b, target, held, hidden=8, epochs=40, seed=1)
    predicted = corrections(net, a, b)
    error = np.sqrt(np.mean((predicted[held] - target[held]) ** 2))
    assert error < 0.5 * target[held].std()
    assert error == pytest.approx(min(history), abs=1e-2)  # the best epoch is what it returns
    loaded = MarginResidual(net["hidden"], net["bias"], net["out"])
    i = int(np.flatnonzero(held)[0])
    assert loaded(
        a[i, :width].tolist(), a[i, width : 2 * width].tolist(), int(data["bucket"][i])
    ) == (pytest.approx(predicted[i]))


def test_training_to_the_search_label_skips_rows_without_one_and_is_scored_on_the_games_end():
    # "--label search": rows no label search reached (NaN) are left out of the training, and
    # the epoch is chosen by the error against the final margin on the held-out games
    n = 4000
    data, target = planted(n)
    rng = np.random.default_rng(5)
    label = target.copy()
    label[np.repeat(rng.random(n) < 0.3, 2)] = np.nan
    check = target + np.repeat(rng.normal(0, 3.0, n), 2) * np.tile([1.0, -1.0], n)
    a, b = residual.inputs(data)
    held = np.zeros(2 * n, dtype=bool)
    held[-800:] = True
    net, history = residual.train(a, b, label, held, hidden=8, epochs=40, seed=1, check=check)
    predicted = corrections(net, a, b)
    assert np.isfinite(predicted).all()
    assert np.sqrt(np.mean((predicted[held] - target[held]) ** 2)) < 0.5 * target[held].std()
    against_check = np.sqrt(np.mean((predicted[held] - check[held]) ** 2))
    assert against_check == pytest.approx(min(history), abs=1e-2)


CANDIDATE = "azul/ai/weights/roundend-2p-residual.json"


def test_the_shipped_candidate_loads_with_its_figures_and_ranks_a_blunder_below_the_move():
    """The correction strong and master play 2-player colored games by (bots.SHIPPED): it
    says how it was made and what it measured, it loads over the shipped tables, and the
    post-game judge with it puts five blues on the floor well below the empty line 5 that takes
    them (the mid-round position of test_judge: 9 points at stake by the rules)."""
    from azul import CENTER, FLOOR, Take
    from azul.ai.judge import judge_position
    from tests.azul.builders import BLUE

    from .test_learned import blunder_position

    made = json.loads(Path(CANDIDATE).read_text())
    assert made["tables"] == SHIPPED
    assert "research.learn.residual" in made["residual_figures"]["command"]
    figures = made["residual_figures"]["per_bucket"]["all"]
    assert figures["corrected"] < figures["tables"]  # it fits held-out games better
    assert made["arena"] and all("research.arena" in run["command"] for run in made["arena"])
    tables = load_round_end_tables(CANDIDATE)
    assert tables.residual is not None
    assert tables.vectors == load_round_end_tables(SHIPPED).vectors  # the same tables beneath
    assert load_round_end_tables(SHIPPED).search == ()  # the plain tables carry no knobs

    state = blunder_position()
    floor = Take(CENTER, BLUE, FLOOR)
    judgement = judge_position(
        state, 0, floor, seed=1, iterations=1500, weights=Weights(fitted=tables)
    )
    assert judgement.best[0] == Take(CENTER, BLUE, 4)
    assert judgement.loss(floor) >= 6  # the floor's 8 points, less what the tile would be worth


def test_context_terms_see_contested_colours_scarce_tiles_and_rows_about_to_end_the_game():
    state = new_game(2)
    state.phase = "deal"
    mine, theirs = state.boards
    # mine: line 3 (4 tiles) holds 1 blue, line 4 (5 tiles) 2 yellow; theirs waits for blue too
    mine.line_color[3], mine.line_count[3] = 0, 1
    mine.line_color[4], mine.line_count[4] = 1, 2
    theirs.line_color[2], theirs.line_count[2] = 0, 1
    state.bag = [3, 0, 20, 20, 20]
    state.lid = [0, 6, 0, 0, 0]
    contested, scarcity, ready = context_terms(state, 0)
    assert contested == 3  # the three blues line 3 still needs; the yellows are not contested
    assert scarcity == pytest.approx(3 / 3 + 3 / 6)
    assert ready == 0
    assert context_terms(state, 1)[0] == 2  # its line 2 needs two blues that mine wants too
    # wall row 4 holds four tiles; its line 4 waits for the colour of the missing space
    for column in range(4):
        colour = (column - 4) % 5
        mine.wall[20 + column] = colour
        mine.filled |= 1 << (20 + column)
    # yellow's space in row 4 is column 0, taken: the row's last space is not for line 4's tiles
    assert context_terms(state, 0)[2] == 0
    mine.line_color[4] = (4 - 4) % 5  # the colour of row 4's last space (column 4)
    assert context_terms(state, 0)[2] == 1


def test_a_residual_with_context_reads_them_in_the_search(tmp_path):
    width = 2 * (len(ROUND_END_FEATURES) + len(CONTEXT_FEATURES)) + 4
    rng = np.random.default_rng(3)
    net = MarginResidual(rng.normal(0, 0.2, (5, width)), np.zeros(5), rng.normal(0, 2, 5))
    assert net.context
    assert not random_net().context
    data = json.loads(Path(SHIPPED).read_text())
    data["residual"] = {
        "hidden": net.hidden_t.T.tolist(),
        "bias": [0.0] * 5,
        "out": net.out.tolist(),
    }
    path = tmp_path / "context.json"
    path.write_text(json.dumps(data))
    tables = load_round_end_tables(path)
    plain = load_round_end_tables(SHIPPED)
    for state in round_ends(4)[:3]:
        rounds = rounds_left(state)
        starter = state.marker_holder if state.marker_holder >= 0 else state.first_player
        first = board_vector(state.boards[0], False, starter == 0)
        second = board_vector(state.boards[1], False, starter == 1)
        expected = net(first + context_terms(state, 0), second + context_terms(state, 1), rounds)
        with_net = worths(state, rounds, Weights(fitted=tables))
        without = worths(state, rounds, Weights(fitted=plain))
        assert (with_net[0] - with_net[1]) - (without[0] - without[1]) == pytest.approx(expected)
