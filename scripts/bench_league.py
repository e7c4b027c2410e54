"""League benchmark: a league of 200 players rolled over to its next season on PostgreSQL
(`events.leagues.season_rollover`): its time, and the divisions it formed.

    python scripts/bench_league.py                  # or: make bench-league
    python scripts/bench_league.py --players 40 --size 4

Creates (if needed) and migrates a database of its own (`azul_bench_league`, or
BENCH_LEAGUE_DATABASE_URL), empties it, and builds a league of `--players` members (bulk
inserts, ratings drawn around 1500) whose first season is started by the service
(`season_start`: its divisions created and seated as round robins, every game started). Every
division then ends at once, its results written on its games' seats (no moves:
`tests.support.leagues.finish_division`) in an order the ratings make with some noise; then
`--leavers` members leave the league and `--newcomers` join it, and the season is rolled over:
closed, and the next one formed from the final standings and started, games and all, in one
transaction.

Prints the time of the first season's start and of the rollover, and the divisions formed: how
many, their sizes, how many players went up and down, where the newcomers were placed, and
whether every member was placed once and every leaver left out. Goal: the rollover within the
minute of the sweep that runs it (`events.sweeps`), with divisions of 4 to 8 as even as the
numbers allow.
"""

from __future__ import annotations

import argparse
import os
import random
import time
from collections import Counter

from harness.report import goal, table_header
from harness.seeds import bulk_users, empty_tables
from harness.stack import base_env, django_setup, prepare

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_bench_league"
TARGET_SECONDS = 60.0


def sizes_text(lengths: list[int]) -> str:
    """`30 of 6, 4 of 5`: how many divisions of each size, the largest first."""
    counts = Counter(lengths)
    return ", ".join(f"{counts[n]} of {n}" for n in sorted(counts, reverse=True))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--size", type=int, default=6, help="a division's size, 4 to 8")
    parser.add_argument("--movers", type=int, default=1, help="up and down at each boundary")
    parser.add_argument("--table-size", type=int, default=2, choices=(2, 3, 4))
    parser.add_argument("--leavers", type=int, default=10)
    parser.add_argument("--newcomers", type=int, default=10)
    parser.add_argument("--seed", type=int, default=61)
    args = parser.parse_args()

    database_url = os.environ.get("BENCH_LEAGUE_DATABASE_URL", DEFAULT_DB)
    # Tasks the services send on commit (the players told) go to an in-memory broker: no
    # worker runs them, the rollover's own cost is what is measured.
    env = base_env(database_url, drop=("REDIS_URL",), CELERY_BROKER_URL="memory://")
    prepare(env)
    django_setup(env)

    from events import leagues
    from events.models import Entry, EventTable, League, LeagueMember, Season
    from ratings.models import Rating
    from tests.support.leagues import finish_division

    rng = random.Random(args.seed)
    empty_tables()
    League.objects.all().delete()
    user_ids = bulk_users(args.players + args.newcomers, prefix="league")
    rating = {u: rng.gauss(1500, 250) for u in user_ids}
    Rating.objects.bulk_create([Rating(user_id=u, rating=r) for u, r in rating.items()])
    league = League.objects.create(
        name="Bench league",
        slug="bench",
        table_size=args.table_size,
        division_size=args.size,
        movers=args.movers,
    )
    members, newcomers = user_ids[: args.players], user_ids[args.players :]
    LeagueMember.objects.bulk_create([LeagueMember(league=league, user_id=u) for u in members])

    started = time.perf_counter()
    first = leagues.season_start(league=league)
    start_seconds = time.perf_counter() - started
    level_before = dict(
        Entry.objects.filter(event__season=first).values_list("user_id", "event__level")
    )
    for division in leagues.divisions_of(first):
        players = list(Entry.objects.filter(event=division).values_list("user_id", flat=True))
        order = sorted(players, key=lambda u: -(rating[u] + rng.gauss(0, 150)))
        finish_division(division, order)
    leavers = rng.sample(members, min(args.leavers, len(members)))
    LeagueMember.objects.filter(league=league, user_id__in=leavers).delete()
    LeagueMember.objects.bulk_create([LeagueMember(league=league, user_id=u) for u in newcomers])

    started, started_cpu = time.perf_counter(), time.process_time()
    nxt = leagues.season_rollover(season_id=first.pk)
    seconds = time.perf_counter() - started
    cpu = time.process_time() - started_cpu
    again = leagues.season_rollover(season_id=first.pk)

    assert nxt is not None, "the season did not roll over"
    divisions = list(leagues.divisions_of(nxt))
    placed = list(Entry.objects.filter(event__season=nxt).values_list("user_id", "event__level"))
    level_after = dict(placed)
    lengths = [Entry.objects.filter(event=d).count() for d in divisions]
    stayed = set(members) - set(leavers)
    up = sum(1 for u in stayed if level_after[u] < level_before[u])
    down = sum(1 for u in stayed if level_after[u] > level_before[u])
    newcomer_levels = sorted({level_after[u] for u in newcomers})
    games = EventTable.objects.filter(event__season=nxt).count()
    placed_once = len(placed) == len(level_after) and set(level_after) == stayed | set(newcomers)
    even = bool(lengths) and max(lengths) - min(lengths) <= 1 and min(lengths) >= 4
    seasons = Season.objects.filter(league=league).count()

    print(
        f"\nA league of {args.players} players (divisions of about {args.size}, {args.movers}"
        f" up and down, {args.table_size} a table), {len(leavers)} leaving and"
        f" {len(newcomers)} joining; {os.cpu_count()} CPUs, load average"
        f" {os.getloadavg()[0]:.1f}\n"
    )
    table_header(f"{'step':<22} {'seconds':>8} {'cpu s':>7} {'divisions':>9} {'games':>6}")
    first_games = EventTable.objects.filter(event__season=first).count()
    first_count = leagues.divisions_of(first).count()
    row = f"{start_seconds:>8.2f} {'':>7} {first_count:>9} {first_games:>6}"
    print(f"{'first season started':<22} {row}")
    print(f"{'season rolled over':<22} {seconds:>8.2f} {cpu:>7.2f} {len(divisions):>9} {games:>6}")
    print()
    print(f"Divisions formed: {len(divisions)} ({sizes_text(lengths)})")
    print(
        f"Players placed: {len(placed)}; changed division: {up} up, {down} down"
        " (promoted and relegated, and the leavers' places filled from below)"
    )
    print(f"Newcomers placed in division(s): {', '.join(str(n) for n in newcomer_levels)}")
    print(
        f"Rolled over again: {'the same season' if again == nxt else 'ANOTHER'}; seasons: {seasons}"
    )
    print()
    print(
        goal(f"rollover: {seconds:.2f} s (target < {TARGET_SECONDS:g} s)", seconds < TARGET_SECONDS)
    )
    print(goal(f"divisions: {sizes_text(lengths)} (target: 4 to 8, one apart at most)", even))
    print(goal("every member placed once, no leaver (target: so)", placed_once))
    print(goal(f"a second rollover: {seasons} seasons (target: 2)", seasons == 2 and again == nxt))


if __name__ == "__main__":
    main()
