"""The fitted round-end evaluation (issue #36 experiment): its tables load, the evaluation is
unchanged without them, and the fit recovers known weights (``research/learn/roundend.py``)."""

from __future__ import annotations

import json
import math
import random

import numpy as np
import pytest

from azul import new_game, play
from azul.ai.bots import LEVELS, choose_move_with_stats
from azul.ai.evaluation import (
    BONUS_KINDS,
    BONUS_NEEDS,
    DEFAULT,
    RoundEndTables,
    Weights,
    board_terms,
    board_vector,
    line_terms,
    load_round_end_tables,
    rounds_left,
    worths,
)
from azul.mechanics import apply_deal, draw, tally
from azul.state import Board, State
from research.arena import bot_move, parse_bot, parse_weights
from research.learn import roundend


def round_ends(seed: int, variant: str = "colored", players: int = 2) -> list[State]:
    """The round ends (after the tiling, before the next deal) of a greedy game."""
    rng = random.Random(seed)
    state = new_game(players, variant)
    ends = []
    while state.phase != "over":
        if state.phase == "deal":
            if state.round >= 1:
                ends.append(state)
            state = state.copy()
            apply_deal(state, [tally(f) for f in draw(state, rng)])
            continue
        player = state.to_move[0]
        move, _ = choose_move_with_stats(state, player, "greedy", seed=rng.randrange(1 << 30))
        state = play(state, move, player)
    return ends


def hand_tables(source: str = "hand") -> RoundEndTables:
    """Tables holding the hand-written weights (score 1, no intercept)."""
    buckets = {
        rounds: roundend.tables_entry(roundend.hand_weights(rounds), 0.0, rounds)
        for rounds in roundend.BUCKETS
    }
    return RoundEndTables.from_buckets(buckets, source)


# Worths of a greedy game's round ends (seed 3), from the code before the fitted tables
# existed: (rounds left, worths with those rounds, worths with rounds 2).
GOLDEN = {
    "colored": [
        (4, [12.199394, 8.799394], [7.1, 3.7]),
        (3, [29.072, 22.16875], [26.41, 13.85]),
        (2, [39.35, 32.045], [39.35, 32.045]),
        (1, [59.3, 47.4], [70.19, 56.1725]),
    ],
    "gray": [
        (4, [12.061725, 11.361725], [8.7675, 8.0675]),
        (3, [18.272625, 27.457625], [16.4425, 22.3]),
        (2, [28.3225, 50.66], [28.3225, 50.66]),
        (1, [56.15, 60.85], [60.385, 72.6475]),
    ],
}


@pytest.mark.parametrize("variant", ["colored", "gray"])
def test_without_fitted_tables_the_evaluation_is_unchanged(variant):
    assert DEFAULT.fitted is None
    ends = round_ends(3, variant)
    got = [
        (
            rounds_left(s),
            [round(v, 6) for v in worths(s, rounds_left(s), DEFAULT)],
            [round(v, 6) for v in worths(s, 2, DEFAULT)],
        )
        for s in ends
    ]
    assert got == GOLDEN[variant]


@pytest.mark.parametrize("variant", ["colored", "gray"])
def test_tables_of_the_hand_weights_give_the_hand_evaluation(variant):
    # the fitted path weighs the very terms the hand-written one does: same weights, same worths
    fitted = Weights(fitted=hand_tables())
    for seed in (1, 2):
        for state in round_ends(seed, variant, players=3):
            rounds = rounds_left(state)
            assert worths(state, rounds, fitted) == pytest.approx(
                worths(state, rounds, DEFAULT), abs=1e-3
            )  # the tables keep 4 decimals


def test_the_features_are_the_terms_the_tables_weigh():
    tables = hand_tables()
    for state in round_ends(5):
        rounds = rounds_left(state)
        values = worths(state, rounds, Weights(fitted=tables))
        for player in range(state.players):
            x = np.array(roundend.board_features(state, player))
            assert x @ roundend.hand_weights(rounds) == pytest.approx(values[player], abs=1e-3)


def test_the_fitted_tables_load_from_json_and_play(tmp_path):
    path = tmp_path / "tables.json"
    buckets = {
        str(rounds): roundend.tables_entry(roundend.hand_weights(rounds), 5.0 * rounds, rounds)
        for rounds in (1, 3)
    }
    path.write_text(json.dumps({"buckets": buckets, "label": "score"}))
    tables = load_round_end_tables(str(path))
    assert repr(tables) == "RoundEndTables('tables.json')"
    assert tables.base == (5.0, 5.0, 5.0, 15.0, 15.0, 15.0)  # missing buckets: the nearest
    assert len(tables.row) == 6 and all(len(r) == 6 for r in tables.colour)
    assert parse_weights(f"fitted={path}").fitted == tables
    seat = f"strong@30:fitted={path}"
    assert parse_bot(seat).iterations == 30
    state = round_ends(1)[0].copy()
    apply_deal(state, [tally(f) for f in draw(state, random.Random(0))])
    move, stats = bot_move(seat, state, state.current, seed=1, budget=None, iterations=None)
    assert stats.iterations == 30
    with pytest.raises(ValueError, match="fitted"):
        parse_weights(f"fitted={tmp_path / 'missing.json'}")


def synthetic(rng: np.random.Generator, weights: dict[int, np.ndarray], games: int) -> dict:
    """Two-player round ends whose final scores are ``x @ weights[bucket] + 3 bucket``."""
    rows = games * 4 * 2
    x = rng.integers(0, 4, size=(rows, len(roundend.FEATURES))).astype(float)
    x[:, 0] = rng.uniform(0, 60, rows)  # the score
    bucket = np.tile(np.repeat(np.arange(1, 5), 2), games)
    final = np.array([x[i] @ weights[b] + 3.0 * b for i, b in enumerate(bucket)])
    final += rng.normal(0, 1e-4, rows)  # a little noise: the data is never exact
    event = np.repeat(np.arange(rows // 2), 2)
    margin = final - final.reshape(-1, 2)[:, ::-1].reshape(-1)
    return {
        "features": x,
        "bucket": bucket,
        "final": final,
        "margin": margin,
        "hand": x[:, 0],
        "game": np.repeat(np.arange(games), 8),
        "event": event,
    }


@pytest.mark.parametrize(
    ("label", "free_score"), [("score", False), ("margin", False), ("score", True)]
)
def test_a_fit_on_synthetic_data_recovers_known_weights(label, free_score):
    rng = np.random.default_rng(1)
    width = len(roundend.FEATURES)
    truth = {b: rng.uniform(-3, 3, width) for b in roundend.BUCKETS}
    if not free_score:  # the score's weight is 1 unless it is fitted too
        for weights in truth.values():
            weights[0] = 1.0
    data = synthetic(rng, truth, games=60)
    buckets, figures = roundend.fit(
        data, label=label, penalty=1e-6, validation=0.2, seed=1, free_score=free_score
    )
    assert sorted(buckets) == list(roundend.BUCKETS)
    tables = RoundEndTables.from_buckets(buckets, "synthetic")
    for b in roundend.BUCKETS:
        named = dict(zip(roundend.FEATURES, truth[b], strict=True))
        assert tables.score[b] == pytest.approx(named["score"], abs=1e-3)
        assert tables.marker[b] == pytest.approx(named["marker"], abs=1e-3)
        assert tables.colour[b][2] == pytest.approx(named["colour2"], abs=1e-3)
        assert tables.row[b][4] == pytest.approx(named["row4"], abs=1e-3)
        if label == "score":
            assert tables.base[b] == pytest.approx(3.0 * b, abs=1e-2)
    assert figures["validation"]["margin_fitted"] < 0.1
    assert figures["validation"]["margin_hand"] > 1.0  # the score alone does not explain it


def test_a_strong_penalty_keeps_the_hand_weights():
    rng = np.random.default_rng(2)
    truth = {b: rng.uniform(-3, 3, len(roundend.FEATURES)) for b in roundend.BUCKETS}
    buckets, _ = roundend.fit(synthetic(rng, truth, games=20), penalty=1e9)
    for entry in buckets.values():
        assert entry["marker"] == pytest.approx(DEFAULT.marker, abs=1e-3)
        assert entry["column"][1] == pytest.approx(7 * DEFAULT.chance, abs=1e-3)


def test_the_shipped_tables_load_and_weigh_points_as_points():
    """The plain tables (``research/weights/roundend-2p.json``, the
    margin-label fit of research/BOTS.md) load, say how they were made, keep the score's weight at
    1, and rank a board ahead by ten points ten points higher, whatever the rounds left."""
    from research import WEIGHTS_DIR

    path = WEIGHTS_DIR / "roundend-2p.json"
    made = json.loads(path.read_text())
    assert made["label"] == "margin" and "research.learn.roundend fit" in made["command"]
    tables = load_round_end_tables(str(path))
    assert set(tables.score) == {1.0}
    for state in round_ends(3):
        if state.phase == "over":
            continue
        before = worths(state, rounds_left(state), Weights(fitted=tables))
        ahead = state.copy()
        ahead.boards[0].score += 10
        after = worths(ahead, rounds_left(ahead), Weights(fitted=tables))
        assert after[0] - after[1] == pytest.approx(before[0] - before[1] + 10)


def a_board_with_waiting_lines() -> Board:
    """Wall tiles at (row 2, column 1) and (row 1, column 2); pattern line 2 (three spaces)
    holds two tiles of colour 0, line 4 (five spaces) one of colour 1."""
    board = Board()
    board.filled = 1 << (5 * 2 + 1) | 1 << (5 * 1 + 2)
    board.line_color[2], board.line_count[2] = 0, 2
    board.line_color[4], board.line_count[4] = 1, 1
    return board


def test_the_line_terms_weigh_what_a_waiting_line_would_score():
    board = a_board_with_waiting_lines()
    # colored wall: colour 0 of row 2 goes to column 2, between both tiles (2 across, 2 down:
    # 4 points) and the line is two thirds full; colour 1 of row 4 to column 0, alone (1 point)
    # and a fifth full. The lines still need 1 and 4 tiles.
    points, room = line_terms(board, gray=False)
    assert points == pytest.approx(4 * 2 / 3 + 1 * 1 / 5)
    assert room == 5
    # gray wall: column 2 already holds colour 0, so its best space is column 0 (2 points)
    board.col_mask[2] |= 1 << 0
    points, room = line_terms(board, gray=True)
    assert points == pytest.approx(2 * 2 / 3 + 1 * 1 / 5)
    assert room == 5


@pytest.mark.parametrize("variant", ["colored", "gray"])
def test_tables_weigh_the_line_terms_as_the_features_record_them(variant):
    weights = {}
    for rounds in roundend.BUCKETS:
        w = roundend.hand_weights(rounds)
        w[roundend.FEATURES.index("line_points")] = 0.8 + 0.1 * rounds
        w[roundend.FEATURES.index("line_room")] = -0.3 * rounds
        weights[rounds] = w
    tables = RoundEndTables.from_buckets(
        {b: roundend.tables_entry(w, 0.0, b) for b, w in weights.items()}, "lines"
    )
    assert tables.line_room[2] == pytest.approx(-0.6)
    seen_waiting = False
    for state in round_ends(5, variant):
        rounds = rounds_left(state)
        values = worths(state, rounds, Weights(fitted=tables))
        for player in range(state.players):
            x = np.array(roundend.board_features(state, player))
            seen_waiting |= x[roundend.FEATURES.index("line_points")] > 0
            assert x @ weights[rounds] == pytest.approx(values[player], abs=1e-3)
    assert seen_waiting  # the terms were weighed, not all zero


def test_tables_without_the_line_terms_do_not_weigh_them():
    entry = roundend.tables_entry(roundend.hand_weights(2), 0.0, 2)
    del entry["line_points"], entry["line_room"]  # as the shipped 2-player tables were fitted
    tables = RoundEndTables.from_buckets({2: entry}, "old")
    assert tables.line_points == (0.0,) * 6 and tables.line_room == (0.0,) * 6


def test_a_fit_can_leave_features_out_for_comparison():
    rng = np.random.default_rng(3)
    truth = {b: rng.uniform(-3, 3, len(roundend.FEATURES)) for b in roundend.BUCKETS}
    for weights in truth.values():
        weights[0] = 1.0  # the score's, as the fit keeps it
    data = synthetic(rng, truth, games=40)
    kept, with_lines = roundend.fit(data, penalty=1e-6)
    dropped, without = roundend.fit(data, penalty=1e-6, drop=("line_points", "line_room"))
    assert {entry["line_points"] for entry in dropped.values()} == {0.0}
    assert {entry["line_room"] for entry in dropped.values()} == {0.0}
    assert without["dropped"] == ["line_points", "line_room"]
    # the data depends on them: the fit without them explains it less well
    assert without["validation"]["margin_fitted"] > with_lines["validation"]["margin_fitted"] + 0.5
    assert kept[1]["line_room"] != 0.0


def test_data_recorded_with_other_features_is_refused_with_a_clear_message(tmp_path):
    old = list(roundend.FEATURES[:-2])  # as recorded before the line terms
    path = tmp_path / "old.npz"
    meta = json.dumps({"players": 2, "features": old, "games": 1, "rows": 1})
    np.savez_compressed(
        path,
        meta=np.array(meta),
        features=np.zeros((1, len(old))),
        game=np.zeros(1),
        event=np.zeros(1),
    )
    with pytest.raises(SystemExit, match="recorded with other features.*play it again"):
        roundend.load([path])


def test_play_can_seat_players_with_different_tables_in_turn(monkeypatch):
    # "--fitted none,PATH": the seats take the hand-written evaluation and the tables in turn,
    # so that the data is not one player's self-play
    seen: dict[tuple[int, int], set[object]] = {}
    real = roundend.choose_move_with_stats

    def recording(state, player, level, **kwargs):
        seen.setdefault((game, player), set()).add(kwargs["weights"])
        return real(state, player, level, **kwargs)

    monkeypatch.setattr(roundend, "choose_move_with_stats", recording)
    shipped = "research/weights/roundend-2p.json"
    for game in (0, 1):
        one = roundend.play_game((1, game, 2, "colored", 8, (None, shipped), 0, None))
        assert one["features"] and one["margin"]
        assert all(math.isnan(label) for label in one["search"])  # no label search asked
    tables = load_round_end_tables(shipped)
    for game in (0, 1):
        hand_player = game % 2  # game g's player p takes entry (g + p) % 2, and None is entry 0
        # "none" is the hand-written evaluation, not what the strong level plays by today
        # (the shipped tables, with the chance of winning, in 2-player colored games)
        assert seen[(game, hand_player)] == {LEVELS["strong"].weights}
        assert LEVELS["strong"].weights.fitted is None
        assert {w.fitted for w in seen[(game, 1 - hand_player)]} == {tables}


def test_a_label_search_gives_each_round_end_the_margin_it_expects(monkeypatch):
    # "--label-iterations": after each round end's deal, a search apart from the game's, by
    # the label tables, labels the first mover's row with its margin and the rival's with the
    # opposite; the game itself is the one played without it
    searches: list[tuple[int, object, int]] = []
    real = roundend.choose_move_with_stats

    def recording(state, player, level, **kwargs):
        move, stats = real(state, player, level, **kwargs)
        if kwargs["iterations"] == 40:
            searches.append((player, kwargs["weights"].fitted, stats.margins[move]))
        return move, stats

    monkeypatch.setattr(roundend, "choose_move_with_stats", recording)
    shipped = "research/weights/roundend-2p.json"
    plain = roundend.play_game((2, 0, 2, "colored", 8, (None,), 0, None))
    labelled = roundend.play_game((2, 0, 2, "colored", 8, (None,), 40, shipped))
    assert labelled["features"] == plain["features"] and labelled["scores"] == plain["scores"]
    events = sorted(set(labelled["event"]))
    assert len(searches) == len(events) >= 1
    assert {fitted for _, fitted, _ in searches} == {load_round_end_tables(shipped)}
    for (mover, _, expected), event in zip(searches, events, strict=True):
        rows = [i for i, e in enumerate(labelled["event"]) if e == event]
        for row in rows:
            mine = labelled["player"][row] == mover
            assert labelled["search"][row] == (expected if mine else -expected)


def test_a_fit_to_the_search_label_uses_the_rows_that_have_one():
    # The search's margin is the label; the game's end (here far noisier) only scores the fit.
    rng = np.random.default_rng(4)
    truth = {b: rng.uniform(-3, 3, len(roundend.FEATURES)) for b in roundend.BUCKETS}
    for weights in truth.values():
        weights[0] = 1.0
    data = synthetic(rng, truth, games=80)
    data["search"] = data["margin"].copy()
    unreached = np.repeat(rng.random(len(data["search"]) // 2) < 0.4, 2)
    data["search"][unreached] = np.nan  # rows no label search reached: left out, not read as 0
    events = len(data["margin"]) // 2  # the game's end: one draw a game, opposite for the rival
    data["margin"] = data["margin"] + np.repeat(rng.normal(0, 40, events), 2) * np.tile(
        [1.0, -1.0], events
    )
    searched, _ = roundend.fit(data, label="search", penalty=1e-6)
    ended, _ = roundend.fit(data, label="margin", penalty=1e-6)
    by_search = RoundEndTables.from_buckets(searched, "search")
    by_end = RoundEndTables.from_buckets(ended, "end")
    for b in roundend.BUCKETS:
        named = dict(zip(roundend.FEATURES, truth[b], strict=True))
        assert by_search.marker[b] == pytest.approx(named["marker"], abs=1e-3)
        assert by_search.row[b][4] == pytest.approx(named["row4"], abs=1e-3)
    assert (
        max(
            abs(by_end.marker[b] - dict(zip(roundend.FEATURES, truth[b], strict=True))["marker"])
            for b in roundend.BUCKETS
        )
        > 0.01
    )  # the noisy label does not recover them
    del data["search"]
    with pytest.raises(SystemExit, match="no search labels"):
        roundend.fit(data, label="search")


def test_the_data_keeps_each_round_end_state_that_its_rows_were_read_from(tmp_path):
    # features the rows do not hold (research/learn/residual.py --context) are computed from these
    arrays, _ = roundend.generate(games=2, players=2, seed=3, iterations=8)
    assert len(arrays["states"]) == int(arrays["event"].max()) + 1
    for row, (event, player) in enumerate(zip(arrays["event"], arrays["player"], strict=True)):
        state = State.from_dict(json.loads(str(arrays["states"][event])))
        assert state.phase == "deal"
        assert roundend.board_features(state, int(player)) == arrays["features"][row].tolist()
    path = tmp_path / "data.npz"
    np.savez_compressed(
        path, meta=json.dumps({"players": 2, "features": list(roundend.FEATURES)}), **arrays
    )
    loaded, _ = roundend.load([path, path])  # two files: the second's events follow the first's
    assert len(loaded["states"]) == 2 * len(arrays["states"])
    assert loaded["states"][loaded["event"][-1]] == arrays["states"][-1]


@pytest.mark.parametrize("variant", ["colored", "gray"])
def test_the_written_out_board_vector_is_the_board_terms_and_line_terms(variant):
    # board_vector counts in one pass what board_terms and line_terms say (it is the faster copy)
    for seed in range(6):
        for state in round_ends(seed, variant, players=3):
            for board in state.boards:
                rows, columns, colours, pairs, waiting, near = board_terms(board, state.gray)
                counts = {"row": rows, "column": columns, "colour": colours}
                points, room = line_terms(board, state.gray)
                expected = [
                    float(board.score),
                    *(float(counts[k][n]) for k in BONUS_KINDS for n in BONUS_NEEDS[k]),
                    float(pairs),
                    float(waiting),
                    float(near),
                    1.0,
                    points,
                    float(room),
                ]
                assert board_vector(board, state.gray, True) == expected
                assert len(expected) == len(roundend.FEATURES)
