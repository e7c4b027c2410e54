"""A league's next season: who plays in which division, from how the last season ended.

A division is a round robin of `size` players or near it (4 to 8). At a season's end the best
`movers` of each division go up one and the worst `movers` go down one; those who left the
league drop out, newcomers start at the bottom (the strongest by rating first), and the ladder
that makes is cut again into divisions as even as the numbers allow. The first season, with no
ladder yet, is all newcomers: placed by rating alone.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from .types import Entrant

DIVISION_MIN = 4
DIVISION_MAX = 8


def ladder(divisions: Sequence[Sequence[int]], *, movers: int) -> list[int]:
    """Everyone of the last season, best first, after promotion and relegation: `divisions`
    top first, each in its final standing order."""
    if movers < 0:
        raise ValueError("movers cannot be negative")
    levels = [list(d) for d in divisions]
    for upper, lower in zip(levels, levels[1:], strict=False):
        count = min(movers, len(upper) // 2, len(lower) // 2)
        if count:
            up, down = lower[:count], upper[-count:]
            upper[-count:] = up
            lower[:count] = down
    # Those moved up stand at the bottom of their new division's place in the ladder, those
    # moved down at the top of theirs: the order within a division is only its seeding.
    return [player for level in levels for player in level]


def division_count(players: int, size: int) -> int:
    """How many divisions `players` make at about `size` each, none below `DIVISION_MIN`."""
    if not DIVISION_MIN <= size <= DIVISION_MAX:
        raise ValueError(f"a division has {DIVISION_MIN} to {DIVISION_MAX} players, not {size}")
    count = max(1, math.ceil(players / size))
    while count > 1 and players // count < DIVISION_MIN:
        count -= 1
    return count


def next_divisions(
    divisions: Sequence[Sequence[int]],
    stay: Sequence[int] | frozenset[int],
    newcomers: Sequence[Entrant],
    *,
    size: int,
    movers: int,
) -> list[list[int]]:
    """The next season's divisions, top first: the last season's `divisions` (top first, each in
    its final standing order) kept to those in `stay`, then `newcomers` by rating. Each division
    gets `len // count` or one more players, the larger ones at the top."""
    staying = set(stay)
    order = [p for p in ladder(divisions, movers=movers) if p in staying]
    seen = set(order)
    order += [e.id for e in sorted(newcomers, key=lambda e: (-e.rating, e.id)) if e.id not in seen]
    if not order:
        return []
    count = division_count(len(order), size)
    small, larger = divmod(len(order), count)
    out: list[list[int]] = []
    start = 0
    for level in range(count):
        length = small + (1 if level < larger else 0)
        out.append(order[start : start + length])
        start += length
    return out
