"""The calibration arena between computer levels: each level against the one below it, seats
alternated, each deal played from both seats, at each level's own budget (what the site plays).
Writes the results where the site reads them (`ratings/level_calibration.json`), which places
the levels on the players' rating scale (`ratings.levels`).

    python -m research.calibrate --games 100 --jobs 2                       # every step, run now
    python -m research.calibrate --steps greedy,medium --games 100 --jobs 2  # one step, others kept
    python -m research.calibrate --record strong medium 83 17 0 \\
        "python -m research.arena strong medium --games 100 --budget 1.0 --jobs 2 --quiet"

`--record` keeps the result of an arena run made before (`python -m research.arena`, as BOTS.md
lists them) with the command that made it, instead of playing it again: a step between the
searching levels costs tens of minutes of both cores. A step run or recorded replaces the same
step's earlier line; the others are kept.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import sys
import time
from pathlib import Path

from azul.ai.bots import LEVELS
from research.arena import _task, schedule, tally

OUT = Path(__file__).resolve().parent.parent / "ratings" / "level_calibration.json"
ORDER = list(LEVELS)


def run_step(stronger: str, weaker: str, games: int, jobs: int, seed: int) -> dict:
    tasks = [
        (seating, "colored", deal_seed, None, game, None, "")
        for seating, deal_seed, game in schedule([stronger, weaker], 2, games, seed)
    ]
    started = time.time()
    if jobs > 1:
        with multiprocessing.Pool(jobs) as pool:
            results = list(pool.imap_unordered(_task, tasks))
    else:
        results = [_task(task) for task in tasks]
    won = tally(results)[stronger]
    command = (
        f"python -m research.calibrate --steps {weaker},{stronger} --games {games} --seed {seed}"
    )
    print(
        f"{stronger} against {weaker}: {won.wins} won, {won.losses} lost, {won.ties} shared"
        f" of {len(results)} ({time.time() - started:.0f} s)",
        flush=True,
    )
    return {
        "stronger": stronger,
        "weaker": weaker,
        "wins": won.wins,
        "losses": won.losses,
        "ties": won.ties,
        "command": command,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m research.calibrate", description=__doc__)
    parser.add_argument("--games", type=int, default=100, help="games per step")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--steps", help="WEAKER,STRONGER neighbours to play (default: every step)", default=""
    )
    parser.add_argument(
        "--record",
        nargs=6,
        metavar=("STRONGER", "WEAKER", "WINS", "LOSSES", "TIES", "COMMAND"),
        help="keep an earlier arena run's result",
    )
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)

    runs = {}
    if args.out.exists():
        runs = {(r["stronger"], r["weaker"]): r for r in json.loads(args.out.read_text())["runs"]}
    if args.record:
        stronger, weaker, wins, losses, ties, command = args.record
        if (weaker, stronger) not in zip(ORDER, ORDER[1:], strict=False):
            parser.error(f"{stronger} and {weaker} are not neighbours: {', '.join(ORDER)}")
        runs[stronger, weaker] = {
            "stronger": stronger,
            "weaker": weaker,
            "wins": int(wins),
            "losses": int(losses),
            "ties": int(ties),
            "command": command,
        }
    else:
        steps = list(zip(ORDER, ORDER[1:], strict=False))
        if args.steps:
            wanted = tuple(args.steps.split(","))
            if wanted not in steps:
                parser.error(f"--steps: two neighbours, weaker first: {', '.join(ORDER)}")
            steps = [wanted]
        for weaker, stronger in steps:
            runs[stronger, weaker] = run_step(stronger, weaker, args.games, args.jobs, args.seed)
    ordered = sorted(runs.values(), key=lambda r: ORDER.index(r["weaker"]))
    document = {
        "about": "Each computer level against the one below it (2 players, colored wall, each"
        " level at its own budget). Made by python -m research.calibrate; read by ratings.levels.",
        "runs": ordered,
    }
    args.out.write_text(json.dumps(document, indent=2) + "\n")
    print(f"wrote {args.out.name}: {len(ordered)} steps", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
