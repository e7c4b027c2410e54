"""Engine benchmark: ``python -m research.bench`` (or ``make bench``).

Prints, for 2, 3 and 4 players on both walls, single process:

- complete random games per second (random deals and uniformly random legal moves, played in
  place on one copy, as the computer players' playouts are);
- moves applied per second through the public, validating, copying :func:`play`;
- legal-move generations per second through :func:`legal_moves`;
- complete random games per second through a plain reference loop over the public API only
  (``deal``, ``legal_moves``, ``play``: a fresh validated copy at every step), the yardstick
  for the in-place figure (``x ref`` is their ratio);
- the strong search's iterations per second (tree descent, one rollout to the end of the round
  and its evaluation each) and the plain UCT yardstick's, from the first move of a round.

The positions for the last two are collected from random games first, so both figures are
measured over the same realistic mix of early, middle and late-round positions.
"""

from __future__ import annotations

import argparse
import random
import time

from azul import deal, legal_moves, new_game, play, play_out, random_move
from azul.ai.search import search
from azul.mechanics import random_step
from research.uct import uct_search


def _rate(count: int, seconds: float) -> float:
    return count / seconds if seconds > 0 else float("inf")


def _positions(players: int, variant: str, games: int, rng: random.Random) -> list:
    """(state, move) pairs from random games: every position where a player had to move."""
    pairs = []
    for _ in range(games):
        state = new_game(players, variant)
        while state.phase != "over":
            if state.phase in ("take", "tile"):
                player = state.to_move[0]
                pairs.append((state.copy(), player, random_move(state, rng, player)))
            random_step(state, rng)  # the same stepping the playouts use
    return pairs


def measure(players: int, variant: str, seconds: float, seed: int) -> dict[str, float]:
    rng = random.Random(seed)
    games = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        play_out(new_game(players, variant), rng)
        games += 1
    games_rate = _rate(games, time.perf_counter() - start)

    pairs = _positions(players, variant, 20, rng)
    start = time.perf_counter()
    applied = 0
    while time.perf_counter() - start < seconds:
        for state, player, move in pairs:
            play(state, move, player)
        applied += len(pairs)
    play_rate = _rate(applied, time.perf_counter() - start)

    start = time.perf_counter()
    generated = 0
    while time.perf_counter() - start < seconds:
        for state, player, _move in pairs:
            legal_moves(state, player)
        generated += len(pairs)
    legal_rate = _rate(generated, time.perf_counter() - start)

    start = time.perf_counter()
    reference = 0
    while time.perf_counter() - start < seconds:
        state = new_game(players, variant)
        while state.phase != "over":
            if state.phase == "deal":
                state = deal(state, rng=rng)
            else:
                player = state.to_move[0]
                moves = legal_moves(state, player)
                state = play(state, moves[rng.randrange(len(moves))], player)
        reference += 1
    reference_rate = _rate(reference, time.perf_counter() - start)

    searches = {}
    for name, find in (("strong", search), ("uct", uct_search)):
        fresh = deal(new_game(players, variant), rng=random.Random(seed))
        done = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            find(fresh, fresh.current, rng, iterations=200)
            done += 200
        searches[name] = _rate(done, time.perf_counter() - start)
    return {
        "games": games_rate,
        "play": play_rate,
        "legal": legal_rate,
        "reference": reference_rate,
        "strong": searches["strong"],
        "uct": searches["uct"],
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=2.0, help="time per figure")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--variant", choices=("colored", "gray", "both"), default="both")
    args = parser.parse_args(argv)
    variants = ("colored", "gray") if args.variant == "both" else (args.variant,)
    print(
        f"{'players':>7} {'wall':>7} {'games/s':>10} {'play()/s':>10} {'legal_moves()/s':>16}"
        f" {'ref games/s':>12} {'x ref':>6} {'strong it/s':>12} {'uct it/s':>9}"
    )
    for variant in variants:
        for players in (2, 3, 4):
            figures = measure(players, variant, args.seconds, args.seed)
            print(
                f"{players:>7} {variant:>7} {figures['games']:>10,.0f}"
                f" {figures['play']:>10,.0f} {figures['legal']:>16,.0f}"
                f" {figures['reference']:>12,.0f} {figures['games'] / figures['reference']:>6.1f}"
                f" {figures['strong']:>12,.0f} {figures['uct']:>9,.0f}",
                flush=True,
            )


if __name__ == "__main__":
    main()
