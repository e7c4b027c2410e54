"""The rules of Azul as a player meets them: a new game, the deal, the legal moves, playing one.

Every public function leaves the state it is given unchanged and returns a new one. The in-place
mechanics behind them are in :mod:`azul.mechanics` (the deal and the factory offer) and
:mod:`azul.tiling` (wall tiling, scoring, the end of the game); this module checks each move or
deal against the rules before they apply it.

Readings of the rulebook where it leaves a case open (each has a test):

- *Taking from the center first with a full floor line*: the player still takes the starting player
  marker and starts the next round, but it occupies no floor space (there is none) and costs no
  further points: the floor line's seven spaces are the most a player can lose in a round. Board
  Game Arena plays it the same way.
- *Nobody takes from the center in a round* (every factory was taken whole): the marker stays in
  the center and the same player starts the next round.
- *A deal that finds no tile at all* (bag and lid both empty, every tile on walls and pattern
  lines): no player could ever move again, so the game ends after that round with the end-of-game
  bonuses, as if a row had been completed.
- *Nobody can ever complete a row*: on the gray wall a row can become impossible to finish (its
  missing colors already stand in the columns of its empty spaces), and on either wall the
  tiles a row needs can all end up on walls or in pattern lines that can never fill. The rulebook
  ends the game only when a row is completed, so such a game would never end: it ends after the
  wall-tiling phase in which completing a row has become impossible for every player, with the
  end-of-game bonuses. The test is an over-estimate (see :func:`azul.tiling.row_still_possible`),
  so a game is never ended while any player could still complete a row.
- *Deal entries* record each factory's tiles; the order in which tiles were drawn does not matter.
  When the bag runs out mid-fill, every tile still in the bag is drawn before the lid is poured in,
  so a recorded deal is valid only if it holds the whole bag and the rest comes from the lid.
- *Gray wall*: each player tiles pattern lines top to bottom; a line whose tile has exactly one
  legal space is placed there without asking, a line with none goes to the floor line whole, and
  a line with a choice waits for that player's ``wall <line> <column>`` move. Players tile
  independently, so ``to_move`` lists everyone with a choice pending.
"""

from __future__ import annotations

import random
from typing import Any

from .errors import IllegalMove
from .mechanics import apply_deal, draw, random_step, take, take_moves, tally
from .notation import CENTER, COLORS, FLOOR, Move, Place, Take, color_index, parse_move
from .state import FACTORY_COUNT, TILES_PER_FACTORY, VARIANTS, State
from .tiling import place, place_moves

# -- starting and dealing ----------------------------------------------------------------------


def new_game(players: int, variant: str = "colored", first_player: int = 0) -> State:
    """A game for 2-4 players with all 100 tiles in the bag, waiting for the first deal."""
    if type(players) is not int or players not in FACTORY_COUNT:
        raise ValueError(f"Azul is for 2, 3 or 4 players, not {players!r}")
    if variant not in VARIANTS:
        raise ValueError(f"variant must be 'colored' or 'gray', not {variant!r}")
    if type(first_player) is not int or not 0 <= first_player < players:
        raise ValueError(f"first_player must be 0-{players - 1}, not {first_player!r}")
    return State(players, variant, first_player)


def draw_tiles(state: State, rng: random.Random) -> list[list[str]]:
    """Draw this round's factory fill at random, without applying it: one color list per factory.

    Pass the result to :func:`deal` (and keep it as the round's log entry).
    """
    _require_phase(state, "deal")
    return [[COLORS[c] for c in f] for f in draw(state, rng)]


def deal(
    state: State, rng: random.Random | None = None, tiles: list[list[str]] | None = None
) -> State:
    """Fill the factories for the next round, at random with ``rng`` or exactly as ``tiles`` says.

    Each factory gets 4 tiles from the bag; when the bag runs empty mid-fill the lid is poured
    into it, and when both are empty the remaining factories stay short (rulebook, "Preparing the
    next round").
    """
    _require_phase(state, "deal")
    if (rng is None) == (tiles is None):
        raise ValueError("deal needs exactly one of rng or tiles")
    if rng is not None:
        counts = [tally(f) for f in draw(state, rng)]
    else:
        counts = _parse_deal(state, tiles)
        _check_deal(state, counts)
    new = state.copy()
    apply_deal(new, counts)
    return new


def _parse_deal(state: State, tiles: Any) -> list[list[int]]:
    factories = len(state.factories)
    if not isinstance(tiles, list | tuple) or len(tiles) != factories:
        raise IllegalMove(
            "a deal lists the tiles of each of the %(factories)s factories", factories=factories
        )
    counts = []
    for i, factory in enumerate(tiles, 1):
        if not isinstance(factory, list | tuple):
            raise IllegalMove(
                "factory %(factory)s: a deal lists each factory's tiles as color names", factory=i
            )
        try:
            counts.append(tally(color_index(name) for name in factory))
        except ValueError as exc:
            raise IllegalMove("factory %(factory)s: %(reason)s", factory=i, reason=exc) from None
    return counts


def _check_deal(state: State, counts: list[list[int]]) -> None:
    bag_total, lid_total = sum(state.bag), sum(state.lid)
    drawn_total = min(TILES_PER_FACTORY * len(counts), bag_total + lid_total)
    for i, factory in enumerate(counts):
        expected = max(0, min(TILES_PER_FACTORY, drawn_total - TILES_PER_FACTORY * i))
        if sum(factory) != expected:
            raise IllegalMove(
                "factory %(factory)s must get %(count)s tiles, not %(got)s"
                " (%(bag)s in the bag, %(lid)s in the lid)",
                factory=i + 1,
                count=expected,
                got=sum(factory),
                bag=bag_total,
                lid=lid_total,
            )
    drawn = [sum(f[c] for f in counts) for c in range(5)]
    for c, name in enumerate(COLORS):
        if drawn_total <= bag_total:
            if drawn[c] > state.bag[c]:
                raise IllegalMove(
                    "the deal draws %(drawn)s %(color)s tiles but the bag holds %(held)s",
                    drawn=drawn[c],
                    color=name,
                    held=state.bag[c],
                )
        elif drawn[c] < state.bag[c]:
            raise IllegalMove(
                "the bag runs empty during this deal, so all %(held)s %(color)s tiles in it"
                " are drawn before the lid is poured in; the deal draws %(drawn)s",
                held=state.bag[c],
                color=name,
                drawn=drawn[c],
            )
        elif drawn[c] - state.bag[c] > state.lid[c]:
            raise IllegalMove(
                "the deal draws %(drawn)s %(color)s tiles but the bag and lid hold %(held)s",
                drawn=drawn[c],
                color=name,
                held=state.bag[c] + state.lid[c],
            )


# -- moves ---------------------------------------------------------------------------------------


def legal_moves(state: State, player: int | None = None) -> list[Move]:
    """Every legal move for ``player`` (default: the one to move); empty if they cannot act now."""
    if player is not None:
        _check_player_index(state, player)
    if state.phase == "take":
        if player is not None and player != state.current:
            return []
        takes: list[Any] = take_moves(state, state.current)  # a list of Take is a list of Move
        return takes
    if state.phase == "tile":
        waiting = state.to_move
        if player is None:
            if len(waiting) != 1:
                raise ValueError(f"players {waiting} are each choosing wall spaces: name one")
            player = waiting[0]
        if player not in waiting:
            return []
        return place_moves(state.boards[player], state.boards[player].tiling)
    return []


def play(state: State, move: Move | str, player: int | None = None) -> State:
    """Apply ``move`` (a move or its notation) for ``player`` (default: the one to move).

    Raises :class:`IllegalMove` with a reason a player can read; ``state`` is never changed.
    """
    if isinstance(move, str):
        move = parse_move(move)
    player = _actor(state, move, player)
    if isinstance(move, Take):
        _check_take(state, player, move)
        new = state.copy()
        take(new, player, move[0], move[1], move[2])
    else:
        _check_place(state, player, move)
        new = state.copy()
        place(new, player, move[0], move[1])
    return new


def _require_phase(state: State, phase: str) -> None:
    if not isinstance(state, State):
        raise TypeError(f"expected a State, not {type(state).__name__}")
    if state.phase != phase:
        if state.phase == "over":
            raise IllegalMove("the game is over")
        if phase == "deal":
            raise IllegalMove("the factories are already filled for this round")
        raise IllegalMove(
            "this is the %(phase)s phase, not the %(wanted_phase)s phase",
            phase=state.phase,
            wanted_phase=phase,
        )


def _check_player_index(state: State, player: Any) -> None:
    if type(player) is not int or not 0 <= player < state.players:
        raise IllegalMove(
            "there is no player %(player)s in a %(players)s-player game",
            player=repr(player),
            players=state.players,
        )


def _actor(state: State, move: Any, player: int | None) -> int:
    """The player making ``move`` now, or :class:`IllegalMove` saying why nobody can."""
    if not isinstance(state, State):
        raise TypeError(f"expected a State, not {type(state).__name__}")
    if player is not None:
        _check_player_index(state, player)
    if state.phase == "over":
        raise IllegalMove("the game is over")
    if state.phase == "deal":
        raise IllegalMove("the factories have not been filled for this round yet")
    if state.phase == "take":
        if not isinstance(move, Take):
            if isinstance(move, Place):
                raise IllegalMove(
                    "it is the factory offer: take tiles with a move like 'F3 blue 2'"
                )
            raise IllegalMove("not a move: %(move)s", move=repr(move))
        if player is not None and player != state.current:
            raise IllegalMove(
                "it is player %(current)s's turn, not player %(player)s's",
                current=state.current,
                player=player,
            )
        return state.current
    if not isinstance(move, Place):
        raise IllegalMove(
            "the wall-tiling phase is under way: choose a wall space with 'wall <line> <column>'"
        )
    waiting = state.to_move
    if player is None:
        if len(waiting) != 1:
            raise IllegalMove(
                "players %(players)s are each choosing wall spaces: say which one moves",
                players=waiting,
            )
        return waiting[0]
    if player not in waiting:
        raise IllegalMove("player %(player)s has no wall space to choose now", player=player)
    return player


def _check_take(state: State, player: int, move: Take) -> None:
    source, color, line = move
    if type(color) is not int or not 0 <= color < 5:
        raise IllegalMove("unknown color %(value)s", value=repr(color))
    if type(line) is not int or not 0 <= line <= FLOOR:
        raise IllegalMove(
            "unknown destination %(value)s: pattern lines 1-5 or the floor", value=repr(line)
        )
    name = COLORS[color]
    factories = len(state.factories)
    if type(source) is not int or not 0 <= source <= factories:
        raise IllegalMove(
            "there is no factory %(source)s:"
            " a %(players)s-player game has factories 1-%(factories)s",
            source=source,
            players=state.players,
            factories=factories,
        )
    if source == CENTER:
        if not state.center[color]:
            raise IllegalMove("the center has no %(color)s tiles", color=name)
    else:
        factory = state.factories[source - 1]
        if not any(factory):
            raise IllegalMove("factory %(factory)s is empty", factory=source)
        if not factory[color]:
            raise IllegalMove(
                "factory %(factory)s has no %(color)s tiles", factory=source, color=name
            )
    if line == FLOOR:
        return
    board = state.boards[player]
    held = board.line_color[line]
    if board.line_count[line] == line + 1:
        raise IllegalMove("pattern line %(line)s is already full", line=line + 1)
    if held >= 0 and held != color:
        raise IllegalMove(
            "pattern line %(line)s already holds %(color)s", line=line + 1, color=COLORS[held]
        )
    if board.row_mask[line] >> color & 1:
        raise IllegalMove(
            "the wall's row %(line)s already has %(color)s", line=line + 1, color=name
        )


def _check_place(state: State, player: int, move: Place) -> None:
    line, column = move
    board = state.boards[player]
    if type(line) is not int or not 0 <= line < 5:
        raise IllegalMove("there is no pattern line %(value)s: lines are 1-5", value=repr(line))
    if type(column) is not int or not 0 <= column < 5:
        raise IllegalMove("there is no wall column %(value)s: columns are 1-5", value=repr(column))
    if line != board.tiling:
        raise IllegalMove(
            "pattern line %(line)s is the one to tile now, not %(chosen)s",
            line=board.tiling + 1,
            chosen=line + 1,
        )
    color = board.line_color[line]
    if board.wall[line * 5 + column] >= 0:
        raise IllegalMove(
            "the wall's row %(line)s already has a tile in column %(column)s",
            line=line + 1,
            column=column + 1,
        )
    if board.col_mask[column] >> color & 1:
        raise IllegalMove(
            "the wall's column %(column)s already has %(color)s",
            column=column + 1,
            color=COLORS[color],
        )


# -- random play ---------------------------------------------------------------------------------


def random_move(state: State, rng: random.Random, player: int | None = None) -> Move:
    """A uniformly random legal move for ``player`` (default: the one to move)."""
    moves = legal_moves(state, player)
    if not moves:
        raise IllegalMove("that player has no move to make now")
    return moves[rng.randrange(len(moves))]


def play_out(state: State, rng: random.Random) -> State:
    """Play the game to its end with random deals and uniformly random legal moves (a copy)."""
    state = state.copy()
    while state.phase != "over":
        random_step(state, rng)
    return state
