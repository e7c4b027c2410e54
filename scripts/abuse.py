"""The review's floods against the real stack (issue #28): what an innocent player sees while a
hostile account floods the site through its API, as fast as the site lets it.

    python scripts/abuse.py            # or: make abuse  (a few minutes)
    python scripts/abuse.py --quick    # smaller floods, shorter phases
    python scripts/abuse.py --quick --seconds 4 --quiet-seconds 3 --sweep-every 3 --rounds 1
                                       # CI's (tests/ops/test_readme_commands.py)

Starts the stack as deployed (docker-compose.yml, the Makefile's `worker-*` targets) on this
machine: the site (gunicorn's synchronous workers, gunicorn.conf.py), the live process (gunicorn
with one uvicorn worker), one Celery worker per queue (moves, slow_moves, master_moves, mail,
sweeps, analysis, with their commands), PostgreSQL (its own database, `azul_abuse` or
ABUSE_DATABASE_URL, dropped and made again first: a copy of the migrated template, seconds
sooner than a `manage.py flush`), Redis (the broker on db 6, the cache on db 7, or
ABUSE_BROKER_URL / ABUSE_REDIS_URL, both emptied at the start and the end) and an SMTP sink
(aiosmtpd, in this process) that every email goes to. DEBUG off, the site's own limits and
throttles (none raised); invitations' grace period (NOTIFY_INVITATION_GRACE_SECONDS) 0. No beat:
this script sends the minute's sweeps itself, as beat does (its schedule's tasks and options),
every `--sweep-every` seconds.

The hostile account, through the HTTP API with its own token (and a session for the board's live
endpoint), replays the review's floods at once, each in a thread of its own: 120 games against
three `strong` computers, 20 against `master`, 30 create-play-resign-analyse loops, 20 lobby
games, 30 invitations to the victim created and cancelled, 6 walks through `/api/games/`, 2,000
waits on the live endpoint; and it plays its turn in every game it got, to keep the computers
busy. A 429 of the per-second API throttle is waited out (`Retry-After`) and tried again; any
other refusal (429 of an hourly throttle or a cap, 409 of a limit) is counted and the flood goes
on to its next item.

Meanwhile a second, innocent player (the victim), first on a quiet site and then under the
floods, measures:

- the computer's reply: the time from the victim's move answered (POST .../moves/) to the
  computer's answering move in the game (the game's ply in the database, polled every 10 ms), in
  a game against a quick level (`--level`, greedy) and one against `strong` (1 s of thinking);
- an invitation's email: the time from the email being due (its Notification's `send_after`) to
  its arrival at the SMTP sink, for an invitation the victim sends to a third player;
- the sweeps: the time from a sweep being sent to its start and its end on the sweeps worker
  (the worker's log: "succeeded in N s", and its time);
- its board's wait for a change (the live endpoint, `?wait=3` on a game that stands still): the
  time until it is answered 204, as the wait's 3 s should be; anything else is shown.

Before the floods, one of the hostile's waits is sent with its session in the database only (not
in the cache, as after a Redis restart); then its board page is loaded from the site, as a
browser does before it waits, which puts the session in the cache.

Prints each figure as it comes, then the floods' tally (accepted and refused, by kind and
reason), the limits that must hold (what the hostile account had at once: from the database, and
for the live waits from their answers) and a table of the figures against their targets (under 2
s for the quick level's reply, the email and the sweeps; under 2 s beyond its 1 s of thinking
for `strong`'s reply; under 5 s for the board's 3-s wait). Exits 1 when a target is missed, a
limit did not hold, or a request answered 5xx. Every process it starts is stopped at the end, on
Ctrl-C and on failure too. The machine's other work slows it all: the figures are one run's.

The floods are `harness.floods.Hostile`, the victim `harness.players.Victim`, the limits watched
by `harness.checks.Watch`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter

from harness.checks import Watch, limits_held
from harness.clients import free_port, plain_get
from harness.floods import LIVE_FLOOD_WAIT, Hostile
from harness.players import LIVE_WAIT, Figures, Victim, api_token, bench_session, bench_user
from harness.players import samples as samples_of
from harness.report import percentile, say, targets_table
from harness.sinks import Smtp
from harness.stack import (
    WORKERS,
    Stack,
    Sweeper,
    django_setup,
    flush_redis,
    most_files,
    prepare,
    run,
    stack_env,
    stop_on_signals,
)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_abuse"
DEFAULT_BROKER = "redis://127.0.0.1:6379/6"
DEFAULT_CACHE = "redis://127.0.0.1:6379/7"
TARGET_SECONDS = 2.0
STRONG_THINKING = 1.0  # `strong`'s budget a move: its reply's target is TARGET_SECONDS beyond


def report(
    args: argparse.Namespace,
    quiet: Figures,
    flood: Figures,
    hostile: Hostile,
    watch: Watch,
    smtp: Smtp,
    victim_email: str,
) -> bool:
    from notifications.models import Notification

    say("\nThe hostile account's floods (accepted / refused, and why; a 429 of the per-second")
    say("API throttle is waited out and tried again: counted apart as 'waited'):")
    tally = hostile.tally
    tally.table()
    answers = ", ".join(f"{n} x {what}" for what, n in sorted(hostile.live_answers.items()))
    say(f"\nThe hostile's live waits, by answer and time: {answers or 'none'}.")
    held = limits_held(watch, hostile.live_held_at_once, LIVE_FLOOD_WAIT)
    rows_by_status = Counter(
        Notification.objects.filter(
            recipient__username=hostile.victim, kind=Notification.Kind.INVITATION
        ).values_list("status", flat=True)
    )
    say(
        f"Invitation emails to the victim from the hostile's invitations: rows"
        f" {dict(rows_by_status) or 'none'}; emails of any kind to the victim at the sink:"
        f" {len(smtp.arrived(victim_email))}."
    )
    if tally.faults:
        say("\nFaults (5xx or no answer), each with how often:")
        for fault, times in Counter(tally.faults).most_common(20):
            say(f"  {times} x {fault}")

    level, strong = args.level, STRONG_THINKING + TARGET_SECONDS
    rows: list[tuple[str, float, float, float | None]] = []  # name, quiet, flood, target
    for name, get, target in (
        (f"computer's reply ({level}) p50", lambda f: f.replies.get(level, []), TARGET_SECONDS),
        (f"computer's reply ({level}) max", lambda f: f.replies.get(level, []), TARGET_SECONDS),
        ("computer's reply (strong) p50", lambda f: f.replies.get("strong", []), strong),
        ("computer's reply (strong) max", lambda f: f.replies.get("strong", []), strong),
        ("invitation's email, due -> sink, max", lambda f: f.emails, TARGET_SECONDS),
        ("sweep sent -> started, max", lambda f: f.sweep_starts, TARGET_SECONDS),
        ("sweep sent -> finished, max", lambda f: f.sweep_ends, TARGET_SECONDS),
        (f"board's live wait ({LIVE_WAIT:g} s), max", lambda f: f.live, LIVE_WAIT + 2),
    ):
        q = 0.5 if name.endswith("p50") else 1.0
        rows.append((name, percentile(get(quiet), q), percentile(get(flood), q), target))
    say(f"\nWhat the innocent player saw ({samples_of(quiet, flood, level)}):")
    passed = targets_table(rows, ("quiet", "flood"))
    for phase, figures in (("quiet", quiet), ("flood", flood)):
        for what, times in figures.live_bad.items():
            say(f"  ('none' above: {times} of the victim's live waits ({phase}): {what})")
    say(
        f"\n{'All targets met' if passed else 'A target was missed'}; limits"
        f" {'held' if held else 'NOT held'}; {len(tally.faults)} faults."
        f" ({os.cpu_count()} CPUs, shared with whatever else runs here.)"
    )
    return passed and held and not tally.faults


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller floods, shorter phases")
    parser.add_argument("--level", default="greedy", help="the quick computer level (%(default)s)")
    parser.add_argument("--seconds", type=float, help="of flood (default 150; --quick 50)")
    parser.add_argument("--quiet-seconds", type=float, help="before (default 20; --quick 10)")
    parser.add_argument("--sweep-every", type=float, default=10.0, help="seconds (%(default)s)")
    parser.add_argument(
        "--rounds",
        type=int,
        default=4,
        help="the victim's rounds of samples under the floods, at least (the quiet phase: half);"
        " a round is about 10 s (%(default)s)",
    )
    args = parser.parse_args()
    scale = 3 if args.quick else 1
    args.seconds = args.seconds or (50.0 if args.quick else 150.0)
    args.quiet_seconds = args.quiet_seconds or (10.0 if args.quick else 20.0)
    args.strong_games = 120 // scale
    args.master_games = 20 // scale
    args.analyse_loops = 30 // scale
    args.lobby_games = 20 // scale
    args.invitations = 30 // scale
    args.list_loops = 6 // scale
    args.live_waits = 2000 // scale
    args.emails = 2 if args.quick else 4
    args.analyse_moves = None  # the least an analysis needs (the settings', once loaded)

    started = time.monotonic()
    database_url = os.environ.get("ABUSE_DATABASE_URL", DEFAULT_DB)
    broker_url = os.environ.get("ABUSE_BROKER_URL", DEFAULT_BROKER)
    cache_url = os.environ.get("ABUSE_REDIS_URL", DEFAULT_CACHE)
    most_files()  # thousands of live waits
    stop_on_signals()  # Ctrl-C and a TERM alike stop everything started here (`cleanup` below)

    smtp = Smtp()
    smtp_port = free_port()
    env = stack_env(database_url, broker_url, cache_url, smtp_port)
    stack = Stack(env, prefix="abuse_")
    started_here: list[Hostile | Watch | Sweeper] = []  # what `cleanup` stops

    def abuse() -> bool:
        say(f"Preparing {database_url} (made again) and Redis {broker_url}, {cache_url} ...")
        flush_redis(broker_url, cache_url)
        prepare(env, recreate=True)
        django_setup(env, LOG_LEVEL="WARNING")  # this process: only what goes wrong
        from django.conf import settings

        args.analyse_moves = settings.ANALYSIS_MIN_PERSON_MOVES

        smtp.serve(smtp_port)
        site_port, live_port = free_port(), free_port()
        logs = stack.logs
        say(f"Starting the site, the live process and {len(WORKERS)} workers (logs: {logs}) ...")
        stack.site(site_port, wait=False)
        stack.live(live_port, wait=False)
        stack.workers()
        stack.wait_healthy("web", site_port)
        stack.wait_healthy("live", live_port)

        victim_user = bench_user("abuse_victim")
        hostile_user = bench_user("abuse_hostile")
        # Runs share players: one token each at a time.
        token = {u: api_token(u, "abuse") for u in (victim_user, hostile_user)}
        victim = Victim(site_port, victim_user, token[victim_user], smtp, started)
        victim.live_port, victim.session = live_port, bench_session(victim_user)
        # As a browser has it: the session read once by the site, which keeps a copy in the cache.
        plain_get(site_port, "/", {"Cookie": f"sessionid={victim.session}"})
        hostile = Hostile(args, site_port, live_port, token[hostile_user])
        hostile.session = bench_session(hostile_user)
        hostile.victim = victim_user.username
        sweeper = Sweeper(args.sweep_every)
        victim.level, victim.sweeper, victim.stack = args.level, sweeper, stack
        watch = Watch(hostile_user)
        started_here.extend((sweeper, hostile, watch))

        quiet, flood = Figures(), Figures()
        say(f"\nQuiet: the victim alone for {args.quiet_seconds:g} s")
        quiet_rounds = max(1, args.rounds // 2)
        victim.phase("quiet", quiet, seconds_=args.quiet_seconds, emails=1, rounds=quiet_rounds)

        say(f"\nFlood: the hostile account's floods, and the victim, for {args.seconds:g} s")
        watch.thread.start()
        hostile.start()
        time.sleep(2)
        victim.phase(
            "flood",
            flood,
            seconds_=args.seconds,
            emails=args.emails,
            rounds=args.rounds,
            progress=lambda: f"hostile accepted/sent: {hostile.tally.summary()}",
        )
        hostile.finish()
        watch.stop.set()
        watch.thread.join(timeout=5)
        return report(args, quiet, flood, hostile, watch, smtp, victim_user.email)

    def cleanup() -> None:
        for each in started_here:
            each.halt()
        stack.stop()
        smtp.stop()
        try:
            flush_redis(broker_url, cache_url)
        except Exception as exc:  # noqa: BLE001 (a note, not a reason to fail the cleanup)
            say(f"  note: Redis not emptied: {exc}")

    return run(abuse, cleanup, stack.logs, started)


if __name__ == "__main__":
    sys.exit(main())
