"""The arena (research/arena.py) and its UCT yardstick (research/uct.py): legal moves and
determinism of the yardstick, the win rates and intervals the arena prints, its seats with their
own budgets and search weights, and the players it refuses. Moved from tests/azul/test_search.py
with the tools when they became research."""

import random
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from azul import deal, legal_moves, new_game
from azul.ai import bots
from azul.ai.bots import LEVELS, choose_move_with_stats, level_weights
from azul.ai.evaluation import DEFAULT, Weights, load_round_end_tables
from research import WEIGHTS_DIR
from research.arena import (
    GameResult,
    Seat,
    SeatResult,
    bot_move,
    parse_bot,
    parse_weights,
    play_game,
    report,
    wilson,
)
from research.arena import main as arena_main
from research.uct import uct_search
from tests.azul.test_bots import random_position
from tests.azul.test_level_weights import opening
from tests.azul.test_search import search_returns_legal_moves


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    players=st.sampled_from([2, 3, 4]),
    variant=st.sampled_from(["colored", "gray"]),
    steps=st.integers(1, 160),
)
def test_the_uct_yardstick_only_returns_legal_moves(seed, players, variant, steps):
    search_returns_legal_moves(uct_search, seed, players, variant, steps)


def test_the_arena_takes_the_searchs_newer_knobs():
    """The knobs the search's tests in tests/azul/test_search.py show (rival_own_weight,
    win_spread), as the arena's --weights give them."""
    assert parse_weights("rival_own_weight=0").rival_own_weight == 0.0
    assert parse_weights("win_spread=12").win_spread == 12.0


def test_the_uct_yardstick_is_deterministic_for_an_iteration_count():
    state = deal(new_game(3), rng=random.Random(5))
    moves = {uct_search(state, 0, random.Random(8), iterations=200) for _ in range(2)}
    assert len(moves) == 1


def test_wilson_interval():
    low, high = wilson(80, 100)
    assert 0.70 < low < 0.72 and 0.86 < high < 0.88
    assert wilson(0, 0) == (0.0, 1.0)


def test_the_arena_prints_win_rates_with_intervals(capsys):
    arena_main(["greedy", "uct", "--games", "2", "--iterations", "30", "--quiet", "--seed", "3"])
    out = capsys.readouterr().out
    assert "win rate" in out and "avg score" in out and "games won by" in out
    assert "uct" in out and "[" in out


def test_the_arena_reports_each_bots_win_rate_from_each_seat():
    def game(number, first, second, first_wins):
        seats = [
            SeatResult(first, 50, 1 if first_wins else 2, False, 20, 1.0, 0.1, 0.1, 0, 0.0),
            SeatResult(second, 40, 2 if first_wins else 1, False, 20, 1.0, 0.1, 0.1, 0, 0.0),
        ]
        return GameResult(number, seats, 5)

    # "new" wins all 3 games from seat 1 and 1 of 3 from seat 2
    results = [game(0, "new", "old", True), game(1, "old", "new", True)]
    results += [game(2, "new", "old", True), game(3, "old", "new", False)]
    results += [game(4, "new", "old", True), game(5, "old", "new", True)]
    lines = {line.split(" by seat: ")[0].strip(): line for line in report(results, "").splitlines()}

    def rate(wins):
        low, high = wilson(wins, 3)
        return f"{100 * wins / 3:.1f}% [{100 * low:.1f}, {100 * high:.1f}] of 3"

    assert f"seat 1 {rate(3)}; seat 2 {rate(1)}" in lines["new"]
    assert f"seat 1 {rate(2)}; seat 2 {rate(0)}" in lines["old"]
    # one bot in every seat: nothing to break down
    assert "by seat" not in report([game(0, "a", "a", True)], "")


@pytest.mark.slow
def test_the_arena_plays_the_search_with_other_weights_for_tuning(capsys):
    arena_main(
        ["medium", "greedy", "--games", "2", "--iterations", "10", "--quiet"]
        + ["--weights", "own_weight=0.5, max_lines=2"]
    )
    assert "weights max_lines=2,own_weight=0.5" in capsys.readouterr().out
    assert parse_weights("c_uct=4,widen_base=5") == Weights(c_uct=4.0, widen_base=5)
    assert parse_weights("") == DEFAULT


@pytest.mark.parametrize(
    "text, message",
    [
        ("bogus=1", "names: adjacency"),
        ("c_uct", "expected name=value"),
        ("max_lines=two", "max_lines takes a int"),
    ],
)
def test_the_arena_refuses_unknown_or_malformed_weights(capsys, text, message):
    with pytest.raises(SystemExit) as exit_info:
        arena_main(["strong", "greedy", "--games", "2", "--weights", text])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_one_seat_of_the_arena_can_think_apart_from_the_others(capsys):
    assert parse_bot("strong") == Seat("strong")
    assert parse_bot("strong@4000") == Seat("strong", iterations=4000)
    assert parse_bot("master@2.5s:c_uct=10:max_lines=2") == Seat(
        "master", 2.5, None, "c_uct=10,max_lines=2"
    )
    game = play_game(["medium@10", "medium@60"], variant="colored", deal_seed=5, budget=None)
    few, many = game.seats
    assert (few.bot, many.bot) == ("medium@10", "medium@60")
    # a move with a single legal take is not searched, so the counts are not exactly 10 and 60
    assert 0 < few.rollouts <= 10 * few.moves < many.rollouts <= 60 * many.moves
    arena_main(["medium@10", "medium@60", "--games", "2", "--quiet", "--seed", "5"])
    assert "medium@60 " in capsys.readouterr().out


def test_a_seat_plays_with_its_own_search_weights():
    differs = False
    for seed in range(6):
        state = random_position(seed, 2, "colored", 3)
        if state.phase != "take":
            continue
        # the seat's changes go on top of its level's own weights for this kind of game
        changed = replace(level_weights("strong", state), max_lines=1, noise=0.0)
        player = state.to_move[0]
        seat_move, _ = bot_move(
            "strong@60:max_lines=1:noise=0", state, player, seed=seed, budget=9.0, iterations=None
        )
        direct, _ = choose_move_with_stats(
            state, player, "strong", seed=seed, iterations=60, weights=changed
        )
        assert seat_move == direct
        plain, _ = bot_move("strong@60", state, player, seed=seed, budget=None, iterations=None)
        differs |= plain != seat_move
    assert differs, "the changed weights never changed a move: the test shows nothing"


@pytest.mark.parametrize(
    "name, message",
    [
        ("deep", "unknown player"),
        ("greedy@100", "greedy does not search"),
        ("random:noise=1", "random does not search"),
        ("uct:c_uct=1", "uct has no search weights"),
        ("strong:depth=3", "'depth=3': expected name=value"),
        ("strong@4s:noise", "'noise': expected name=value"),
        ("strong@", "expected strong@ITERATIONS"),
        ("strong@0", "expected strong@ITERATIONS"),
        ("strong@-2s", "expected strong@ITERATIONS"),
        ("uct@lots", "expected uct@ITERATIONS"),
    ],
)
def test_the_arena_refuses_a_malformed_player(capsys, name, message):
    with pytest.raises(SystemExit) as exit_info:
        arena_main([name, "greedy", "--games", "2"])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err


def test_master_plays_every_rollout_on_through_a_next_round_and_the_arena_tunes_on_top():
    """From a round's first move, where strong's rollouts stop at the round's end, master's
    go on (its level's weights); the arena's --weights change them, never replace them."""
    assert LEVELS["master"].weights.extend_below >= 36 > DEFAULT.extend_below  # a 4p round's tiles
    differs = False
    for seed in range(4):
        state = deal(new_game(2), rng=random.Random(seed))
        master = level_weights("master", state)  # with the 2-player tables, as it plays
        assert master.extend_below == LEVELS["master"].weights.extend_below
        player = state.current
        as_master, _ = choose_move_with_stats(state, player, "master", seed=seed, iterations=80)
        extended, _ = choose_move_with_stats(
            state, player, "strong", seed=seed, iterations=80, weights=master
        )
        assert as_master == extended
        plain, _ = choose_move_with_stats(state, player, "strong", seed=seed, iterations=80)
        differs |= plain != as_master
        tuned, _ = bot_move(
            "master@80", state, player, seed=seed, budget=None, iterations=None, weights="noise=0"
        )
        direct, _ = choose_move_with_stats(
            state, player, "strong", seed=seed, iterations=80, weights=replace(master, noise=0.0)
        )
        assert tuned == direct
    assert differs, "master never moved otherwise than strong: the test shows nothing"


def test_the_arena_can_play_a_level_without_its_tables():
    tables = load_round_end_tables(str(WEIGHTS_DIR / "roundend-2p.json"))
    with_tables = replace(DEFAULT, fitted=tables)
    assert parse_weights("fitted=none", with_tables).fitted is None
    assert parse_weights("fitted=NONE,c_uct=10", with_tables) == replace(DEFAULT, c_uct=10.0)


def test_an_arena_seat_with_other_tables_leaves_out_the_shipped_files_knobs():
    """``strong:fitted=none`` is the level before it took the tables (no win term either);
    ``strong:fitted=PATH,win_spread=10`` the candidate as it was measured."""
    state = opening(2)
    player = state.to_move[0]
    seen = []

    def spy(*args, weights, **kwargs):
        seen.append(weights)
        return legal_moves(state, player)[0]

    path = str(WEIGHTS_DIR / "roundend-2p.json")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(bots, "search", spy)
        for seat in ("strong:fitted=none", "strong", f"strong:fitted={path}:win_spread=4"):
            bot_move(seat, state, player, seed=0, budget=None, iterations=10)
    assert seen[0] == LEVELS["strong"].weights
    assert seen[1] == level_weights("strong", state)
    assert seen[2].fitted is not None and seen[2].fitted.source == "roundend-2p.json"
    assert seen[2].win_spread == 4.0
