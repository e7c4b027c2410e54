"""The analysis's research tools (research/analysis_accuracy.py, research/analysis_calibration.py)
on the positions of tests/azul/test_judge.py: the accuracy tool's repeats and references, and the
calibration tool's blunder played out. Moved from tests/azul/test_judge.py with the tools."""

import pytest

from azul import FLOOR, legal_moves, play
from tests.azul.test_judge import FIVE_TO_THE_FLOOR, LONE_TILE, last_round


@pytest.mark.slow
def test_the_accuracy_tool_judges_each_position_again_with_other_seeds(capsys):
    """``research.analysis_accuracy --repeats`` (and ``--references``): the first page run against
    the first reference is the one a single run makes (its figures print the same), and each
    further seed's distance is reported."""
    from research.analysis_accuracy import main

    small = ["--positions", "4", "--iterations", "20", "--factor", "2"]
    assert main(small) == 0
    single = capsys.readouterr().out.splitlines()
    assert main([*small, "--repeats", "3"]) == 0
    repeated = capsys.readouterr().out.splitlines()
    assert repeated[1:4] == single[1:4]  # distances, mean losses, same best move: seed 1 alone
    [seeds] = [line for line in repeated if line.startswith("over 3 page seeds:")]
    each = seeds.split("each seed: ")[1].split(")")[0].split(", ")
    assert len(each) == 3 and each[0] == single[1].split("mean ")[1].split(" points")[0]
    with pytest.raises(SystemExit):
        main([*small, "--repeats", "0"])
    # Against several references (each its own seed) each seed's figure is its mean over them;
    # the first page seed against the first reference is the single run.
    assert main([*small, "--repeats", "3", "--references", "2"]) == 0
    against = capsys.readouterr().out.splitlines()
    assert against[1:4] == single[1:4]
    [line] = [line for line in against if line.startswith("over 3 page seeds x 2 references:")]
    assert len(line.split("each seed: ")[1].split(")")[0].split(", ")) == 3
    with pytest.raises(SystemExit):
        main([*small, "--references", "0"])


def test_the_calibration_tool_plays_a_blunder_out_to_the_points_at_stake():
    """``research.analysis_calibration``: played out, the game's-last-round blunder costs exactly
    its 9 points whoever plays the rest and however the seed falls, and the judges say so."""
    from research.analysis_accuracy import Position
    from research.analysis_calibration import claims, final_margin

    state = last_round()
    moves = legal_moves(state, 0)
    floor = next(m for m in moves if m.line == FLOOR)
    line_5 = next(m for m in moves if m.line == 4)
    for level in ("greedy", "medium"):
        for seed in (1, 2):
            good = final_margin(play(state, line_5, 0), 0, seed, level)
            bad = final_margin(play(state, floor, 0), 0, seed, level)
            assert (good, good - bad) == (14, FIVE_TO_THE_FLOOR + LONE_TILE)
    said = claims((Position(state, 0, floor, "last round"), 1, 200))
    assert set(said) == {"level", "shipped", "tables"}
    for best, loss in said.values():
        assert best == line_5 and loss == pytest.approx(FIVE_TO_THE_FLOOR + LONE_TILE)
