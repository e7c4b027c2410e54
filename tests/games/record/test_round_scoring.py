"""Each round's scoring on the replay page: what every completed pattern line scored, what the
floor line cost and the new score, as the engine counted them."""

import pytest

import azul
from azul import FLOOR_PENALTY
from games.record.summary import replay_summary
from tests.azul.builders import position
from tests.support.records import log_of, replayed

pytestmark = pytest.mark.django_db

START_SCORE = 50
MARKER_AND_ONE_TILE = FLOOR_PENALTY[0] + FLOOR_PENALTY[1]


def engine_points(variant: str, wall: list, line: int, column: int, color: str) -> int:
    """What the engine itself scores for moving a full pattern `line` (1-5) of `color` to
    `column` of `wall`: a position where the last tile on offer, taken to the floor line with
    the starting player marker, ends the round, so that the engine tiles the wall."""
    board = {
        "score": START_SCORE,
        "pattern_lines": [[color, n] if n == line else [None, 0] for n in range(1, 6)],
        "wall": wall,
        "floor": [],
        "tiling_line": None,
    }
    empty = {**board, "pattern_lines": [[None, 0]] * 5, "wall": [[None] * 5] * 5}
    state = position([board, empty], variant=variant, center="b" if color != "blue" else "y")
    offered = state.to_dict()["center"][0]
    state = azul.play(state, f"C {offered} floor", 0)
    if state.phase == "tile":  # the gray wall asks where the tile goes when there is a choice
        state = azul.play(state, f"wall {line} {column}", 0)
    assert state.to_dict()["boards"][0]["wall"][line - 1][column - 1] == color
    bonus = azul.result(state).standings[0].bonus if state.phase == "over" else 0
    return state.scores[0] - bonus - START_SCORE + MARKER_AND_ONE_TILE


@pytest.mark.parametrize("recorded", ["finished_colored", "finished_gray"])
def test_each_rounds_scoring_is_the_engines(recorded, request):
    game = request.getfixturevalue(recorded)
    summary = replay_summary(game=game)
    entries = log_of(game)
    final = replayed(game, entries)
    starts = [index for index, _ in summary["checkpoints"]]
    assert len(summary["rounds"]) == final.round == len(starts)

    previous = [0] * game.num_players
    for number, scoring in enumerate(summary["rounds"], 1):
        assert scoring["round"] == number
        dealt = replayed(game, entries[: starts[number - 1] + 1]).to_dict()
        for player in scoring["players"]:
            p = player["position"]
            assert player["score_before"] == previous[p]
            # Tile by tile, on the wall as it stood when each tile arrived (top row first).
            wall = [row[:] for row in dealt["boards"][p]["wall"]]
            for line in player["lines"]:
                expected = engine_points(
                    game.variant, wall, line["line"], line["column"], line["color"]
                )
                assert line["points"] == expected, (number, p, line)
                wall[line["line"] - 1][line["column"] - 1] = line["color"]
            # The floor costs at most its seven spaces' penalties, and never more than the score.
            assert -sum(FLOOR_PENALTY) <= player["floor"] <= 0
            bonus = player["bonus"] or 0
            assert (
                player["score_before"] + player["line_points"] + player["floor"] + bonus
                == player["score"]
            )
            previous[p] = player["score"]
        assert scoring["final"] == (number == len(summary["rounds"]))
    assert previous == final.scores


def test_a_round_tiled_by_hand_scores_what_the_rulebook_says():
    """Rulebook, "Scoring": a tile with no neighbour scores 1; otherwise the tiles linked
    horizontally, plus those linked vertically, counting itself in each."""
    colored_wall = [[azul.COLORS[(c - r) % 5] for c in range(5)] for r in range(5)]
    wall = [[None] * 5 for _ in range(5)]
    assert engine_points("colored", wall, 1, 1, "blue") == 1
    wall[0][1] = colored_wall[0][1]
    wall[1][0] = colored_wall[1][0]
    wall[2][0] = colored_wall[2][0]
    # Row 1 column 1: one neighbour to the right (2) and two below (3): 2 + 3.
    assert engine_points("colored", wall, 1, 1, "blue") == 5
