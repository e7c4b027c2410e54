"""Properties of random legal play (hypothesis), for 2-4 players and both walls.

Each example plays one whole seeded random game and checks every step. The number of examples is
kept small (the engine suite should run in well under a minute on a shared machine); raise
``AZUL_PROPERTY_EXAMPLES`` to search harder.
"""

import json
import os
import random

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from azul import (
    COLORS,
    IllegalMove,
    Place,
    State,
    Take,
    apply_entry,
    legal_moves,
    new_game,
    play,
    replay,
    result,
)
from azul.tiling import _possible_by_counting, plainly_possible, row_still_possible

from .builders import count_tiles, random_step, snapshot

EXAMPLES = int(os.environ.get("AZUL_PROPERTY_EXAMPLES", "20"))
GAMES = settings(
    max_examples=EXAMPLES,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
MAX_ROUNDS = 60
"""Random play ends in well under 20 rounds; a game still going after 60 is a bug."""

games = st.tuples(
    st.sampled_from([2, 3, 4]),
    st.sampled_from(["colored", "gray"]),
    st.integers(0, 2**32 - 1),
)


def check_state(state: State) -> None:
    """Invariants that hold at every step."""
    assert state.tile_total() == 100
    data = state.to_dict()
    assert count_tiles(data) == {name: 20 for name in COLORS}  # counted without the engine
    assert all(score >= 0 for score in state.scores)
    text = json.dumps(data)
    assert json.loads(text) == data
    again = State.from_dict(json.loads(text))
    assert again == state
    assert again.to_dict() == data
    assert state.round <= MAX_ROUNDS


def all_moves(state: State) -> list:
    """Every move that could be written for this game, legal or not."""
    takes = [
        Take(source, color, line)
        for source in range(len(state.factories) + 2)
        for color in range(5)
        for line in range(6)
    ]
    return takes + [Place(line, column) for line in range(5) for column in range(5)]


@GAMES
@given(games)
# Found by hypothesis: a gray-wall game that ends with tiles in the bag, no row being possible.
@example((2, "gray", 18872))
def test_random_games_keep_every_invariant_and_end(game):
    players, variant, seed = game
    rng = random.Random(seed)
    state = new_game(players, variant, seed % players)
    check_state(state)
    steps = 0
    while state.phase != "over":
        before = snapshot(state)
        _, after = random_step(state, rng)
        assert snapshot(state) == before  # play and deal never change their input
        check_state(after)
        state = after
        steps += 1
        assert steps < MAX_ROUNDS * (1 + 36 + 5 * players)
    final = result(state)
    assert final.winners
    # Over for one of the reasons azul.rules gives: a row complete, no tile left to
    # deal, or nobody able to complete a row any more.
    assert (
        any(mask == 0b11111 for b in state.boards for mask in b.row_mask)
        or sum(state.to_dict()["bag"].values()) == 0
        or not row_still_possible(state)
    )


@GAMES
@given(games)
def test_the_quick_row_test_never_keeps_a_game_going_that_counting_would_end(game):
    """``plainly_possible`` answers most round ends at once; wherever it says a row can still
    be completed, counting every tile must say so too (else a game would go on past its end)."""
    players, variant, seed = game
    rng = random.Random(seed)
    state = new_game(players, variant, seed % players)
    quick = 0
    while state.phase != "over":
        if plainly_possible(state):
            quick += 1
            assert _possible_by_counting(state)
        _, state = random_step(state, rng)
    assert quick or variant == "gray"  # a full bag is plainly enough on the colored wall


@GAMES
@given(games)
def test_replay_of_the_log_equals_step_by_step_play(game):
    players, variant, seed = game
    rng = random.Random(seed)
    first = seed % players
    state = new_game(players, variant, first)
    log, states = [], [state]
    while state.phase != "over":
        entry, state = random_step(state, rng)
        log.append(entry)
        states.append(state)
    assert replay(log, players=players, variant=variant, first_player=first) == state
    from_json = json.loads(json.dumps(log))
    assert replay(from_json, players=players, variant=variant, first_player=first) == state
    # every prefix too, and entry by entry
    folded = new_game(players, variant, first)
    for number, entry in enumerate(log):
        folded = apply_entry(folded, entry)
        assert folded == states[number + 1]
    cut = rng.randrange(len(log) + 1)
    assert replay(log[:cut], players=players, variant=variant, first_player=first) == states[cut]


@GAMES
@given(games, st.integers(0, 2**32 - 1))
def test_legal_moves_are_accepted_and_others_refused(game, sample_seed):
    players, variant, seed = game
    rng = random.Random(seed)
    sampler = random.Random(sample_seed)
    state = new_game(players, variant)
    while state.phase != "over":
        if state.phase != "deal":
            before = snapshot(state)
            universe = all_moves(state)
            for player in range(players):
                legal = legal_moves(state, player)
                assert len(set(legal)) == len(legal)
                for move in legal:
                    play(state, move, player)  # must not raise
                    play(state, str(move), player)
                illegal = [m for m in universe if m not in set(legal)]
                for move in sampler.sample(illegal, min(25, len(illegal))):
                    try:
                        play(state, move, player)
                    except IllegalMove:
                        pass
                    else:
                        raise AssertionError(f"player {player} was allowed {move} in {state!r}")
                if player in state.to_move:
                    assert legal, f"player {player} is to move but has no legal move"
                else:
                    assert legal == []
            assert snapshot(state) == before
        _, state = random_step(state, rng)
