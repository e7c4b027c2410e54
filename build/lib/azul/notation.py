"""Moves, colors and the canonical move notation.

Notation (case and extra spaces are ignored when parsing):

- ``F3 blue 2``  -- take every blue tile from factory 3 and put them on pattern line 2.
- ``C red floor`` -- take every red tile from the center and put them on the floor line.
- ``wall 2 4``   -- gray-wall variant, wall-tiling phase: move the tile of pattern line 2 to
  column 4 of the wall.

Factories count from 1, pattern lines and wall columns from 1 to 5. Internally a pattern line is
0-4 and the floor line is 5; the center is source 0 and factory ``k`` is source ``k``.
"""

from __future__ import annotations

from typing import NamedTuple

from .errors import InvalidNotation

COLORS: tuple[str, ...] = ("blue", "yellow", "red", "black", "white")
"""The five tile colors, in the order of the colored wall's first row."""

COLOR_INDEX: dict[str, int] = {name: index for index, name in enumerate(COLORS)}

CENTER = 0
"""Source number of the center of the table; factory ``k`` is source ``k`` (1-based)."""

FLOOR = 5
"""Destination number of the floor line; pattern lines are destinations 0-4."""

MAX_FACTORIES = 9


class Take(NamedTuple):
    """Factory offer: take every tile of ``color`` from ``source`` and put them on ``line``.

    ``source`` is 0 for the center or a factory number from 1; ``color`` is an index into
    :data:`COLORS`; ``line`` is a pattern line 0-4 or :data:`FLOOR`.
    """

    source: int
    color: int
    line: int

    def __str__(self) -> str:
        where = "C" if self.source == CENTER else f"F{self.source}"
        dest = "floor" if self.line == FLOOR else str(self.line + 1)
        return f"{where} {COLORS[self.color]} {dest}"


class Place(NamedTuple):
    """Gray-wall tiling: move the tile of pattern ``line`` (0-4) to wall ``column`` (0-4)."""

    line: int
    column: int

    def __str__(self) -> str:
        return f"wall {self.line + 1} {self.column + 1}"


Move = Take | Place


def color_index(name: str) -> int:
    """Return the index of a color name (any case); raise :class:`InvalidNotation` (a
    ``ValueError``) for an unknown one."""
    try:
        return COLOR_INDEX[name.strip().lower()]
    except (KeyError, AttributeError):
        raise InvalidNotation(
            "unknown color %(name)s (colors are %(colors)s)",
            name=repr(name),
            colors=" ".join(COLORS),
        ) from None


def _number(text: str, *, what: str, low: int, high: int, example: str) -> int:
    if not (text.isascii() and text.isdigit()):  # "³".isdigit() is true but int("³") fails
        raise InvalidNotation(
            "%(what)s must be a number from %(low)s to %(high)s, not %(text)s%(example)s",
            what=what,
            low=low,
            high=high,
            text=repr(text),
            example=example,
        )
    value = int(text)
    if not low <= value <= high:
        raise InvalidNotation(
            "%(what)s must be from %(low)s to %(high)s, not %(value)s%(example)s",
            what=what,
            low=low,
            high=high,
            value=value,
            example=example,
        )
    return value


def parse_move(text: str) -> Move:
    """Parse a move in canonical notation; raise :class:`InvalidNotation` saying what is wrong."""
    if not isinstance(text, str):
        raise InvalidNotation(
            "a move is text like 'F3 blue 2', not %(type)s", type=type(text).__name__
        )
    parts = text.lower().split()
    if not parts:
        raise InvalidNotation("empty move: write it like 'F3 blue 2', 'C red floor' or 'wall 2 4'")
    if len(text) > 64:
        raise InvalidNotation("move text is too long: write it like 'F3 blue 2'")
    if parts[0] == "wall":
        example = " (write a wall tiling like 'wall 2 4')"
        if len(parts) != 3:
            raise InvalidNotation(
                "a wall tiling has a line and a column%(example)s", example=example
            )
        line = _number(parts[1], what="the pattern line", low=1, high=5, example=example)
        column = _number(parts[2], what="the wall column", low=1, high=5, example=example)
        return Place(line - 1, column - 1)

    example = " (write a move like 'F3 blue 2' or 'C red floor')"
    if len(parts) != 3:
        raise InvalidNotation(
            "a move has a source, a color and a destination%(example)s", example=example
        )
    where, color_name, dest = parts
    if where in ("c", "center", "centre"):
        source = CENTER
    elif where.startswith("f"):
        source = _number(where[1:], what="the factory", low=1, high=MAX_FACTORIES, example=example)
    else:
        raise InvalidNotation(
            "unknown source %(source)s: use F1-F9 or C%(example)s",
            source=repr(where),
            example=example,
        )
    if color_name not in COLOR_INDEX:
        raise InvalidNotation(
            "unknown color %(name)s (colors are %(colors)s)",
            name=repr(color_name),
            colors=" ".join(COLORS),
        )
    if dest == "floor":
        line = FLOOR
    else:
        line = _number(dest, what="the pattern line", low=1, high=5, example=example) - 1
    return Take(source, COLOR_INDEX[color_name], line)
