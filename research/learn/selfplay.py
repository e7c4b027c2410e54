"""Training data for the learned evaluator: positions from games the computer players play.

    python -m research.learn.selfplay --games 400 --players 2 --seed 1 --out artifacts/learn/2p.npz

Each game seats a level drawn (by the seed) from :data:`SEATS` in every seat: ``greedy``, and
``medium`` and ``strong`` at small fixed numbers of iterations, so that a run is fast and the
same for the same seed on any machine, whatever its load. With ``--explore`` a move is now and
then a uniformly random take instead (the data then also holds positions a search's leaves
reach after a poor move, which the players themselves would seldom make).

Every factory-offer position of a game (before each take) is recorded once per player, from
that player's view (:func:`research.learn.features.features`), labelled with that player's final
score margin (its score minus the best opponent's). Beside it: the hand-written evaluation's
margin where the position stands (:func:`azul.ai.evaluation.worths`, the baseline the trainer
compares with), the current score margin, and, for the player to move when a search chose the
move, the search's own mean margin for that move (``search``, NaN otherwise).

The file is a compressed ``.npz`` (:func:`generate` lists its arrays) with ``meta``: a JSON
text with the command line, the seed, the seats and the figures of the run.
"""

from __future__ import annotations

import argparse
import json
import math
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from azul import legal_moves, new_game, play, result
from azul.ai.bots import LEVELS, choose_move_with_stats
from azul.ai.evaluation import DEFAULT, margin, rounds_left, worths
from azul.mechanics import apply_deal, draw, tally
from azul.notation import Move, Take
from research.learn.features import feature_count, feature_rows

SEATS: dict[str, int | None] = {"greedy": None, "medium": 100, "strong": 250}
"""The levels that play the games and their fixed iterations a move (None: no search)."""


@dataclass
class Data:
    """What :func:`generate` collects, row by row (one row per position and player)."""

    features: list[list[float]] = field(default_factory=list)
    margin: list[float] = field(default_factory=list)
    hand: list[float] = field(default_factory=list)
    score_margin: list[float] = field(default_factory=list)
    search: list[float] = field(default_factory=list)
    game: list[int] = field(default_factory=list)
    player: list[int] = field(default_factory=list)
    round: list[int] = field(default_factory=list)
    moves: int = 0

    def arrays(self, players: int) -> dict[str, npt.NDArray[Any]]:
        width = feature_count(players)
        return {
            "features": np.array(self.features, dtype=np.float32).reshape(-1, width),
            "margin": np.array(self.margin, dtype=np.float32),
            "hand": np.array(self.hand, dtype=np.float32),
            "score_margin": np.array(self.score_margin, dtype=np.float32),
            "search": np.array(self.search, dtype=np.float32),
            "game": np.array(self.game, dtype=np.int32),
            "player": np.array(self.player, dtype=np.int8),
            "round": np.array(self.round, dtype=np.int8),
        }


def seat_levels(seed: int, game: int, players: int) -> list[str]:
    """The levels seated in ``game`` of a run with ``seed``."""
    rng = random.Random(f"seats:{seed}:{game}")
    names = list(SEATS)
    return [names[rng.randrange(len(names))] for _ in range(players)]


def play_game(
    seed: int, game: int, players: int, variant: str, explore: float, data: Data
) -> list[str]:
    """Play one game, adding its positions to ``data``; returns the seated levels."""
    levels = seat_levels(seed, game, players)
    rng = random.Random(f"game:{seed}:{game}")
    state = new_game(players, variant, first_player=rng.randrange(players))
    start = len(data.margin)
    ply = 0
    while state.phase != "over":
        if state.phase == "deal":
            state = state.copy()
            apply_deal(state, [tally(f) for f in draw(state, rng)])
            continue
        player = state.to_move[0]
        move_seed = rng.randrange(1 << 30)
        searched = math.nan
        move: Move
        if state.phase == "take":
            values = worths(state, rounds_left(state), DEFAULT)
            scores = [float(b.score) for b in state.boards]
            for view, row in enumerate(feature_rows(state)):
                data.features.append(row)
                data.hand.append(margin(values, view))
                data.score_margin.append(margin(scores, view))
                data.game.append(game)
                data.player.append(view)
                data.round.append(state.round)
            if explore and rng.random() < explore:
                moves = [m for m in legal_moves(state, player) if isinstance(m, Take)]
                move = moves[rng.randrange(len(moves))]
            else:
                level = levels[player]
                move, stats = choose_move_with_stats(
                    state,
                    player,
                    level,
                    seed=move_seed,
                    iterations=SEATS[level],
                    # the level as the data was first played, whatever the level plays by now
                    weights=LEVELS[level].weights,
                )
                searched = stats.margins.get(move, math.nan) if stats.margins else math.nan
            data.search.extend(searched if view == player else math.nan for view in range(players))
        else:  # the gray wall's tiling: every level places by immediate worth
            move, _ = choose_move_with_stats(state, player, "greedy", seed=move_seed)
        state = play(state, move, player)
        data.moves += 1
        ply += 1
    final = [float(s.score) for s in sorted(result(state).standings, key=lambda s: s.player)]
    for i in range(start, len(data.player)):
        data.margin.append(margin(final, data.player[i]))
    return levels


def generate(
    *,
    games: int,
    players: int,
    seed: int,
    variant: str = "colored",
    explore: float = 0.05,
    max_seconds: float | None = None,
    progress: bool = False,
) -> tuple[dict[str, npt.NDArray[Any]], dict[str, Any]]:
    """Play ``games`` games and return (arrays, figures). The arrays: ``features`` (rows x
    :func:`~research.learn.features.feature_count`), ``margin`` (the label: the view's final score
    margin), ``hand`` (the hand-written evaluation's margin), ``score_margin`` (the current
    one), ``search`` (the search's margin for the move it chose, on the mover's row; NaN
    elsewhere), ``game``, ``player`` (the view), ``round``. With ``max_seconds`` no game starts
    after that long (the figures say how many were played: game ``i`` is the same game whatever
    the limit)."""
    data = Data()
    started = time.perf_counter()
    cpu = time.process_time()
    seated: dict[str, int] = {name: 0 for name in SEATS}
    played = 0
    for game in range(games):
        if max_seconds is not None and time.perf_counter() - started > max_seconds:
            break
        for level in play_game(seed, game, players, variant, explore, data):
            seated[level] += 1
        played += 1
        if progress and played % 10 == 0:
            print(f"{played} games, {len(data.margin)} rows", file=sys.stderr, flush=True)
    figures = {
        "games": played,
        "players": players,
        "variant": variant,
        "seed": seed,
        "explore": explore,
        "seats": {name: {"iterations": SEATS[name], "seated": seated[name]} for name in SEATS},
        "rows": len(data.margin),
        "positions": len(data.margin) // players,
        "moves": data.moves,
        "seconds": round(time.perf_counter() - started, 1),
        "cpu_seconds": round(time.process_time() - cpu, 1),
    }
    return data.arrays(players), figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--players", type=int, choices=(2, 3, 4), default=2)
    parser.add_argument("--variant", choices=("colored", "gray"), default="colored")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--explore", type=float, default=0.05, help="share of random takes")
    parser.add_argument("--out", type=Path, required=True, help="the .npz file to write")
    parser.add_argument("--max-seconds", type=float, help="start no game after this long")
    args = parser.parse_args(argv)
    arrays, figures = generate(
        games=args.games,
        players=args.players,
        seed=args.seed,
        variant=args.variant,
        explore=args.explore,
        max_seconds=args.max_seconds,
        progress=True,
    )
    figures["command"] = "python -m research.learn.selfplay " + " ".join(
        sys.argv[1:] if argv is None else argv
    )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    contents: dict[str, Any] = {"meta": np.array(json.dumps(figures)), **arrays}
    np.savez_compressed(args.out, **contents)
    print(json.dumps(figures, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
