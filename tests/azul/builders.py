"""Named helpers that build engine positions for the tests.

Tiles are written as one letter each: ``b`` blue, ``y`` yellow, ``r`` red, ``k`` black, ``w``
white; on a floor line ``m`` is the starting player marker. A wall is five rows of five
characters: a colour letter, ``.`` for an empty space, or ``x`` for "the tile the colored wall has
there" (handy for the rulebook's scoring pictures, which show tiles, not colours).

:func:`position` turns a readable description into a :class:`State` through ``State.from_dict``,
putting every tile the description does not place into the bag, so the 100-tile invariant holds.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from azul import (
    COLORS,
    FACTORY_COUNT,
    State,
    deal,
    deal_entry,
    draw_tiles,
    move_entry,
    new_game,
    play,
    random_move,
)
from azul.ai.bots import SHIPPED, WEIGHTS_DIR
from azul.ai.evaluation import RoundEndTables

LETTER = {"b": "blue", "y": "yellow", "r": "red", "k": "black", "w": "white", "m": "marker"}
BLUE, YELLOW, RED, BLACK, WHITE = range(5)

COLORED_WALL = [[COLORS[(column - row) % 5] for column in range(5)] for row in range(5)]
"""The colored wall's pattern: ``COLORED_WALL[row][column]`` (rows and columns from 0)."""


def tiles(letters: str) -> list[str]:
    """``"bby"`` -> ``["blue", "blue", "yellow"]`` (spaces ignored)."""
    return [LETTER[ch] for ch in letters.replace(" ", "")]


def wall(*rows: str) -> list[list[str | None]]:
    """Five strings of five characters -> the ``to_dict`` wall (see the module docstring)."""
    assert len(rows) == 5 and all(len(row) == 5 for row in rows), rows
    cells: list[list[str | None]] = []
    for r, row in enumerate(rows):
        out: list[str | None] = []
        for c, ch in enumerate(row):
            if ch == ".":
                out.append(None)
            elif ch == "x":
                out.append(COLORED_WALL[r][c])
            else:
                out.append(LETTER[ch])
        cells.append(out)
    return cells


EMPTY_WALL = (".....",) * 5


def board(
    score: int = 0,
    lines: dict[int, str] | None = None,
    wall_rows: Sequence[str] = EMPTY_WALL,
    floor: str = "",
    tiling_line: int | None = None,
) -> dict[str, Any]:
    """One player's board. ``lines`` maps a pattern line (1-5) to its tiles, e.g. ``{4: "b"}``."""
    pattern_lines: list[list[Any]] = [[None, 0] for _ in range(5)]
    for number, letters in (lines or {}).items():
        held = tiles(letters)
        assert len(set(held)) == 1, f"pattern line {number} mixes colours: {letters}"
        pattern_lines[number - 1] = [held[0], len(held)]
    return {
        "score": score,
        "pattern_lines": pattern_lines,
        "wall": wall(*wall_rows),
        "floor": tiles(floor),
        "tiling_line": tiling_line,
    }


def position(
    boards: Sequence[dict[str, Any]],
    *,
    variant: str = "colored",
    phase: str = "take",
    factories: Sequence[str] = (),
    center: str = "",
    lid: str = "",
    bag: str | None = None,
    current: int = 0,
    first_player: int = 0,
    marker_holder: int | None = None,
    round_number: int = 1,
) -> State:
    """A state built from readable parts; unlisted factories are empty.

    ``bag=None`` puts every tile not placed elsewhere into the bag (the usual case). An explicit
    ``bag`` must account for the rest exactly, which is checked by ``State.from_dict``.
    """
    players = len(boards)
    factory_list = [tiles(f) for f in factories]
    factory_list += [[] for _ in range(FACTORY_COUNT[players] - len(factory_list))]
    data: dict[str, Any] = {
        "format": 1,
        "players": players,
        "variant": variant,
        "phase": phase,
        "round": round_number,
        "current": current,
        "first_player": first_player,
        "marker_holder": marker_holder,
        "lid": counts(tiles(lid)),
        "factories": factory_list,
        "center": tiles(center),
        "boards": [dict(b) for b in boards],
    }
    if bag is None:
        data["bag"] = {name: 20 - n for name, n in placed_tiles(data).items()}
        assert all(n >= 0 for n in data["bag"].values()), f"too many tiles: {data['bag']}"
    else:
        data["bag"] = counts(tiles(bag))
    return State.from_dict(data)


def counts(names: Sequence[str]) -> dict[str, int]:
    tally = Counter(names)
    return {name: tally[name] for name in COLORS}


def placed_tiles(data: dict[str, Any]) -> dict[str, int]:
    """Count the tiles of a ``to_dict`` mapping everywhere except the bag, by colour.

    Independent of the engine's own counting: it reads only the serialised data.
    """
    tally: Counter[str] = Counter()
    tally.update({name: n for name, n in data["lid"].items()})
    for factory in data["factories"]:
        tally.update(factory)
    tally.update(data["center"])
    for b in data["boards"]:
        for name, n in b["pattern_lines"]:
            if name is not None:
                tally[name] += n
        for row in b["wall"]:
            tally.update(cell for cell in row if cell is not None)
        tally.update(t for t in b["floor"] if t != "marker")
    return {name: tally[name] for name in COLORS}


def count_tiles(data: dict[str, Any]) -> dict[str, int]:
    """Every tile of a ``to_dict`` mapping (bag included), by colour."""
    placed = placed_tiles(data)
    return {name: placed[name] + data["bag"][name] for name in COLORS}


def dealt(state: State, *factories: str) -> State:
    """Deal exactly these factory contents (letters per factory; missing factories get none)."""
    fills = [tiles(f) for f in factories]
    fills += [[] for _ in range(len(state.factories) - len(fills))]
    return deal(state, tiles=fills)


def snapshot(state: State) -> str:
    """A frozen copy of a state's public view, to show that a call left it unchanged."""
    return json.dumps(state.to_dict(), sort_keys=True)


def random_step(state: State, rng: random.Random) -> tuple[dict[str, Any], State]:
    """One random step of a game: ``(log entry, new state)``.

    A deal is drawn with :func:`draw_tiles`; otherwise a random player among ``to_move`` makes a
    random legal move (in the gray tiling phase several players may be waiting).
    """
    if state.phase == "deal":
        fill = draw_tiles(state, rng)
        return deal_entry(fill), deal(state, tiles=fill)
    player = rng.choice(state.to_move)
    move = random_move(state, rng, player)
    return move_entry(player, move), play(state, move, player)


def random_game(
    players: int, variant: str, seed: int, first_player: int = 0
) -> Iterator[tuple[State, dict[str, Any], State]]:
    """Play one seeded random game; yield ``(before, log entry, after)`` for every step."""
    rng = random.Random(seed)
    state = new_game(players, variant, first_player)
    while state.phase != "over":
        entry, after = random_step(state, rng)
        yield state, entry, after
        state = after


def finish_offer(boards: Sequence[dict[str, Any]], **kw: Any) -> State:
    """Run the wall-tiling phase on ``boards``.

    Builds a position whose only tile left on offer is one white tile on factory 1, with the last
    player to move; that player drops it on their floor line (so the last board gets one white
    floor tile: give it a white-free wall or ignore it), which ends the factory offer. Returns
    the state after that move: tiling done (``phase`` "deal" or "over") or waiting for gray-wall
    choices (``phase`` "tile").
    """
    last = len(boards) - 1
    state = position(boards, factories=["w"], current=last, **kw)
    return play(state, "F1 white floor", last)


def crowded_boards(spare: int = 0) -> list[dict[str, Any]]:
    """Four boards holding every tile of the game on walls and pattern lines, none complete.

    Player ``p``'s wall row ``r`` has every colour but ``(r + p) % 5`` (so no row, column or
    colour is complete), and incomplete pattern lines hold 20 tiles of those missing colours.
    With ``spare`` > 0, that many tiles are left off the pattern lines (for the bag or lid).
    """
    # (player, pattern line number, colour letter, count): 4 tiles of each colour.
    lines = [(1, 5, "b", 4), (2, 5, "y", 4), (3, 5, "r", 4), (0, 4, "k", 3), (1, 3, "k", 1)]
    lines.append((0, 5, "w", 4))
    boards = []
    for p in range(4):
        rows = []
        for r in range(5):
            missing_column = ((r + p) % 5 + r) % 5
            rows.append("".join("." if c == missing_column else "x" for c in range(5)))
        held: dict[int, str] = {}
        for player, number, letter, n in lines:
            if player == p:
                held[number] = letter * n
        boards.append(board(lines=held, wall_rows=rows))
    left = spare
    for b in boards:
        for line in b["pattern_lines"]:
            take = min(left, line[1])
            line[1] -= take
            left -= take
            if line[1] == 0:
                line[0] = None
    return boards


# -- fitted round-end tables ---------------------------------------------------------------------


def plain_tables_data() -> dict[str, Any]:
    """The 2-player round-end tables that strong and master play by (the file named in
    ``azul.ai.bots.SHIPPED``), without the correction of their margin or their search knobs: a
    tables file as the fit writes one (research/weights/roundend-2p.json holds the same tables)."""
    shipped = json.loads((WEIGHTS_DIR / SHIPPED[(2, "colored")]).read_text())
    return {"buckets": shipped["buckets"]}


def write_plain_tables(path: Path) -> Path:
    """:func:`plain_tables_data` written to ``path``."""
    path.write_text(json.dumps(plain_tables_data()))
    return path


def plain_tables() -> RoundEndTables:
    """:func:`plain_tables_data` as the evaluation loads them."""
    buckets = {int(rounds): terms for rounds, terms in plain_tables_data()["buckets"].items()}
    return RoundEndTables.from_buckets(buckets, "roundend-2p.json")
