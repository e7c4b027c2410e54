"""The tree search behind medium, strong and master, and the arena's UCT yardstick: legal moves,
deadlines, determinism, the stats it reports, and what its evaluation values."""

import gc
import random
import time
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from azul import deal, legal_moves, new_game, play
from azul.ai.bots import LEVELS, choose_move, choose_move_with_stats, level_weights
from azul.ai.evaluation import DEFAULT, Weights, evaluate_board, rewards
from azul.ai.search import search
from azul.ai.tree import SearchStats
from azul.state import Board
from tools.arena import (
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
from tools.arena import main as arena_main
from tools.uct import uct_search

from .test_bots import random_position


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    players=st.sampled_from([2, 3, 4]),
    variant=st.sampled_from(["colored", "gray"]),
    steps=st.integers(1, 160),
)
def test_the_searches_only_return_legal_moves(seed, players, variant, steps):
    state = random_position(seed, players, variant, steps)
    if state.phase != "take":
        return
    player = state.current
    legal = legal_moves(state, player)
    for find in (search, uct_search):
        stats = SearchStats()
        move = find(state, player, random.Random(seed), iterations=25, stats=stats)
        assert move in legal, (find.__name__, move)
        assert all(tried in legal for tried, _, _ in stats.values)
        if len(legal) > 1 and len(stats.values) > 1:
            assert stats.iterations == 25
            assert sum(visits for _, _, visits in stats.values) == 25
        play(state, move, player)


@pytest.mark.parametrize("level", ["medium", "strong", "master"])
def test_a_seed_and_an_iteration_count_give_the_same_move_and_values(level):
    state = random_position(11, 3, "gray", 9)
    assert state.phase == "take"
    runs = [
        choose_move_with_stats(state, state.current, level, seed=4, iterations=150)
        for _ in range(2)
    ]
    (move_a, stats_a), (move_b, stats_b) = runs
    assert move_a == move_b
    assert stats_a.values == stats_b.values
    assert stats_a.iterations == stats_b.iterations == 150


@pytest.mark.parametrize(
    ("players", "variant", "level"),
    [
        (2, "colored", "strong"),
        (2, "colored", "master"),
        (2, "gray", "strong"),
        (3, "colored", "strong"),
    ],
)
def test_the_searchs_caches_change_no_move_or_value(monkeypatch, players, variant, level):
    """The search keeps what it worked out of each board (the rollout's best lines, the fitted
    evaluation's terms) across its rollouts; emptied after every few boards, it must search
    exactly as with them kept."""
    from azul.ai import evaluation, policy

    state = next(
        s
        for s in (random_position(7, players, variant, n) for n in range(14, 40))
        if s.phase == "take"
    )

    def run():
        return choose_move_with_stats(state, state.current, level, seed=3, iterations=400)

    kept = run()
    monkeypatch.setattr(policy, "CACHE_LIMIT", 3)
    monkeypatch.setattr(evaluation, "MEMO_LIMIT", 3)
    emptied = run()
    assert emptied[0] == kept[0]
    assert emptied[1].values == kept[1].values
    assert emptied[1].margins == kept[1].margins


@pytest.mark.parametrize(("players", "variant"), [(2, "colored"), (4, "gray")])
@pytest.mark.parametrize("budget", [0.02, 0.15])
def test_the_time_budget_is_used_and_respected(players, variant, budget):
    state = deal(new_game(players, variant), rng=random.Random(3))
    # A full garbage collection of the test process (its heap holds the whole suite's objects by
    # now) can take longer than an iteration: that pause is the suite's, not the search's.
    gc.collect()
    gc.disable()
    try:
        start, cpu_start = time.perf_counter(), time.thread_time()
        move, stats = choose_move_with_stats(state, 0, "strong", seed=1, budget=budget)
        elapsed, cpu = time.perf_counter() - start, time.thread_time() - cpu_start
    finally:
        gc.enable()
    assert move in legal_moves(state, 0)
    assert stats.budget == budget
    assert stats.iterations > 0  # the rollouts count is reported
    # The search stops 8% + 10 ms early (a quarter of the budget at most). On a busy machine the
    # process may go unscheduled, which the wall clock counts and no check inside the search can
    # prevent: its own CPU time (this thread's: the suite's other threads, a live server's,
    # count in the process's) is held to the budget, the wall clock only to a looser bound.
    assert cpu <= budget + 0.1
    assert elapsed <= budget + 0.5
    assert stats.seconds >= budget * 0.5  # and it thinks for most of its budget


def test_an_iteration_count_is_capped_by_the_budget():
    state = deal(new_game(4, "gray"), rng=random.Random(9))
    gc.collect()
    gc.disable()
    try:
        start, cpu_start = time.perf_counter(), time.thread_time()
        _, stats = choose_move_with_stats(state, 0, "master", iterations=10**7, budget=0.03)
        cpu = time.thread_time() - cpu_start
    finally:
        gc.enable()
    assert cpu <= 0.03 + 0.1
    assert time.perf_counter() - start <= 0.03 + 0.5
    assert 0 < stats.iterations < 10**7


def test_the_old_dict_stats_still_report_rollouts():
    state = deal(new_game(2), rng=random.Random(2))
    stats: dict = {}
    choose_move(state, 0, "strong", iterations=40, stats=stats)
    assert stats["rollouts"] == 40 and stats["seconds"] > 0 and "cpu_seconds" in stats


def test_the_uct_yardstick_is_deterministic_for_an_iteration_count():
    state = deal(new_game(3), rng=random.Random(5))
    moves = {uct_search(state, 0, random.Random(8), iterations=200) for _ in range(2)}
    assert len(moves) == 1


def test_a_search_needs_a_budget():
    state = deal(new_game(2), rng=random.Random(5))
    with pytest.raises(ValueError, match="budget"):
        search(state, 0, random.Random(0))


def _board(cells: list[tuple[int, int]], score: int = 10) -> Board:
    board = Board()
    board.score = score
    for row, column in cells:
        color = (column - row) % 5
        board.wall[row * 5 + column] = color
        board.filled |= 1 << (row * 5 + column)
        board.row_mask[row] |= 1 << color
        board.col_mask[column] |= 1 << color
    return board


def test_the_evaluation_values_adjacency_and_nearly_complete_rows():
    compact = _board([(0, 0), (0, 1), (1, 0), (1, 1)])
    scattered = _board([(0, 0), (0, 2), (2, 0), (2, 2)])
    assert evaluate_board(compact, 3, False) > evaluate_board(scattered, 3, False)
    # four tiles in one column (distinct rows and colours) against four that share nothing
    column = _board([(0, 0), (1, 0), (2, 0), (3, 0)])
    apart = _board([(0, 0), (1, 2), (2, 4), (3, 1)])
    assert evaluate_board(column, 2, False) > evaluate_board(apart, 2, False) + 3
    # a bonus that cannot be reached in the rounds left is worth nothing
    assert evaluate_board(_board([]), 0, False) == 10


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


def test_the_arena_plays_the_search_with_other_weights_for_tuning(capsys):
    arena_main(
        ["medium", "greedy", "--games", "2", "--iterations", "30", "--quiet"]
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


def test_a_tie_on_points_is_won_by_the_most_complete_rows():
    state = new_game(2)
    state.phase = "over"
    state.boards = [_board([(0, c) for c in range(5)], score=30), _board([(1, 0)], score=30)]
    first, second = rewards(state, 0, DEFAULT)
    # same points, but the complete row wins (rulebook): the winner gets the win bonus
    assert first - second == pytest.approx(2 * DEFAULT.win_bonus)
    state.boards[1].score = 31
    first, second = rewards(state, 0, DEFAULT)
    assert second - first == pytest.approx(2 + 2 * DEFAULT.win_bonus + DEFAULT.own_weight)


def test_the_searcher_can_model_its_opponents_as_playing_for_the_difference_alone():
    state = new_game(2)
    state.phase = "over"
    state.boards = [_board([(0, 0)], score=40), _board([(1, 0)], score=30)]
    weights = Weights(own_weight=1.0, rival_own_weight=0.0)
    mine, theirs = rewards(state, 0, weights, searcher=0)
    assert mine == pytest.approx(10 + weights.win_bonus + 40)
    assert theirs == pytest.approx(-10 - weights.win_bonus)  # no share of its own 30 points
    # seen from the other seat the roles swap; without a searcher everyone keeps own_weight
    assert rewards(state, 0, weights, searcher=1)[0] == pytest.approx(10 + weights.win_bonus)
    assert rewards(state, 0, weights)[1] == pytest.approx(-10 - weights.win_bonus + 30)
    assert parse_weights("rival_own_weight=0").rival_own_weight == 0.0


def late_in_a_round(seed: int):
    """A 2-player position of the offer with 12 tiles or fewer left and more than two moves."""
    for steps in range(1, 60):
        state = random_position(seed, 2, "colored", steps)
        offered = sum(state.center) + sum(map(sum, state.factories))
        if state.phase == "take" and offered <= 12 and len(legal_moves(state, state.current)) > 2:
            return state
    raise AssertionError("no such position")


@pytest.mark.parametrize("seed", [3, 8])
def test_late_in_a_round_the_rollouts_play_a_sampled_next_round_and_leave_the_state_alone(seed):
    state = late_in_a_round(seed)
    before = state.copy()
    values = {}
    for extend_below in (0, 12):
        stats = SearchStats()
        move = search(
            state,
            state.current,
            random.Random(1),
            iterations=300,
            stats=stats,
            weights=Weights(extend_below=extend_below),
        )
        assert move in legal_moves(state, state.current)
        values[extend_below] = stats.values
    # the sampled deals come from the bag's public counts; the position searched is untouched
    assert state == before and state.bag == before.bag
    assert values[0] != values[12]  # the rewards now include the next round's points


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


def test_win_spread_rewards_the_chance_of_winning_a_game_not_over():
    state = new_game(2)
    state.phase = "deal"  # a round end the game goes on from
    state.boards = [_board([(0, 0)], score=20), _board([(1, 0)], score=14)]
    plain = rewards(state, 1, DEFAULT)
    spread = Weights(win_spread=10.0)
    ahead, behind = rewards(state, 1, spread)
    # the leader gains what the trailer loses, less than the whole win bonus: the game is open
    assert ahead - plain[0] == pytest.approx(plain[1] - behind)
    assert 0 < ahead - plain[0] < DEFAULT.win_bonus
    # the same lead with more rounds to play is a less certain win
    more_ahead, _ = rewards(state, 4, spread)
    assert plain[0] < more_ahead < ahead
    # a far larger lead is about the whole bonus
    state.boards[0].score = 80
    assert rewards(state, 1, spread)[0] - rewards(state, 1, DEFAULT)[0] == pytest.approx(
        DEFAULT.win_bonus, abs=0.01
    )
    assert parse_weights("win_spread=12").win_spread == 12.0
