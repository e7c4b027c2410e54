"""Swiss benchmark: the time to pair one round of a large Swiss (`events.formats.swiss_round`),
and the repeat meetings it makes, at two and at four a table.

    python scripts/bench_swiss.py                   # or: make bench-swiss
    python scripts/bench_swiss.py --players 200 --runs 1

Pure Python, no database: `--players` entrants (ratings drawn around 1500) play `--rounds`
rounds of a Swiss first, paired by the same function, with realistic results: at two a table
the higher-rated wins with the Elo probability of the rating gap (a draw now and then); at four,
the placings follow the ratings plus noise. Game scores are drawn around 60, the better placed
scoring more. Then the next round is paired `--runs` times (the same input each time).

Prints, for each table size, the time of one pairing (min and median of the runs, and the least
CPU time of a run: the figure a busy machine does not inflate), the repeat
meetings in it (pairs who met before and meet again), the mean gap of points within a table
(best less worst at the table), the tables and the byes. Target (issue 61): pairing a round of
1,000 players under 1 second, with no repeat meeting while one can be avoided (none here: after
a few rounds of 1,000 a repeat can always be avoided).
"""

from __future__ import annotations

import argparse
import itertools
import os
import random
import statistics
import time

from events.formats import Entrant, Round, TableResult, swiss_round
from events.formats.scoring import meetings_so_far, points_by_entrant
from harness.report import goal, table_header

TARGET_SECONDS = 1.0


def play(round_: Round, rating: dict[int, float], rng: random.Random) -> list[TableResult]:
    """A result for each table, as players of those ratings would make it."""
    results = []
    for table in round_.tables:
        if len(table) == 2:
            a, b = table
            expected = 1 / (1 + 10 ** ((rating[b] - rating[a]) / 400))
            roll = rng.random()
            placings = (1, 1) if roll < 0.02 else ((1, 2) if roll < expected else (2, 1))
        else:
            strength = {e: rating[e] + rng.gauss(0, 200) for e in table}
            placings = tuple(1 + sum(strength[o] > strength[e] for o in table) for e in table)
        base = sorted((max(0, round(rng.gauss(60, 15))) for _ in table), reverse=True)
        scores = tuple(base[p - 1] for p in placings)
        results.append(TableResult(tuple(table), tuple(placings), scores))
    return results


def history(args: argparse.Namespace, table_size: int):
    """The entrants and the results and byes of `--rounds` rounds already played."""
    rng = random.Random(args.seed)
    entrants = [Entrant(i, rng.gauss(1500, 300)) for i in range(1, args.players + 1)]
    rating = {e.id: e.rating for e in entrants}
    results: list[TableResult] = []
    byes: list[int] = []
    for _ in range(args.rounds):
        this = swiss_round(entrants, results, table_size=table_size, byes=byes)
        results += play(this, rating, rng)
        byes += this.byes
    return entrants, results, byes


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5, help="rounds played before the one timed")
    parser.add_argument("--runs", type=int, default=5, help="pairings of that round timed")
    parser.add_argument("--seed", type=int, default=61)
    args = parser.parse_args()

    rows = []
    for table_size in (2, 4):
        entrants, results, byes = history(args, table_size)
        times, cpu = [], []
        for _ in range(args.runs):
            started, started_cpu = time.perf_counter(), time.process_time()
            paired = swiss_round(entrants, results, table_size=table_size, byes=byes)
            times.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
        met = meetings_so_far(results)
        repeats = sum(
            1
            for table in paired.tables
            for pair in itertools.combinations(table, 2)
            if met.get(frozenset(pair))
        )
        points = points_by_entrant(entrants, results, byes)
        spread = statistics.mean(
            max(points[e] for e in table) - min(points[e] for e in table) for table in paired.tables
        )
        rows.append(
            (table_size, times, min(cpu), repeats, spread, len(paired.tables), len(paired.byes))
        )

    print(
        f"\n{args.players} players, pairing round {args.rounds + 1} after {args.rounds} played,"
        f" {args.runs} runs, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}\n"
    )
    table_header(
        f"{'a table':>7} {'min s':>7} {'median s':>9} {'cpu s':>6} {'repeats':>8}"
        f" {'points gap':>10} {'tables':>7} {'byes':>5}"
    )
    for table_size, times, cpu_seconds, repeats, spread, tables, bye_count in rows:
        print(
            f"{table_size:>7} {min(times):>7.3f} {statistics.median(times):>9.3f}"
            f" {cpu_seconds:>6.3f} {repeats:>8}"
            f" {spread:>10.2f} {tables:>7} {bye_count:>5}"
        )
    print()
    for table_size, times, _, repeats, *_ in rows:
        what = f"{table_size} a table"
        best = min(times)
        print(goal(f"{what}: pairing in {best:.3f} s (target < {TARGET_SECONDS:g} s)", best < 1))
        print(goal(f"{what}: repeat meetings {repeats} (target: none)", repeats == 0))


if __name__ == "__main__":
    main()
