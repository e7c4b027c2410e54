"""What a screen reader says of each part of a board (issue #34): the pattern lines, wall rows,
floor line, factories and center, with their state, in English and Korean."""

from django.utils import translation

from games.presenters.board import floor_said, line_said, tiles_said, wall_row_said


def test_lines_rows_and_floor_in_english():
    with translation.override("en"):
        assert line_said(3, "red", 2) == "Pattern line 3: 2 of 3, red"
        assert line_said(4, None, 0) == "Pattern line 4: empty"
        # Row 2 of the colored wall: white, blue, yellow, red, black.
        row = ["white", None, "yellow", None, None]
        assert (
            wall_row_said(2, row, gray=False)
            == "Wall row 2: white, yellow placed; blue, red, black empty"
        )
        assert wall_row_said(2, [None] * 5, gray=False).endswith(
            ": white, blue, yellow, red, black empty"
        )
        assert wall_row_said(2, ["white", "blue", "yellow", "red", "black"], gray=False) == (
            "Wall row 2: white, blue, yellow, red, black placed"
        )
        assert wall_row_said(1, [None, "red", None, None, "blue"], gray=True) == (
            "Wall row 1: red in column 2, blue in column 5 placed; columns 1, 3, 4 empty"
        )
        assert floor_said([]) == "Floor: empty"
        assert floor_said(["red", "red"]) == "Floor: 2 tiles, -2"
        assert floor_said(["marker", "red", "red"]) == (
            "Floor: 3 tiles (one the starting player marker), -4"
        )
        assert tiles_said(["red", "blue", "blue", "black"]) == "blue, blue, red, black"
        assert tiles_said(["red"], marker=True) == "starting player marker, red"
        assert tiles_said([]) == "empty"


def test_lines_rows_and_floor_in_korean():
    with translation.override("ko"):
        assert line_said(3, "red", 2) == "3번 패턴 라인: 3칸 중 2칸, 빨강"
        assert line_said(4, None, 0) == "4번 패턴 라인: 비어 있음"
        assert wall_row_said(2, ["white", None, "yellow", None, None], gray=False) == (
            "벽 2번째 가로줄: 하양, 노랑 놓임; 파랑, 빨강, 검정 비어 있음"
        )
        assert floor_said(["red", "red"]) == "바닥 라인: 타일 2개, -2"
        assert tiles_said([]) == "비어 있음"
