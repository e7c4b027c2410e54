"""The canonical move notation (azul/notation.py): parse_move and str() of a move."""

import pytest

from azul import CENTER, FLOOR, InvalidNotation, Place, Take, legal_moves, parse_move

from .builders import random_game


def every_move():
    for source in range(10):
        for color in range(5):
            for line in range(6):
                yield Take(source, color, line)
    for line in range(5):
        for column in range(5):
            yield Place(line, column)


def test_str_and_parse_round_trip_for_every_possible_move():
    moves = list(every_move())
    assert len(moves) == 10 * 5 * 6 + 25
    for move in moves:
        assert parse_move(str(move)) == move, move
        assert str(parse_move(str(move))) == str(move)


@pytest.mark.parametrize(("players", "variant"), [(2, "colored"), (4, "gray")])
def test_every_legal_move_of_a_game_round_trips(players, variant):
    seen = 0
    for before, _, _ in random_game(players, variant, seed=11):
        for player in before.to_move:
            for move in legal_moves(before, player):
                assert parse_move(str(move)) == move
                seen += 1
    assert seen > 100


def test_canonical_forms():
    assert str(Take(3, 0, 1)) == "F3 blue 2"
    assert str(Take(CENTER, 2, FLOOR)) == "C red floor"
    assert str(Place(1, 3)) == "wall 2 4"


@pytest.mark.parametrize(
    ("text", "move"),
    [
        ("f3 BLUE 2", Take(3, 0, 1)),
        ("  F3   blue\t2  ", Take(3, 0, 1)),
        ("c Red FLOOR", Take(CENTER, 2, FLOOR)),
        ("center white 5", Take(CENTER, 4, 4)),
        ("WALL 2 4", Place(1, 3)),
        (" wall  5   1 ", Place(4, 0)),
    ],
)
def test_case_and_spaces_are_ignored(text, move):
    assert parse_move(text) == move


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("", "empty move"),
        ("   ", "empty move"),
        ("F0 blue 2", "the factory must be from 1 to 9, not 0"),
        ("F10 blue 2", "the factory must be from 1 to 9, not 10"),
        ("F blue 2", "the factory must be a number"),
        ("F3 purple 2", "unknown color 'purple'"),
        ("F3 blue 6", "the pattern line must be from 1 to 5, not 6"),
        ("F3 blue 0", "the pattern line must be from 1 to 5, not 0"),
        ("F3 blue two", "the pattern line must be a number"),
        ("F3 blue", "a move has a source, a color and a destination"),
        ("F3 blue 2 3", "a move has a source, a color and a destination"),
        ("X3 blue 2", "unknown source 'x3'"),
        ("wall 0 1", "the pattern line must be from 1 to 5, not 0"),
        ("wall 2 6", "the wall column must be from 1 to 5, not 6"),
        ("wall 2", "a wall tiling has a line and a column"),
        ("wall 2 4 1", "a wall tiling has a line and a column"),
        ("F3 blue 2" + " " * 100 + "x", "too long"),
        ("F3 blue " + "9" * 10_000, "too long"),
        ("F³ blue 2", "the factory must be a number"),
        ("F3 blue ²", "the pattern line must be a number"),
        ("wall ² 1", "the pattern line must be a number"),
        ("F-1 blue 2", "the factory must be a number"),
        ("F\u0663 blue 2", "the factory must be a number"),  # ARABIC-INDIC DIGIT THREE
    ],
)
def test_malformed_text_says_what_is_wrong(text, reason):
    with pytest.raises(InvalidNotation, match=reason):
        parse_move(text)


@pytest.mark.parametrize("value", [None, 3, b"F3 blue 2", ["F3", "blue", "2"], Take(3, 0, 1)])
def test_non_text_is_refused(value):
    with pytest.raises(InvalidNotation, match="a move is text like 'F3 blue 2'"):
        parse_move(value)
