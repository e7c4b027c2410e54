"""The soak (issue #31): players play through the API on the real stack while its parts are killed
and restarted in turn; at the end, nothing may be lost.

    python scripts/soak.py                                  # or: make soak  (ten minutes)
    python scripts/soak.py --seconds 75 --fault-every 12    # each fault once, on a beat
    python scripts/soak.py --fault-gap 2                    # CI's (tests/ops/test_soak.py)

Starts, on this machine: the site (gunicorn with gunicorn.conf.py), one Celery worker serving
every queue, the sweeps (`manage.py sweep --every 5`, as `make run` does with 60), a Redis of its
own on a free port (the broker on db 0, the cache on db 1; stopped and hung below, so never the
Redis other work uses), an SMTP sink in this process (aiosmtpd) and PostgreSQL's database
`azul_soak` (or SOAK_DATABASE_URL), dropped and created first (a copy of the migrated template:
`harness.stack.template_database`) and dropped at the end.

Six players, each with an API token, play through the API (README, "Playing from a script"): six
two-player games between them (each player in two, by invitation, accepted through the API) and
one each against a quick computer level, each game followed by a new one when it ends. Each
player records every move it sent (game, ply, seat, move, answer) and every 5xx or unanswered
request with its time.

Meanwhile, every `--fault-every` seconds, the next of these faults (or, with `--fault-gap`, each
once, the next that many seconds after the previous one's window closed, and the play over that
long after the last window, whatever `--seconds` says): the worker killed (SIGKILL to
its process group) and started again; Redis stopped (SIGTERM: its queue is lost, it keeps nothing
on disk) and started again; Redis hung (SIGSTOP, then SIGCONT); one gunicorn worker killed
(SIGKILL; its master starts another); every connection to the soak's database terminated
(`pg_terminate_backend`, as a failover does); the sweep process killed and started again.

After `--seconds`, the players stop, the faults stop, and the stack is given up to `--settle`
seconds to catch up (the computers' turns, the mail). Then it checks, and prints:

- every move answered 2xx is in its game's log, as sent (game, ply, seat, move);
- every move in the log by a person's seat is one a player sent (answered or not: a request
  whose answer was lost may have been written); the computers' are theirs;
- the logs agree with the engine (`manage.py check_game_logs`, run in this process, passes);
- no game waits on the computer;
- each email went exactly once: the messages at the sink, per recipient, kind and game, are as
  many as the outbox's rows marked sent;
- so did each push notice and webhook call: every player has a device (a push endpoint served
  here that checks VAPID and decrypts as a browser does) and a signed JSON webhook, both at
  `harness.sinks.ReachSink`, and what arrived there, per player, kind and game, is what the
  deliveries marked sent say;
- no 5xx (nor a request left unanswered) outside the faults' windows: from a fault until
  harness.faults.WINDOW_AFTER seconds after its part is back.

The notifications' counts (emails, push notices, webhook calls) are taken in one place:
`harness.checks.count_deliveries`, and judged by `Deliveries`' methods; the faults' schedule is
`harness.faults.rotation`, the players `harness.players.Player`.

and the figures: moves, games, faults by kind, 5xx in and out of the windows, emails, and the
computer's worst answer (the time from the log's entry before its move to its move). Exits 1 on
any loss. Every process it starts is stopped at the end, on Ctrl-C and on failure too.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import signal
import sys
import threading
import time

from harness.checks import (
    check_game_logs,
    check_moves,
    computer_worst_answer,
    count_deliveries,
    settle,
)
from harness.clients import free_port
from harness.faults import Injector, rotation
from harness.players import Player, Record, api_token, bench_user, devices_and_webhooks
from harness.report import say
from harness.sinks import ReachSink, Smtp
from harness.stack import (
    EVERY_QUEUE,
    Stack,
    django_setup,
    outbound_env,
    recreate_database,
    run,
    stack_env,
    stop_on_signals,
    vapid_env,
)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_soak"
PLAYERS = 6
# Who invites whom: each player in two games against other players at a time.
HUMAN_PAIRS = ((0, 1), (2, 3), (4, 5), (1, 2), (3, 4), (5, 0))
QUICK_LEVELS = ("greedy", "random")  # each player's game against the computer: one of these
SWEEP_EVERY = 5


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600, help="of play (%(default)s)")
    parser.add_argument(
        "--fault-every", type=float, default=15, help="seconds between faults (%(default)s)"
    )
    parser.add_argument(
        "--fault-gap",
        type=float,
        default=None,
        help="each fault once, this many seconds after the previous one's window; the play ends"
        " as long after the last (instead of --seconds and --fault-every)",
    )
    parser.add_argument(
        "--settle", type=float, default=90, help="seconds to catch up, at most (%(default)s)"
    )
    args = parser.parse_args()
    started = time.monotonic()
    database_url = os.environ.get("SOAK_DATABASE_URL", DEFAULT_DB)
    stop_on_signals()

    smtp, reach = Smtp(), ReachSink()
    smtp_port, redis_port, site_port = (free_port() for _ in range(3))
    broker, cache = f"redis://127.0.0.1:{redis_port}/0", f"redis://127.0.0.1:{redis_port}/1"
    env = stack_env(database_url, broker, cache, smtp_port)
    env.update(
        outbound_env(),
        # A "your turn" email after a short grace, so that some go out between moves.
        NOTIFY_GRACE_SECONDS="3",
        # Games come and go faster than a person's: the hourly limits on creating are not
        # what is under test here.
        THROTTLE_GAME_CREATE="10000/hour",
        THROTTLE_GAME_INVITE="10000/hour",
    )
    stack = Stack(env, prefix="soak_")
    stop = threading.Event()
    faults = rotation(
        stack, database_url, redis_port, SWEEP_EVERY, args.fault_every, args.fault_gap
    )

    def soak() -> bool:
        say(
            f"Preparing {database_url} (dropped, created as a copy of the migrated template);"
            f" logs: {stack.logs}"
        )
        recreate_database(database_url, env=env)
        env.update(vapid_env(env))
        reach.vapid_public_key = env["WEBPUSH_VAPID_PUBLIC_KEY"]
        reach.start()
        django_setup(env, LOG_LEVEL="WARNING")

        smtp.serve(smtp_port)
        say("Starting Redis, the site, the worker (every queue) and the sweeps ...")
        stack.redis(redis_port)
        # Started together, each importing the site on a core of its own, then waited for.
        stack.site(site_port, wait=False)
        stack.worker("worker", *EVERY_QUEUE, wait=False)
        stack.sweeps(SWEEP_EVERY)
        stack.wait_healthy("web", site_port)
        stack.wait_for_line("worker", "ready.")

        record, players = Record(), []
        for index in range(PLAYERS):
            user = bench_user(f"soak{index}")
            players.append(Player(user.username, api_token(user, "soak"), site_port, record, stop))
            devices_and_webhooks(user, reach)
        for creator, invitee in HUMAN_PAIRS:
            players[creator].opponents.append(players[invitee].name)
        for index, player in enumerate(players):
            player.level = QUICK_LEVELS[index % len(QUICK_LEVELS)]

        if args.fault_gap is None:
            schedule = f"for {args.seconds:g} s with {PLAYERS} players, a fault every"
            schedule += f" {args.fault_every:g} s"
        else:
            schedule = f"with {PLAYERS} players until each fault was injected once,"
            schedule += f" {args.fault_gap:g} s after the previous one's window"
        say(f"Playing {schedule} ...")
        play_started = time.time()
        for player in players:
            player.thread.start()
        faults.start()
        deadline = time.monotonic() + args.seconds
        once = args.fault_gap is not None
        while faults.thread.is_alive() if once else time.monotonic() < deadline:
            if once:
                faults.thread.join(timeout=30)
            else:
                time.sleep(min(30.0, max(0.1, deadline - time.monotonic())))
            with record.lock:
                moves, errors = len(record.attempts), len(record.errors)
            say(f"  {time.strftime('%H:%M:%S')} moves sent {moves}, errors {errors}")
        faults.stop.set()
        faults.thread.join()
        stop.set()
        for player in players:
            player.thread.join(timeout=120)
        played = time.time() - play_started

        say(f"Settling (up to {args.settle:g} s) ...")
        done, state, took = settle(smtp, reach, args.settle)
        faults.done.set()
        faults.supervisor.join()
        say(f"  after {took:.0f} s: {state}")
        return report(record, faults, smtp, reach, env, played, done, state)

    def cleanup() -> None:
        stop.set()
        faults.finish()
        with contextlib.suppress(Exception):
            os.kill(stack.pid("redis"), signal.SIGCONT)  # if it was left hung
        stack.stop()
        smtp.stop()
        reach.stop()
        with contextlib.suppress(Exception):
            from django.db import connections

            connections.close_all()
        try:
            recreate_database(database_url, drop_only=True)
        except Exception as exc:  # noqa: BLE001 (a note, not a reason to fail the cleanup)
            say(f"  note: {database_url} not dropped: {exc}")

    return run(soak, cleanup, stack.logs, started)


def report(
    record: Record,
    faults: Injector,
    smtp: Smtp,
    reach: ReachSink,
    env: dict[str, str],
    played: float,
    settled_ok: bool,
    state: str,
) -> bool:
    from django.db import close_old_connections

    close_old_connections()
    losses = [] if settled_ok else [f"the stack did not settle: {state}"]
    problems, figures = check_moves(record)
    losses += problems
    losses += [f"a player's round failed: {failure}" for failure in record.failures[:10]]
    logs, wrong = check_game_logs(env)
    losses += wrong
    lost_or_twice, emails, channels = count_deliveries(smtp, reach).judge()
    losses += lost_or_twice
    losses += [f"refused at the sinks: {why}" for why in reach.refusals[:10]]

    worst, where = computer_worst_answer()
    say("\nThe figures:")
    say(f"  played {played:.0f} s; games created {record.games_created}")
    for name, value in figures.items():
        say(f"  {name:<30} {value}")
    losses += faults.judge(record.errors)
    say(f"  emails at the sink             {emails}")
    say(f"  push and webhooks              {channels}")
    say(f"  the computer's worst answer    {worst:.2f} s ({where or 'no computer move'})")
    say(f"  when settled                   {state}")
    say(f"  check_game_logs                exit {logs}")
    if losses:
        say(f"\nLOSSES ({len(losses)}):")
        for loss in losses[:50]:
            say(f"  {loss}")
        return False
    say(
        "\nNothing lost: every accepted move is in the logs, no move appears that no player made,"
        " the logs agree with the engine, no game waits on the computer, each email, push notice"
        " and webhook call went once,"
        " and every 5xx came inside a fault's window."
    )
    return True


if __name__ == "__main__":
    sys.exit(main())
