"""The game state: plain data that round-trips exactly through JSON.

The attributes are kept as small lists of ints so that copying a state and applying a move stay
cheap (the computer players copy states tens of thousands of times a move). The stable, readable
view is :meth:`State.to_dict`; the public attributes are ``players``, ``variant``, ``phase``,
``round``, ``to_move`` and ``scores``.

Tiles are color indices 0-4 (see :data:`~azul.notation.COLORS`). The bag and the lid are
multisets (counts per color): the order of the tiles in the bag does not exist until a deal draws
them, so nothing about future draws is ever stored.
"""

from __future__ import annotations

from typing import Any

from .notation import COLOR_INDEX, COLORS

TILES_PER_COLOR = 20
TOTAL_TILES = 5 * TILES_PER_COLOR
FACTORY_COUNT = {2: 5, 3: 7, 4: 9}
TILES_PER_FACTORY = 4
FLOOR_SIZE = 7
MARKER = 5
"""Value of the starting player marker on a floor line (tiles are 0-4)."""

FLOOR_PENALTY = (1, 1, 2, 2, 2, 3, 3)
"""Points lost per occupied floor space, left to right (the rulebook's -1 -1 -2 -2 -2 -3 -3)."""
FLOOR_PENALTY_TOTAL = tuple(sum(FLOOR_PENALTY[:n]) for n in range(FLOOR_SIZE + 1))

VARIANTS = ("colored", "gray")
PHASES = ("deal", "take", "tile", "over")
TILING_DONE = 5
"""``Board.tiling`` value once a player has no pattern line left to tile this round."""

FORMAT_VERSION = 1


ABSENT_COLORS: tuple[tuple[int, ...], ...] = tuple(
    tuple(c for c in range(5) if not mask >> c & 1) for mask in range(32)
)
"""For a wall row's color mask (:attr:`Board.row_mask`), the colors it does not hold yet: those
an empty pattern line of that row may take."""


def wall_column(row: int, color: int) -> int:
    """Column of ``color`` in ``row`` of the colored wall (each row is the one above, shifted)."""
    return (color + row) % 5


class Board:
    """One player's board: score, pattern lines, wall and floor line."""

    __slots__ = (
        "score",
        "line_color",
        "line_count",
        "wall",
        "filled",
        "row_mask",
        "col_mask",
        "floor",
        "tiling",
    )

    def __init__(self) -> None:
        self.score = 0
        self.line_color = [-1, -1, -1, -1, -1]
        self.line_count = [0, 0, 0, 0, 0]
        self.wall = [-1] * 25  # row * 5 + column -> color or -1
        self.filled = 0  # bit row * 5 + column set: that wall space holds a tile
        self.row_mask = [0, 0, 0, 0, 0]  # bit c set: color c is on that wall row
        self.col_mask = [0, 0, 0, 0, 0]  # bit c set: color c is in that wall column
        self.floor: list[int] = []
        self.tiling = TILING_DONE

    def copy(self) -> Board:
        other = Board.__new__(Board)
        other.score = self.score
        other.line_color = self.line_color[:]
        other.line_count = self.line_count[:]
        other.wall = self.wall[:]
        other.filled = self.filled
        other.row_mask = self.row_mask[:]
        other.col_mask = self.col_mask[:]
        other.floor = self.floor[:]
        other.tiling = self.tiling
        return other

    def complete_rows(self) -> int:
        return sum(1 for mask in self.row_mask if mask == 0b11111)

    def complete_columns(self) -> int:
        return sum(
            1 for column in range(5) if all(self.wall[r * 5 + column] >= 0 for r in range(5))
        )

    def complete_colors(self) -> int:
        return sum(1 for c in range(5) if all(mask >> c & 1 for mask in self.row_mask))

    def tile_count(self) -> int:
        return (
            sum(self.line_count)
            + sum(1 for cell in self.wall if cell >= 0)
            + sum(1 for tile in self.floor if tile != MARKER)
        )


class State:
    """A whole game at one moment. Use the functions of :mod:`azul` to change it."""

    __slots__ = (
        "players",
        "variant",
        "gray",
        "phase",
        "round",
        "current",
        "first_player",
        "marker_holder",
        "bag",
        "lid",
        "factories",
        "center",
        "factories_left",
        "boards",
    )

    def __init__(self, players: int, variant: str, first_player: int) -> None:
        self.players = players
        self.variant = variant
        self.gray = variant == "gray"
        self.phase = "deal"
        self.round = 0
        self.current = first_player
        self.first_player = first_player  # who starts the current (or next) round
        self.marker_holder = -1  # -1: the starting player marker is in the center
        self.bag = [TILES_PER_COLOR] * 5
        self.lid = [0] * 5
        self.factories = [[0] * 5 for _ in range(FACTORY_COUNT[players])]
        self.center = [0] * 5
        self.factories_left = 0
        self.boards = [Board() for _ in range(players)]

    def copy(self) -> State:
        other = State.__new__(State)
        other.players = self.players
        other.variant = self.variant
        other.gray = self.gray
        other.phase = self.phase
        other.round = self.round
        other.current = self.current
        other.first_player = self.first_player
        other.marker_holder = self.marker_holder
        other.bag = self.bag[:]
        other.lid = self.lid[:]
        other.factories = [f[:] for f in self.factories]
        other.center = self.center[:]
        other.factories_left = self.factories_left
        other.boards = [b.copy() for b in self.boards]
        return other

    # -- the public view ---------------------------------------------------------------------

    @property
    def to_move(self) -> list[int]:
        """Players who may act now: the player to take, or every player with a tiling choice."""
        if self.phase == "take":
            return [self.current]
        if self.phase == "tile":
            return [p for p, b in enumerate(self.boards) if b.tiling != TILING_DONE]
        return []

    @property
    def scores(self) -> list[int]:
        return [b.score for b in self.boards]

    @property
    def marker_in_center(self) -> bool:
        return self.phase == "take" and self.marker_holder == -1

    def tile_total(self) -> int:
        """Tiles anywhere in the game: always 100 (the starting player marker is not a tile)."""
        return (
            sum(self.bag)
            + sum(self.lid)
            + sum(map(sum, self.factories))
            + sum(self.center)
            + sum(b.tile_count() for b in self.boards)
        )

    def factory_tiles(self) -> list[list[str]]:
        """The tiles on each factory as color names, as a deal log entry records them."""
        return [_names(f) for f in self.factories]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, State) and self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return (
            f"<State {self.players}p {self.variant} round {self.round} {self.phase}"
            f" to_move={self.to_move} scores={self.scores}>"
        )

    # -- serialisation ------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """Plain JSON-able data; :meth:`from_dict` rebuilds exactly this state."""
        return {
            "format": FORMAT_VERSION,
            "players": self.players,
            "variant": self.variant,
            "phase": self.phase,
            "round": self.round,
            "current": self.current,
            "first_player": self.first_player,
            "marker_holder": None if self.marker_holder < 0 else self.marker_holder,
            "bag": _counts(self.bag),
            "lid": _counts(self.lid),
            "factories": self.factory_tiles(),
            "center": _names(self.center),
            "boards": [
                {
                    "score": b.score,
                    "pattern_lines": [
                        [COLORS[c] if c >= 0 else None, n]
                        for c, n in zip(b.line_color, b.line_count, strict=True)
                    ],
                    "wall": [
                        [COLORS[c] if c >= 0 else None for c in b.wall[r * 5 : r * 5 + 5]]
                        for r in range(5)
                    ],
                    "floor": ["marker" if t == MARKER else COLORS[t] for t in b.floor],
                    "tiling_line": None if b.tiling == TILING_DONE else b.tiling + 1,
                }
                for b in self.boards
            ],
        }

    @classmethod
    def from_dict(cls, data: Any) -> State:
        """Rebuild a state from :meth:`to_dict` data; raise ``ValueError`` naming any problem."""
        try:
            return _from_dict(data)
        except ValueError:
            raise
        except (KeyError, TypeError, IndexError, AttributeError) as exc:
            raise ValueError(f"malformed state data: {exc!r}") from None


def _names(counts: list[int]) -> list[str]:
    return [COLORS[c] for c in range(5) for _ in range(counts[c])]


def _counts(counts: list[int]) -> dict[str, int]:
    return {COLORS[c]: counts[c] for c in range(5)}


def _int(value: Any, what: str, low: int, high: int) -> int:
    if type(value) is not int or not low <= value <= high:
        raise ValueError(f"{what} must be a whole number from {low} to {high}, not {value!r}")
    return value


def _color(name: Any, what: str) -> int:
    if not isinstance(name, str) or name not in COLOR_INDEX:
        raise ValueError(f"{what}: unknown color {name!r}")
    return COLOR_INDEX[name]


def _count_map(data: Any, what: str) -> list[int]:
    if not isinstance(data, dict) or set(data) != set(COLORS):
        raise ValueError(f"{what} must map each of the five colors to a count")
    return [_int(data[name], f"{what} {name}", 0, TOTAL_TILES) for name in COLORS]


def _tile_list(data: Any, what: str, most: int) -> list[int]:
    if not isinstance(data, list) or len(data) > most:
        raise ValueError(f"{what} must be a list of at most {most} color names")
    counts = [0] * 5
    for name in data:
        counts[_color(name, what)] += 1
    return counts


def _from_dict(data: Any) -> State:
    if not isinstance(data, dict):
        raise ValueError("state data must be a JSON object")
    if data.get("format") != FORMAT_VERSION:
        raise ValueError(f"unsupported state format {data.get('format')!r}")
    players = _int(data["players"], "players", 2, 4)
    variant = data["variant"]
    if variant not in VARIANTS:
        raise ValueError(f"variant must be one of {VARIANTS}, not {variant!r}")
    state = State(players, variant, 0)
    phase = data["phase"]
    if phase not in PHASES:
        raise ValueError(f"phase must be one of {PHASES}, not {phase!r}")
    state.phase = phase
    state.round = _int(data["round"], "round", 0, 10_000)
    state.current = _int(data["current"], "current", 0, players - 1)
    state.first_player = _int(data["first_player"], "first_player", 0, players - 1)
    holder = data["marker_holder"]
    state.marker_holder = -1 if holder is None else _int(holder, "marker_holder", 0, players - 1)
    state.bag = _count_map(data["bag"], "bag")
    state.lid = _count_map(data["lid"], "lid")

    factories = data["factories"]
    if not isinstance(factories, list) or len(factories) != FACTORY_COUNT[players]:
        raise ValueError(f"a {players}-player game has {FACTORY_COUNT[players]} factories")
    state.factories = [
        _tile_list(f, f"factory {i + 1}", TILES_PER_FACTORY) for i, f in enumerate(factories)
    ]
    state.factories_left = sum(1 for f in state.factories if any(f))
    state.center = _tile_list(data["center"], "center", TOTAL_TILES)

    boards = data["boards"]
    if not isinstance(boards, list) or len(boards) != players:
        raise ValueError(f"there must be one board per player ({players})")
    markers = 0
    for p, (board, raw) in enumerate(zip(state.boards, boards, strict=True)):
        _board_from_dict(board, raw, f"board {p}", state.gray)
        markers += board.floor.count(MARKER)
        if MARKER in board.floor and state.marker_holder != p:
            raise ValueError(f"board {p} has the starting player marker but marker_holder says not")
    if markers > 1:
        raise ValueError("there is only one starting player marker")

    # Tiles of each color, wherever they are, in one pass (states are parsed on every read).
    per_color = [state.bag[c] + state.lid[c] + state.center[c] for c in range(5)]
    for counts in state.factories:
        for c in range(5):
            per_color[c] += counts[c]
    for b in state.boards:
        for r in range(5):
            if b.line_color[r] >= 0:
                per_color[b.line_color[r]] += b.line_count[r]
        for tile in (*b.wall, *b.floor):
            if 0 <= tile < 5:  # not an empty wall space, nor the starting player marker
                per_color[tile] += 1
    total = sum(per_color)
    if total != TOTAL_TILES:
        raise ValueError(f"the game has {TOTAL_TILES} tiles, this state has {total}")
    for c, n in enumerate(per_color):
        if n != TILES_PER_COLOR:
            raise ValueError(f"there are {TILES_PER_COLOR} {COLORS[c]} tiles, this state has {n}")
    tiling = [b.tiling != TILING_DONE for b in state.boards]
    if any(tiling) and phase != "tile":
        raise ValueError("only the tile phase has players with a tiling choice")
    # Phases whose play could not go on, or whose next step would lose tiles (a deal replaces
    # the factories): never produced by the rules, so refused.
    on_offer = state.factories_left > 0 or any(state.center)
    if on_offer and phase != "take":
        raise ValueError(f"tiles on offer belong to the take phase, not the {phase} phase")
    if phase == "take" and not on_offer:
        raise ValueError("the take phase needs tiles on offer")
    if phase == "tile" and not any(tiling):
        raise ValueError("the tile phase needs a player with a wall space to choose")
    return state


def _board_from_dict(board: Board, raw: Any, what: str, gray: bool) -> None:
    if not isinstance(raw, dict):
        raise ValueError(f"{what} must be a JSON object")
    board.score = _int(raw["score"], f"{what} score", 0, 10_000)
    lines = raw["pattern_lines"]
    if not isinstance(lines, list) or len(lines) != 5:
        raise ValueError(f"{what} must have 5 pattern lines")
    for r, line in enumerate(lines):
        if not isinstance(line, list) or len(line) != 2:
            raise ValueError(f"{what} pattern line {r + 1} must be [color or null, count]")
        name, count = line
        board.line_count[r] = _int(count, f"{what} pattern line {r + 1} count", 0, r + 1)
        if (name is None) != (count == 0):
            raise ValueError(f"{what} pattern line {r + 1}: a color goes with a count above 0")
        board.line_color[r] = -1 if name is None else _color(name, f"{what} pattern line {r + 1}")

    wall = raw["wall"]
    if not isinstance(wall, list) or len(wall) != 5:
        raise ValueError(f"{what} wall must have 5 rows of 5")
    for r, row in enumerate(wall):
        if not isinstance(row, list) or len(row) != 5:
            raise ValueError(f"{what} wall must have 5 rows of 5")
        for col, name in enumerate(row):
            if name is None:
                continue
            c = _color(name, f"{what} wall row {r + 1}")
            if not gray and wall_column(r, c) != col:
                raise ValueError(
                    f"{what}: {name} does not belong in wall row {r + 1} column {col + 1}"
                )
            if board.row_mask[r] >> c & 1:
                raise ValueError(f"{what}: wall row {r + 1} has {name} twice")
            if board.col_mask[col] >> c & 1:
                raise ValueError(f"{what}: wall column {col + 1} has {name} twice")
            board.wall[r * 5 + col] = c
            board.filled |= 1 << (r * 5 + col)
            board.row_mask[r] |= 1 << c
            board.col_mask[col] |= 1 << c
        line_color = board.line_color[r]
        if line_color >= 0 and board.row_mask[r] >> line_color & 1:
            raise ValueError(f"{what}: pattern line {r + 1} holds a color its wall row already has")

    floor = raw["floor"]
    if not isinstance(floor, list) or len(floor) > FLOOR_SIZE:
        raise ValueError(f"{what} floor line holds at most {FLOOR_SIZE} tiles")
    board.floor = [MARKER if t == "marker" else _color(t, f"{what} floor") for t in floor]

    tiling_line = raw["tiling_line"]
    board.tiling = (
        TILING_DONE if tiling_line is None else _int(tiling_line, f"{what} tiling_line", 1, 5) - 1
    )
    if board.tiling != TILING_DONE and board.line_count[board.tiling] != board.tiling + 1:
        raise ValueError(f"{what}: the pattern line being tiled must be complete")
