"""The tree search behind medium, strong and master: legal moves, deadlines, determinism, the
stats it reports, and what its evaluation values (the arena and its UCT yardstick:
tests/research/test_arena.py)."""

import gc
import random
import time

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from azul import deal, legal_moves, new_game, play
from azul.ai.bots import choose_move, choose_move_with_stats
from azul.ai.evaluation import DEFAULT, Weights, evaluate_board, rewards
from azul.ai.search import search
from azul.ai.tree import SearchStats
from azul.state import Board

from .test_bots import random_position


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 10**6),
    players=st.sampled_from([2, 3, 4]),
    variant=st.sampled_from(["colored", "gray"]),
    steps=st.integers(1, 160),
)
def test_the_searches_only_return_legal_moves(seed, players, variant, steps):
    search_returns_legal_moves(search, seed, players, variant, steps)


def search_returns_legal_moves(search_with, seed, players, variant, steps):
    """`search_with` (the levels' search, or a yardstick with its arguments) from a random
    position: a legal move, having tried only legal ones, with the iterations it was given."""
    state = random_position(seed, players, variant, steps)
    if state.phase != "take":
        return
    player = state.current
    legal = legal_moves(state, player)
    stats = SearchStats()
    move = search_with(state, player, random.Random(seed), iterations=25, stats=stats)
    assert move in legal, move
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
