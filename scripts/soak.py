"""The soak (issue #31): players play through the API on the real stack while its parts are killed
and restarted in turn; at the end, nothing may be lost.

    python scripts/soak.py                                  # or: make soak  (ten minutes)
    python scripts/soak.py --seconds 120 --fault-every 15   # CI's (tests/ops/test_soak.py)

Starts, on this machine: the site (gunicorn with gunicorn.conf.py), one Celery worker serving
every queue, the sweeps (`manage.py sweep --every 5`, as `make run` does with 60), a Redis of its
own on a free port (the broker on db 0, the cache on db 1; stopped and hung below, so never the
Redis other work uses), an SMTP sink in this process (aiosmtpd) and PostgreSQL's database
`azul_soak` (or SOAK_DATABASE_URL), dropped, created and migrated first and dropped at the end.

Six players, each with an API token, play through the API (README, "Playing from a script"): six
two-player games between them (each player in two, by invitation, accepted through the API) and
one each against a quick computer level, each game followed by a new one when it ends. Each
player records every move it sent (game, ply, seat, move, answer) and every 5xx or unanswered
request with its time.

Meanwhile, every `--fault-every` seconds, the next of these faults: the worker killed (SIGKILL to
its process group) and started again; Redis stopped (SIGTERM: its queue is lost, it keeps nothing
on disk) and started again; Redis hung (SIGSTOP, then SIGCONT); one gunicorn worker killed
(SIGKILL; its master starts another); every connection to the soak's database terminated
(`pg_terminate_backend`, as a failover does); the sweep process killed and started again.

After `--seconds`, the players stop, the faults stop, and the stack is given up to `--settle`
seconds to catch up (the computers' turns, the mail). Then it checks, and prints:

- every move answered 2xx is in its game's log, as sent (game, ply, seat, move);
- every move in the log by a person's seat is one a player sent (answered or not: a request
  whose answer was lost may have been written); the computers' are theirs;
- the logs agree with the engine (`manage.py check_game_logs` exits 0);
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
`count_deliveries`, and judged by `Deliveries`' methods.

and the figures: moves, games, faults by kind, 5xx in and out of the windows, emails, and the
computer's worst answer (the time from the log's entry before its move to its move). Exits 1 on
any loss. Every process it starts is stopped at the end, on Ctrl-C and on failure too.
"""

from __future__ import annotations

import argparse
import contextlib
import email
import http.client
import os
import random
import re
import signal
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from harness.clients import Http, Reply, free_port
from harness.faults import (
    Injector,
    cut_connections,
    hang,
    kill_and_restart,
    kill_one_child,
    stop_and_restart,
)
from harness.players import api_token, bench_user, devices_and_webhooks
from harness.report import say
from harness.sinks import ReachSink, Smtp
from harness.stack import (
    EVERY_QUEUE,
    Stack,
    django_setup,
    manage,
    outbound_env,
    recreate_database,
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
# The faults, in their order, and how long each part stays down.
FAULTS = (
    "worker",
    "redis stopped",
    "gunicorn worker",
    "database connections",
    "redis hung",
    "sweep",
)
DOWN_SECONDS = {"worker": 2.0, "redis stopped": 3.0, "redis hung": 5.0, "sweep": 1.0}
GAME_ID = re.compile(r"/games/([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})/")


@dataclass(frozen=True)
class Attempt:
    game: str
    ply: int
    seat: int
    move: str
    at: float
    status: int  # 0: no answer


@dataclass
class Record:
    """What the players saw, shared by their threads."""

    attempts: list[Attempt] = field(default_factory=list)
    errors: list[tuple[float, str]] = field(default_factory=list)  # 5xx or no answer
    games_created: int = 0
    # A player's round that failed in this script (an answer of a shape it did not expect).
    failures: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def attempt(self, attempt: Attempt) -> None:
        with self.lock:
            self.attempts.append(attempt)

    def error(self, what: str) -> None:
        with self.lock:
            self.errors.append((time.time(), what))


# -- the players --------------------------------------------------------------------------------


class Player:
    """One account playing every game it is in through the API, in a thread of its own."""

    def __init__(self, name: str, token: str, port: int, record: Record, stop: threading.Event):
        self.name, self.record, self.stop = name, record, stop
        self.http = Http(port, token)
        self.rng = random.Random(name)
        self.opponents: list[str] = []  # the players this one invites
        self.level = ""  # the computer level it plays against
        self.thread = threading.Thread(target=self.run, name=name, daemon=True)

    def call(self, method: str, path: str, body: Any = None) -> Reply | None:
        """The answer, or None when there was none (counted as an error); the API's per-second
        throttle is waited out."""
        while True:
            try:
                # Sent once: a POST whose answer is lost may have been written, and is recorded so.
                reply = self.http.request(method, path, body, attempts=1)
            except (OSError, http.client.HTTPException) as exc:
                self.record.error(f"{method} {path}: no answer ({type(exc).__name__})")
                return None
            if reply.status == 429 and not self.stop.is_set():
                self.stop.wait(min(5.0, float(reply.headers.get("retry-after", 1))))
                continue
            if reply.status >= 500:
                self.record.error(f"{method} {path}: {reply.status} {reply.body[:200]!r}")
            return reply

    def run(self) -> None:
        while not self.stop.is_set():
            try:
                self.round()
            except Exception as exc:  # noqa: BLE001 (a loss in the report; the player goes on)
                with self.record.lock:
                    self.record.failures.append(f"{self.name}: {exc!r}")
            self.stop.wait(0.2)

    def round(self) -> None:
        invitations = self.call("GET", "/api/invitations/")
        if invitations is not None and invitations.status == 200:
            for game in invitations.data.get("results", []):
                self.call("POST", f"/api/invitations/{game['id']}/accept/")
        listed = self.call("GET", "/api/games/?page_size=30")
        if listed is None or listed.status != 200:
            return
        games = listed.data if isinstance(listed.data, list) else listed.data.get("results", [])
        going = [g for g in games if g["status"] in ("open", "active")]
        self.refill(going)
        for game in going:
            if self.stop.is_set():
                return
            if game["status"] == "active" and game.get("is_my_turn"):
                self.play(str(game["id"]))

    def refill(self, going: list[dict[str, Any]]) -> None:
        """A new game for each opponent (and the computer) this player has none with."""
        mine = [g for g in going if g["created_by"] == self.name]
        for opponent in self.opponents:
            if not any(opponent in {p["username"] for p in g["players"]} for g in mine):
                self.create([{"kind": "invite", "username": opponent}])
        if not any(any(p["bot_level"] for p in g["players"]) for g in mine):
            self.create([{"kind": "computer", "level": self.level}])

    def create(self, seats: list[dict[str, str]]) -> None:
        reply = self.call("POST", "/api/games/", {"players": 2, "seats": seats})
        if reply is not None and reply.status == 201:
            with self.record.lock:
                self.record.games_created += 1

    def play(self, game_id: str) -> None:
        detail = self.call("GET", f"/api/games/{game_id}/")
        if detail is None or detail.status != 200:
            return
        view = detail.data
        if not view["viewer_can_move"] or not view["legal_moves"]:
            return
        move = self.rng.choice(view["legal_moves"])
        ply = view["ply"]
        reply = self.call(
            "POST", f"/api/games/{game_id}/moves/", {"move": move, "expected_ply": ply}
        )
        status = reply.status if reply is not None else 0
        self.record.attempt(Attempt(game_id, ply, view["viewer_seat"], move, time.time(), status))


# -- the stack and its faults --------------------------------------------------------------------


def start_stack(stack: Stack, redis_port: int, site_port: int) -> None:
    stack.redis(redis_port)
    stack.site(site_port)
    stack.worker("worker", *EVERY_QUEUE)
    stack.sweeps(SWEEP_EVERY)


def injector(stack: Stack, database_url: str, redis_port: int, every: float) -> Injector:
    """FAULTS in turn, every `every` seconds; the worker and the sweeps started again whenever
    they end by themselves."""

    def worker() -> None:
        stack.worker("worker", *EVERY_QUEUE)

    def sweeps() -> None:
        stack.sweeps(SWEEP_EVERY)

    def redis() -> None:
        stack.redis(redis_port)

    down = DOWN_SECONDS
    actions = {
        "worker": lambda: kill_and_restart(stack, "worker", down["worker"], worker),
        "redis stopped": lambda: stop_and_restart(stack, "redis", down["redis stopped"], redis),
        "gunicorn worker": lambda: kill_one_child(stack, "web"),
        "database connections": lambda: cut_connections(database_url),
        "redis hung": lambda: hang(stack, "redis", down["redis hung"]),
        "sweep": lambda: kill_and_restart(stack, "sweep", down["sweep"], sweeps),
    }
    assert tuple(actions) == FAULTS
    return Injector(stack, actions, {"worker": worker, "sweep": sweeps}, every)


# -- what the soak counts of the notifications (one place) ----------------------------------------


def delivery_balance(arrived: Counter, marked: Counter, held: Counter) -> tuple[int, int, int]:
    """(twice, lost, sent then killed) for one channel. A sender killed between the send and
    marking the row sent leaves the row pending under its claim: that arrival is at-least-once
    delivery doing its job (it is sent again once the claim runs out), counted apart; any
    other arrival beyond the rows marked sent is a duplicate."""
    twice = lost = killed = 0
    for key in set(arrived) | set(marked):
        extra = arrived[key] - marked[key]
        if extra > 0:
            allowed = min(extra, held[key])
            killed += allowed
            twice += extra - allowed
        elif extra < 0:
            lost -= extra
    return twice, lost, killed


@dataclass
class Deliveries:
    """The notifications' counts at one moment, each per (recipient, kind, game id): the emails
    at the sink and the outbox's rows marked sent; per channel (push, webhook), what arrived at
    the sink, the deliveries marked sent and those still pending under a live claim (a sender
    killed while it held them); and what is due or held now."""

    emails_at_sink: Counter
    emails_sent: Counter
    emails_due: int
    emails_held: int  # due, but held by a killed sender's claim until it runs out
    arrived: dict[str, Counter]
    marked: dict[str, Counter]
    claimed: dict[str, Counter]
    deliveries_due: int
    deliveries_held: int

    def email_duplicates(self) -> dict[Any, int]:
        at_sink, sent = self.emails_at_sink, self.emails_sent
        return {k: at_sink[k] - sent[k] for k in at_sink if at_sink[k] > sent[k]}

    def email_missing(self) -> dict[Any, int]:
        at_sink, sent = self.emails_at_sink, self.emails_sent
        return {k: sent[k] - at_sink[k] for k in sent if sent[k] > at_sink[k]}

    def balance(self, channel: str) -> tuple[int, int, int]:
        """(twice, lost, sent then killed) of the channel."""
        return delivery_balance(self.arrived[channel], self.marked[channel], self.claimed[channel])

    def balanced(self) -> bool:
        return all(self.balance(channel)[:2] == (0, 0) for channel in self.arrived)

    def caught_up(self) -> bool:
        """Nothing due, and the sink holds as many emails as rows were marked sent."""
        sent, at_sink = sum(self.emails_sent.values()), sum(self.emails_at_sink.values())
        return self.emails_due == 0 and sent == at_sink and self.deliveries_due == 0

    def state(self) -> str:
        counts = {
            c: (sum(self.arrived[c].values()), sum(self.marked[c].values())) for c in self.arrived
        }
        return (
            f"{self.emails_due} emails due, {sum(self.emails_at_sink.values())}/"
            f"{sum(self.emails_sent.values())} sent, {self.emails_held} held by a killed sender's"
            f" claim; {self.deliveries_due} push/webhook due ({self.deliveries_held} held),"
            f" push {counts['push'][0]}/{counts['push'][1]},"
            f" webhook {counts['webhook'][0]}/{counts['webhook'][1]}"
        )


def count_deliveries(smtp: Smtp, sink: ReachSink) -> Deliveries:
    """What the soak counts of the notifications: the emails at the SMTP sink against the
    outbox's rows, and the push notices and webhook calls at the reach sink against their
    deliveries (ChannelDelivery), each per (recipient, kind, game id).

    An email whose sender was killed while it held the row is not due until its claim runs
    out (notifications.outbox.CLAIM, minutes): it is counted apart, as held. Had it reached
    the sink before the kill, the sink would hold one message more than the rows marked sent
    (a duplicate once it is sent again), which the email check reports."""
    from django.db.models import Q
    from django.utils import timezone

    from notifications.models import ChannelDelivery, Notification

    now = timezone.now()

    # The emails: the sink's messages, per (recipient, kind, game id); the outbox's rows.
    at_sink: Counter = Counter()
    with smtp.lock:
        messages = list(smtp.messages)
    for _, recipients, raw in messages:
        message = email.message_from_bytes(raw)
        kind = message.get("X-Azul-Notification", "")
        # A digest is about no one game (its row has none), though it links to several.
        game = GAME_ID.search(raw.decode(errors="replace")) if kind != "digest" else None
        for to in recipients:
            at_sink[(to, kind, game.group(1) if game else "")] += 1
    rows = Notification.objects.filter(status=Notification.Status.SENT).values_list(
        "recipient__email", "kind", "game_id"
    )
    sent = Counter((to.lower(), kind, str(game) if game else "") for to, kind, game in rows)
    pending = Notification.objects.filter(status=Notification.Status.PENDING, send_after__lte=now)
    held = pending.filter(claimed_until__gte=now).count()
    due = pending.filter(Q(claimed_until__isnull=True) | Q(claimed_until__lt=now)).count()

    # The push notices and webhook calls: what reached the sink, per channel and (player,
    # kind, game); the deliveries marked sent, and those pending under a live claim.
    arrived: dict[str, Counter] = {"push": Counter(), "webhook": Counter()}
    for channel, name in (("push", "push"), ("hook", "webhook")):
        for _, player, payload in sink.arrived(channel):
            arrived[name][(player, payload.get("kind", ""), payload.get("game_id") or "")] += 1

    def per_channel(deliveries: Any) -> dict[str, Counter]:
        keys: dict[str, Counter] = {"push": Counter(), "webhook": Counter()}
        for channel, username, kind, game in deliveries.values_list(
            "channel",
            "notification__recipient__username",
            "notification__kind",
            "notification__game_id",
        ):
            keys[channel][(username, kind, str(game) if game else "")] += 1
        return keys

    marked = per_channel(ChannelDelivery.objects.filter(status=ChannelDelivery.Status.SENT))
    claimed = per_channel(
        ChannelDelivery.objects.filter(
            status=ChannelDelivery.Status.PENDING, claimed_until__gte=now
        )
    )
    pending_deliveries = ChannelDelivery.objects.filter(
        status=ChannelDelivery.Status.PENDING, send_after__lte=now
    )
    deliveries_held = pending_deliveries.filter(claimed_until__gte=now).count()
    return Deliveries(
        emails_at_sink=at_sink,
        emails_sent=sent,
        emails_due=due,
        emails_held=held,
        arrived=arrived,
        marked=marked,
        claimed=claimed,
        deliveries_due=pending_deliveries.count() - deliveries_held,
        deliveries_held=deliveries_held,
    )


def settled(smtp: Smtp, sink: ReachSink) -> tuple[bool, str]:
    """Whether the stack caught up: no game waits on the computer, no notification is due, and
    the sinks hold what the rows marked sent say."""
    from django.db import close_old_connections

    from games.models import Seat
    from games.selectors.turns import computer_turns_waiting

    close_old_connections()
    waiting = len(computer_turns_waiting(Seat.BotLevel.values))
    counted = count_deliveries(smtp, sink)
    state = f"{waiting} games wait on the computer, {counted.state()}"
    return waiting == 0 and counted.caught_up() and counted.balanced(), state


# -- the checks ---------------------------------------------------------------------------------


def computer_worst_answer() -> tuple[float, str]:
    """The longest time from a log entry to the computer's move after it."""
    from django.db.models import F, Window
    from django.db.models.functions import Lag

    from games.models import LogEntry, Seat

    computers = set(Seat.objects.filter(kind=Seat.Kind.COMPUTER).values_list("game_id", "position"))
    rows = LogEntry.objects.annotate(
        before=Window(Lag("created_at"), partition_by=[F("game_id")], order_by=F("number").asc())
    ).values_list("game_id", "number", "kind", "player", "created_at", "before")
    worst, where = 0.0, ""
    for game, number, kind, player, at, before in rows:
        if kind != "move" or (game, player) not in computers or before is None:
            continue
        took = (at - before).total_seconds()
        if took > worst:
            worst, where = took, f"game {game}, entry {number}"
    return worst, where


def check_moves(record: Record) -> tuple[list[str], dict[str, int]]:
    """Losses between what the players sent and the logs, and the figures."""
    from games.models import LogEntry, Seat

    problems: list[str] = []
    games = {a.game for a in record.attempts}
    entries = {
        (str(game), number): (player, data)
        for game, number, player, data in LogEntry.objects.filter(kind="move").values_list(
            "game_id", "number", "player", "data"
        )
    }
    people = {
        (str(game), position)
        for game, position in Seat.objects.exclude(kind=Seat.Kind.COMPUTER).values_list(
            "game_id", "position"
        )
    }
    sent = {(a.game, a.ply, a.seat, a.move) for a in record.attempts}
    accepted = [a for a in record.attempts if 200 <= a.status < 300]
    for a in accepted:
        entry = entries.get((a.game, a.ply))
        if entry is None:
            problems.append(
                f"lost: {a.move!r} in game {a.game} at ply {a.ply}, answered {a.status}"
            )
        elif (entry[0], move_text(entry[1])) != (a.seat, a.move):
            problems.append(
                f"game {a.game} ply {a.ply}: answered {a.status} to seat {a.seat}'s {a.move!r},"
                f" the log has seat {entry[0]}'s {move_text(entry[1])!r}"
            )
    by_people = 0
    for (game, number), (player, data) in entries.items():
        if (game, player) not in people:
            continue
        by_people += 1
        if (game, number, player, move_text(data)) not in sent:
            problems.append(
                f"game {game} entry {number}: seat {player}'s {move_text(data)!r},"
                " sent by no player"
            )
    figures = {
        "moves sent": len(record.attempts),
        "moves accepted": len(accepted),
        "moves refused (4xx)": sum(1 for a in record.attempts if 400 <= a.status < 500),
        "moves unanswered or 5xx": sum(
            1 for a in record.attempts if a.status in (0,) or a.status >= 500
        ),
        "people's moves in the logs": by_people,
        "computers' moves in the logs": len(entries) - by_people,
        "games played in": len(games),
    }
    return problems, figures


def move_text(data: Any) -> str:
    move = data.get("move") if isinstance(data, dict) else data
    return move if isinstance(move, str) else str(move)


# -- main ---------------------------------------------------------------------------------------


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=600, help="of play (%(default)s)")
    parser.add_argument(
        "--fault-every", type=float, default=15, help="seconds between faults (%(default)s)"
    )
    parser.add_argument(
        "--settle", type=float, default=90, help="seconds to catch up, at most (%(default)s)"
    )
    args = parser.parse_args()
    started = time.monotonic()
    database_url = os.environ.get("SOAK_DATABASE_URL", DEFAULT_DB)
    stop_on_signals()

    smtp = Smtp()
    smtp_port, redis_port, site_port = (free_port() for _ in range(3))
    broker, cache = f"redis://127.0.0.1:{redis_port}/0", f"redis://127.0.0.1:{redis_port}/1"
    env = stack_env(database_url, broker, cache, smtp_port)
    reach = ReachSink()
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
    faults: Injector | None = None
    players: list[Player] = []
    try:
        say(f"Preparing {database_url} (dropped, created, migrated); logs: {stack.logs}")
        recreate_database(database_url)
        manage(env, "migrate", "--noinput", "-v0")
        env.update(vapid_env(env))
        reach.vapid_public_key = env["WEBPUSH_VAPID_PUBLIC_KEY"]
        reach.start()
        django_setup(env, LOG_LEVEL="WARNING")

        smtp.serve(smtp_port)
        say("Starting Redis, the site, the worker (every queue) and the sweeps ...")
        start_stack(stack, redis_port, site_port)

        record = Record()
        for index in range(PLAYERS):
            user = bench_user(f"soak{index}")
            players.append(Player(user.username, api_token(user, "soak"), site_port, record, stop))
            devices_and_webhooks(user, reach)
        for creator, invitee in HUMAN_PAIRS:
            players[creator].opponents.append(players[invitee].name)
        for index, player in enumerate(players):
            player.level = QUICK_LEVELS[index % len(QUICK_LEVELS)]

        say(
            f"Playing for {args.seconds:g} s with {PLAYERS} players, a fault every"
            f" {args.fault_every:g} s ..."
        )
        faults = injector(stack, database_url, redis_port, args.fault_every)
        play_started = time.time()
        for player in players:
            player.thread.start()
        faults.start()
        deadline = time.monotonic() + args.seconds
        while time.monotonic() < deadline:
            time.sleep(min(30.0, max(0.1, deadline - time.monotonic())))
            with record.lock:
                moves, errors = len(record.attempts), len(record.errors)
            say(f"  {time.strftime('%H:%M:%S')} moves sent {moves}, errors {errors}")
        faults.stop.set()
        faults.thread.join()
        stop.set()
        for player in players:
            player.thread.join(timeout=120)
        play_ended = time.time()

        say(f"Settling (up to {args.settle:g} s) ...")
        settle_started = time.monotonic()
        while True:
            done, state = settled(smtp, reach)
            if done or time.monotonic() - settle_started > args.settle:
                break
            time.sleep(1)
        settle_took = time.monotonic() - settle_started
        faults.done.set()
        faults.supervisor.join()
        say(f"  after {settle_took:.0f} s: {state}")

        ok = report(record, faults, smtp, reach, env, play_ended - play_started, done, state)
        say(f"Took {time.monotonic() - started:.0f} s; the processes' logs: {stack.logs}")
        return 0 if ok else 1
    except KeyboardInterrupt:
        say("\nInterrupted: stopping everything this script started.")
        return 130
    finally:
        stop.set()
        if faults is not None:
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


def report(
    record: Record,
    injector: Injector,
    smtp: Smtp,
    reach: ReachSink,
    env: dict[str, str],
    played: float,
    settled_ok: bool,
    state: str,
) -> bool:
    from django.db import close_old_connections

    close_old_connections()
    losses: list[str] = []
    if injector.failure:
        losses.append(f"a fault could not be injected: {injector.failure}")
    if not settled_ok:
        losses.append(f"the stack did not settle: {state}")

    problems, figures = check_moves(record)
    losses += problems
    losses += [f"a player's round failed: {failure}" for failure in record.failures[:10]]

    logs = manage(env, "check_game_logs", check=False, capture_output=True, text=True)
    if logs.returncode != 0:
        losses.append(f"check_game_logs exited {logs.returncode}: {logs.stdout[-2000:]}")

    counted = count_deliveries(smtp, reach)
    at_sink, sent = counted.emails_at_sink, counted.emails_sent
    duplicates, missing = counted.email_duplicates(), counted.email_missing()
    for key, extra in duplicates.items():
        losses.append(f"email sent {extra} more time(s) than its rows: {key}")
    for key, lacking in missing.items():
        losses.append(f"email marked sent but not at the sink ({lacking}): {key}")

    arrived, marked = counted.arrived, counted.marked
    channel_figures = []
    for channel in ("push", "webhook"):
        twice, lost, killed = counted.balance(channel)
        if twice:
            losses.append(f"{channel}: {twice} arrived more times than their deliveries")
        if lost:
            losses.append(f"{channel}: {lost} deliveries marked sent never arrived")
        channel_figures.append(
            f"{channel} {sum(arrived[channel].values())} arrived, {sum(marked[channel].values())}"
            f" marked sent, twice {twice}, lost {lost}, sent before its sender was killed"
            f" {killed}"
        )
    losses += [f"refused at the sinks: {why}" for why in reach.refusals[:10]]

    faults = injector.faults
    inside = [(at, what) for at, what in record.errors if any(f.covers(at) for f in faults)]
    outside = [(at, what) for at, what in record.errors if not any(f.covers(at) for f in faults)]
    for at, what in outside:
        clock = time.strftime("%H:%M:%S", time.localtime(at))
        losses.append(f"outside the faults' windows, at {clock}: {what}")

    worst, where = computer_worst_answer()
    exits = Counter(f"{name} (exit {code})" for _, name, code in injector.exits)
    kinds = Counter(f.kind for f in faults)
    longest = {k: max(f.end - f.start for f in faults if f.kind == k) for k in kinds}
    say("\nThe figures:")
    say(f"  played {played:.0f} s; games created {record.games_created}")
    for name, value in figures.items():
        say(f"  {name:<30} {value}")
    say(
        f"  faults injected                {len(faults)}: "
        + ", ".join(f"{kind} {n} (down at most {longest[kind]:.1f} s)" for kind, n in kinds.items())
    )
    say(
        "  ended by themselves            "
        + (", ".join(f"{what} {n}" for what, n in exits.items()) or "none")
        + " (each started again at once)"
    )
    say(
        f"  5xx or unanswered              {len(inside)} inside the windows, {len(outside)} outside"
    )
    by_kind = Counter(next(f.kind for f in faults if f.covers(at)) for at, _ in inside)
    say("      by fault: " + (", ".join(f"{k} {n}" for k, n in by_kind.items()) or "-"))
    for what, times in Counter(re.sub(r"[0-9a-f-]{36}", "<id>", w) for _, w in inside).most_common(
        10
    ):
        say(f"      inside: {times} x {what[:160]}")
    say(
        f"  emails at the sink             {sum(at_sink.values())}"
        f" ({', '.join(f'{k} {n}' for k, n in Counter(k[1] for k in at_sink.elements()).items())});"
        f" rows marked sent {sum(sent.values())}; duplicates {sum(duplicates.values())},"
        f" missing {sum(missing.values())}"
    )
    say(f"  push and webhooks              {'; '.join(channel_figures)}")
    say(f"  the computer's worst answer    {worst:.2f} s ({where or 'no computer move'})")
    say(f"  when settled                   {state}")
    say(f"  check_game_logs                exit {logs.returncode}")
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
