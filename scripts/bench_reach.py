"""How long a move takes to reach the other player's device and webhook (issue #35), through the
real stack: the site under gunicorn, one Celery worker on a Redis of its own, PostgreSQL, and
`harness.sinks.ReachSink` as the push service (it checks VAPID and decrypts as a browser does) and
the webhook receiver.

    python scripts/bench_reach.py            # or: make bench-reach
    python scripts/bench_reach.py --moves 60

Two players with a device and a signed JSON webhook each play one game through the API. After
each move that hands the turn to the other player, the clock runs from the move's request to the
"your turn" push notice decrypted at the endpoint, and to the webhook's body at the sink; the
next move waits for both. The "your turn" grace period is off (NOTIFY_GRACE_SECONDS=0): with it,
a notice waits the grace period (two minutes by default) so that players playing live are not
notified of every move, and this measures what comes after it. Prints p50, p95 and the worst per
channel.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time

from harness.clients import Http, free_port
from harness.players import api_token, bench_user, devices_and_webhooks
from harness.report import say
from harness.sinks import ReachSink, Smtp
from harness.stack import (
    EVERY_QUEUE,
    Stack,
    django_setup,
    outbound_env,
    recreate_database,
    stack_env,
    vapid_env,
)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_bench_reach"
WAIT = 30.0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--moves", type=int, default=40, help="measured moves (%(default)s)")
    args = parser.parse_args()
    database_url = os.environ.get("BENCH_REACH_DATABASE_URL", DEFAULT_DB)
    smtp = Smtp()
    smtp_port, redis_port, site_port = (free_port() for _ in range(3))
    broker, cache = f"redis://127.0.0.1:{redis_port}/0", f"redis://127.0.0.1:{redis_port}/1"
    env = stack_env(database_url, broker, cache, smtp_port)
    env.update(outbound_env(), NOTIFY_GRACE_SECONDS="0")
    reach = ReachSink()
    stack = Stack(env, prefix="bench_reach_")
    try:
        recreate_database(database_url, env=env)  # migrated: a copy of the template
        env.update(vapid_env(env))
        reach.vapid_public_key = env["WEBPUSH_VAPID_PUBLIC_KEY"]
        reach.start()
        smtp.serve(smtp_port)
        django_setup(env, LOG_LEVEL="WARNING")

        stack.redis(redis_port)
        stack.site(site_port, wait=False)  # both start at once, then are waited for
        stack.worker("worker", *EVERY_QUEUE, wait=False)
        stack.wait_healthy("web", site_port)
        stack.wait_for_line("worker", "ready.")
        players = {}
        for name in ("reach_a", "reach_b"):
            user = bench_user(name)
            devices_and_webhooks(user, reach)
            players[name] = Http(site_port, api_token(user))
        push_ms, hook_ms = measure(players, reach, args.moves)
    finally:
        reach.stop()
        stack.stop()
        smtp.stop()
        from django.db import connections

        connections.close_all()
        recreate_database(database_url, drop_only=True)
    for channel, figures in (("push notice", push_ms), ("webhook call", hook_ms)):
        figures.sort()
        p95 = figures[max(0, round(0.95 * len(figures)) - 1)]
        say(
            f"move -> {channel:<12} n={len(figures)}  p50 {statistics.median(figures):7.0f} ms"
            f"  p95 {p95:7.0f} ms  worst {figures[-1]:7.0f} ms"
        )
    return 0


def measure(
    players: dict[str, Http], reach: ReachSink, moves: int
) -> tuple[list[float], list[float]]:
    a, b = players
    rng = random.Random(35)
    push_ms: list[float] = []
    hook_ms: list[float] = []
    game_id = None
    while len(push_ms) < moves:
        if game_id is None:
            created = players[a].request(
                "POST", "/api/games/", {"players": 2, "seats": [{"kind": "invite", "username": b}]}
            )
            game_id = created.data["id"]
            players[b].request("POST", f"/api/invitations/{game_id}/accept/")
        views = {n: players[n].request("GET", f"/api/games/{game_id}/").data for n in players}
        mover = next((n for n, view in views.items() if view["viewer_can_move"]), None)
        if mover is None:  # the game ended: another one
            game_id = None
            continue
        other = b if mover == a else a
        before_push = len(arrivals(reach, "push", other))
        before_hook = len(arrivals(reach, "hook", other))
        view = views[mover]
        moved_at = time.time()  # the move's own time is counted in
        answer = players[mover].request(
            "POST",
            f"/api/games/{game_id}/moves/",
            {"move": rng.choice(view["legal_moves"]), "expected_ply": view["ply"]},
        )
        assert answer.status == 201, answer.body
        if not players[other].request("GET", f"/api/games/{game_id}/").data["viewer_can_move"]:
            continue  # the turn stayed (a new round) or the game ended: no "your turn"
        push_at = wait_for(reach, "push", other, before_push)
        hook_at = wait_for(reach, "hook", other, before_hook)
        push_ms.append((push_at - moved_at) * 1000)
        hook_ms.append((hook_at - moved_at) * 1000)
    return push_ms, hook_ms


def arrivals(reach: ReachSink, channel: str, player: str) -> list[float]:
    return [
        at
        for at, name, payload in reach.arrived(channel)
        if name == player and payload.get("kind") == "your_turn"
    ]


def wait_for(reach: ReachSink, channel: str, player: str, before: int) -> float:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        seen = arrivals(reach, channel, player)
        if len(seen) > before:
            return seen[before]
        time.sleep(0.005)
    raise SystemExit(
        f"no {channel} for {player} within {WAIT:g} s; refusals: {reach.refusals[-3:]}"
    )


if __name__ == "__main__":
    sys.exit(main())
