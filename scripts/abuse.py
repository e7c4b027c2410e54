"""The review's floods against the real stack (issue #28): what an innocent player sees while a
hostile account floods the site through its API, as fast as the site lets it.

    python scripts/abuse.py            # or: make abuse  (a few minutes)
    python scripts/abuse.py --quick    # smaller floods, shorter phases

Starts the stack as deployed (docker-compose.yml, the Makefile's `worker-*` targets) on this
machine: the site (gunicorn's synchronous workers, gunicorn.conf.py), the live process (gunicorn
with one uvicorn worker), one Celery worker per queue (moves, slow_moves, master_moves, mail,
sweeps, analysis, with their commands), PostgreSQL (its own database, `azul_abuse` or
ABUSE_DATABASE_URL, emptied first), Redis (the broker on db 6, the cache on db 7, or
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
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.clients import Http, Reply, free_port, plain_get
from harness.floods import Tally, outcome_of
from harness.players import api_token, bench_session, bench_user
from harness.report import percentile, say, seconds, within
from harness.sinks import Smtp
from harness.stack import (
    WORKERS,
    Stack,
    Sweeper,
    django_setup,
    flush_redis,
    most_files,
    prepare,
    stack_env,
    stop_on_signals,
    task_times,
)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_abuse"
DEFAULT_BROKER = "redis://127.0.0.1:6379/6"
DEFAULT_CACHE = "redis://127.0.0.1:6379/7"
TARGET_SECONDS = 2.0
STRONG_THINKING = 1.0  # `strong`'s budget a move: its reply's target is TARGET_SECONDS beyond
SAMPLE_TIMEOUT = 60.0
LIVE_WAIT = 3.0  # the victim's board waits this long for a change, in each sample
LIVE_FLOOD_WAIT = 60  # each of the hostile's waits: the longest the site allows
STILL_WAITING = -1


# -- the stack --------------------------------------------------------------------------------


def start_stack(stack: Stack, ports: tuple[int, int]) -> None:
    """The site, the live process and a worker per queue, started together."""
    site_port, live_port = ports
    stack.site(site_port, wait=False)
    stack.live(live_port, wait=False)
    stack.workers()
    stack.wait_healthy("web", site_port)
    stack.wait_healthy("live", live_port)


# -- the hostile account ------------------------------------------------------------------------


class Hostile:
    """The floods, each a thread, through one account's token (and session, for live waits)."""

    def __init__(self, args: argparse.Namespace, port: int, live_port: int, token: str) -> None:
        self.args, self.port, self.live_port, self.token = args, port, live_port, token
        self.session = ""
        self.victim = ""
        self.tally = Tally()
        self.stop = threading.Event()
        self.games: list[str] = []  # accepted games against the computer: played in
        self.lobby: list[str] = []
        self.games_lock = threading.Lock()
        self.rng = random.Random(28)
        self.live_held_at_once = 0
        self.live_answers: Counter = Counter()  # "status, answered within"
        self.threads: list[threading.Thread] = []

    def call(self, http: Http, kind: str, method: str, path: str, body: Any = None) -> Reply:
        """A request as the flood sends it: the per-second throttle's 429 waited out and tried
        again; any other answer counted under `kind` and returned."""
        while True:
            try:
                reply = http.request(method, path, body)
            except OSError as exc:
                self.tally.add(kind, "no answer")
                self.tally.fault(f"{method} {path}: no answer ({exc})")
                return Reply(0, {}, b"")
            wait = reply.headers.get("retry-after")
            if (
                reply.status == 429
                and wait is not None
                and float(wait) <= 2
                and not self.stop.is_set()
            ):
                # DRF's per-user rate (API_THROTTLE_USER): as fast as the site lets it.
                self.tally.retry(kind)
                time.sleep(float(wait))
                continue
            outcome = outcome_of(reply)
            self.tally.add(kind, outcome)
            if reply.status >= 500:
                self.tally.fault(f"{method} {path} -> {reply.status}: {reply.body[:300]!r}")
            return reply

    def create(self, http: Http, kind: str, players: int, seats: list[dict]) -> str | None:
        reply = self.call(http, kind, "POST", "/api/games/", {"players": players, "seats": seats})
        return str(reply.data["id"]) if reply.status == 201 else None

    # The floods.

    def computer_games(self, kind: str, count: int, players: int, level: str) -> None:
        http = Http(self.port, self.token)
        for _ in range(count):
            if self.stop.is_set():
                return
            seats = [{"kind": "computer", "level": level}] * (players - 1)
            game = self.create(http, kind, players, seats)
            if game:
                with self.games_lock:
                    self.games.append(game)

    def analyse_loops(self, count: int) -> None:
        """Create a game against the quick computer, make the moves an analysis needs, resign,
        ask for the analysis."""
        http = Http(self.port, self.token)
        for _ in range(count):
            if self.stop.is_set():
                return
            game = self.create(
                http, "analyse: create", 2, [{"kind": "computer", "level": "greedy"}]
            )
            if game is None:
                continue
            made = 0
            while made < self.args.analyse_moves and not self.stop.is_set():
                view = self.call(http, "analyse: play", "GET", f"/api/games/{game}/").data
                if not view or view["status"] != "active":
                    break
                if not view["viewer_can_move"]:
                    time.sleep(0.3)
                    continue
                move = self.rng.choice(view["legal_moves"])
                reply = self.call(
                    http,
                    "analyse: play",
                    "POST",
                    f"/api/games/{game}/moves/",
                    {"move": move, "expected_ply": view["ply"]},
                )
                made += reply.status == 201
            if self.stop.is_set():
                return
            self.call(http, "analyse: resign", "POST", f"/api/games/{game}/resign/")
            self.call(http, "analyse: analysis", "POST", f"/api/games/{game}/analysis/")

    def lobby_games(self, count: int) -> None:
        http = Http(self.port, self.token)
        for _ in range(count):
            if self.stop.is_set():
                return
            game = self.create(http, "lobby games", 2, [{"kind": "open"}])
            if game:
                with self.games_lock:
                    self.lobby.append(game)

    def invitations(self, count: int) -> None:
        http = Http(self.port, self.token)
        for _ in range(count):
            if self.stop.is_set():
                return
            game = self.create(
                http, "invitations", 2, [{"kind": "invite", "username": self.victim}]
            )
            if game:
                self.call(http, "invitations: cancel", "POST", f"/api/games/{game}/cancel/")

    def lists(self, loops: int) -> None:
        http = Http(self.port, self.token)
        for _ in range(loops):
            page = 1
            while not self.stop.is_set():
                reply = self.call(http, "game lists (pages)", "GET", f"/api/games/?page={page}")
                if 'rel="next"' not in reply.headers.get("link", ""):
                    break
                page += 1

    def play(self) -> None:
        """The hostile's turn in every game it got against the computer, again and again."""
        http = Http(self.port, self.token)
        views: dict[str, int] = {}
        while not self.stop.is_set():
            with self.games_lock:
                games = list(self.games)
            moved = False
            for game in games:
                if self.stop.is_set():
                    return
                reply = self.call(http, "moves: look", "GET", f"/api/games/{game}/")
                view = reply.data
                if reply.status != 200 or view["status"] != "active":
                    with self.games_lock:
                        if game in self.games and reply.status != 429:
                            self.games.remove(game)
                    continue
                if view["viewer_can_move"] and views.get(game) != view["ply"]:
                    views[game] = view["ply"]
                    move = self.rng.choice(view["legal_moves"])
                    body = {"move": move, "expected_ply": view["ply"]}
                    self.call(http, "moves", "POST", f"/api/games/{game}/moves/", body)
                    moved = True
            if not moved:
                time.sleep(0.2)

    def live_waits(self, count: int) -> None:
        from django.db import connection

        from games.models import Game

        # One of its lobby games, which stands still (else another game of its own).
        deadline = time.monotonic() + 30
        game = None
        while not self.stop.is_set():
            late = time.monotonic() > deadline
            with self.games_lock:
                game = (self.lobby or (self.games if late else []) or [None])[0]
            if game is not None or time.monotonic() > deadline + 30:
                break
            time.sleep(0.2)
        if game is None:
            self.tally.add("live waits", "no game to wait on")
            return
        ply = Game.objects.values_list("ply", flat=True).get(pk=game)
        connection.close()
        # A session the live process finds in the database only (its cached copy gone, as after
        # a Redis restart): one short wait.
        cookie = {"Cookie": f"sessionid={self.session}"}
        probe = plain_get(self.live_port, f"/games/{game}/live/?wait=1&since={ply}", cookie)
        self.tally.add("live wait, uncached", outcome_of(probe))
        if probe.status >= 500:
            self.tally.fault(
                f"GET /games/<id>/live/ with a session not in the cache -> {probe.status}"
                " (the live process's log has the traceback)"
            )
        # What a browser does first: the board page, from the site (which caches the session).
        plain_get(self.port, f"/games/{game}/", cookie)
        # `since` the ply the game is at: a wait, as the board page's first one.
        path = f"/games/{game}/live/?wait={LIVE_FLOOD_WAIT}&since={ply}"
        asyncio.run(self._live_waits(count, path))

    async def _live_waits(self, count: int, path: str) -> None:
        """`count` waits at once on the live endpoint, for one of the hostile's own games: how
        each was answered, and how many the live process kept waiting at once (answered 200,
        204 or 304 after a second or more)."""
        answers: list[tuple[float, float, int]] = []  # (sent, answered, status)
        writers: list[asyncio.StreamWriter] = []

        async def wait() -> None:
            sent = time.monotonic()
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", self.live_port)
            except OSError:
                self.tally.add("live waits", "no connection")
                return
            writers.append(writer)
            writer.write(
                (
                    f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                    f"Cookie: sessionid={self.session}\r\nConnection: close\r\n\r\n"
                ).encode()
            )
            try:
                line = await reader.readline()
                status = int(line.split()[1]) if line else 0
            except (OSError, IndexError, ValueError):
                status = 0
            except asyncio.CancelledError:
                status = STILL_WAITING  # at the end of the flood
            answers.append((sent, time.monotonic(), status))

        tasks = []
        for number in range(count):
            tasks.append(asyncio.ensure_future(wait()))
            if number % 200 == 199:
                await asyncio.sleep(0.05)  # connections opened a batch at a time
        while not self.stop.is_set() and not all(t.done() for t in tasks):
            await asyncio.sleep(0.5)
        for writer in writers:
            writer.close()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

        # Held: answered as unchanged once the wait was over (the game does not change), or
        # still waiting at the end, for more than a few seconds.
        held = sorted(
            (sent, done)
            for sent, done, status in answers
            if (status in (204, 304) and done - sent >= LIVE_FLOOD_WAIT - 5)
            or (status == STILL_WAITING and done - sent >= 5)
        )
        for sent, done, status in answers:
            what = {STILL_WAITING: "still waiting at the end", 0: "no answer"}.get(status, status)
            self.live_answers[f"{what} {within(done - sent)}"] += 1
        edges = sorted([(sent, 1) for sent, _ in held] + [(done, -1) for _, done in held])
        at_once = 0
        for _, step in edges:
            at_once += step
            self.live_held_at_once = max(self.live_held_at_once, at_once)
        with self.tally.lock:
            counts = self.tally.outcomes.setdefault("live waits", Counter())
            for sent, done, status in answers:
                if status in (200, 204, 304, STILL_WAITING):
                    counts["accepted"] += 1
                elif status == 429:
                    counts["429 too_many_waits"] += 1
                else:
                    what = f"{status or 'no answer'} {within(done - sent)}"
                    counts[str(status or "no answer")] += 1
                    self.tally.faults.append(f"hostile's live wait -> {what}")

    def start(self) -> None:
        a = self.args
        floods: list[tuple[Callable[..., None], tuple]] = [
            (self.computer_games, ("strong games", a.strong_games, 4, "strong")),
            (self.computer_games, ("master games", a.master_games, 2, "master")),
            (self.analyse_loops, (a.analyse_loops,)),
            (self.lobby_games, (a.lobby_games,)),
            (self.invitations, (a.invitations,)),
            (self.lists, (a.list_loops,)),
            (self.live_waits, (a.live_waits,)),
            (self.play, ()),
        ]
        for target, arguments in floods:
            thread = threading.Thread(target=target, args=arguments, daemon=True)
            thread.start()
            self.threads.append(thread)

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=20)


# -- the victim ---------------------------------------------------------------------------------


@dataclass
class Figures:
    replies: dict[str, list[float]] = field(default_factory=dict)  # level -> seconds
    emails: list[float] = field(default_factory=list)
    sweeps: list[tuple[str, str, float]] = field(default_factory=list)  # (task, id, sent at)
    sweep_starts: list[float] = field(default_factory=list)
    sweep_ends: list[float] = field(default_factory=list)
    live: list[float] = field(default_factory=list)  # the victim's board waits, answered after
    live_bad: Counter = field(default_factory=Counter)  # their answers other than 204/304/200
    missing: Counter = field(default_factory=Counter)


def invitation_grace() -> float:
    from django.conf import settings

    return float(getattr(settings, "NOTIFY_INVITATION_GRACE_SECONDS", 0))


class Victim:
    def __init__(self, port: int, user: Any, token: str, smtp: Smtp, started: float) -> None:
        self.http = Http(port, token)
        self.live_port = 0
        self.session = ""
        self.user, self.smtp, self.started = user, smtp, started
        self.games: dict[str, str] = {}
        self.invited = 0
        self.rng = random.Random(7)

    def note(self, phase: str, text: str) -> None:
        say(f"  [{time.monotonic() - self.started:6.1f} s, {phase}] {text}")

    def _fresh_game(self, level: str) -> str:
        reply = self.http.request(
            "POST",
            "/api/games/",
            {"players": 2, "seats": [{"kind": "computer", "level": level}]},
        )
        if reply.status != 201:
            raise RuntimeError(f"the victim could not start a game: {reply.status} {reply.body!r}")
        return str(reply.data["id"])

    def view(self, game: str) -> dict:
        """The game as the victim's API shows it (the victim's own per-second rate waited out)."""
        while True:
            reply = self.http.request("GET", f"/api/games/{game}/")
            if reply.status == 200:
                return reply.data
            if reply.status != 429:
                raise RuntimeError(f"the victim's game: {reply.status} {reply.body[:200]!r}")
            time.sleep(float(reply.headers.get("retry-after", 1)))

    @staticmethod
    def wait_past(game: str, ply: int, deadline: float) -> bool:
        """Until the game is past `ply` (polled in the database every 10 ms), or the deadline."""
        from games.models import Game

        while time.monotonic() < deadline:
            now = Game.objects.filter(pk=game).values_list("ply", flat=True).first()
            if now is not None and now > ply:
                return True
            time.sleep(0.01)
        return False

    def reply_sample(self, level: str, figures: Figures, phase: str) -> None:
        """One move of the victim's, and the time until the computer's answer is in the game."""
        deadline = time.monotonic() + SAMPLE_TIMEOUT
        while time.monotonic() < deadline:
            game = self.games.get(level) or self._fresh_game(level)
            self.games[level] = game
            view = self.view(game)
            if view["status"] != "active":
                self.games.pop(level)
                continue
            if not view["viewer_can_move"]:  # the computer moves first: its answer to nothing
                self.wait_past(game, view["ply"], deadline)
                continue
            move = self.rng.choice(view["legal_moves"])
            body = {"move": move, "expected_ply": view["ply"]}
            reply = self.http.request("POST", f"/api/games/{game}/moves/", body)
            answered = time.monotonic()
            if reply.status != 201:
                self.note(phase, f"the victim's move: {reply.status} {reply.body[:200]!r}")
                continue
            after = reply.data
            if after["status"] != "active" or after["viewer_can_move"]:
                continue  # no answer to wait for: the game ended, or it is the victim's again
            if self.wait_past(game, after["ply"], deadline):
                seconds = time.monotonic() - answered
                figures.replies.setdefault(level, []).append(seconds)
                self.note(phase, f"computer's reply ({level}): {seconds:.2f} s")
                return
        figures.missing[f"reply {level}"] += 1
        figures.replies.setdefault(level, []).append(float("inf"))
        self.note(phase, f"computer's reply ({level}): none within {SAMPLE_TIMEOUT:.0f} s")

    def email_sample(self, figures: Figures, phase: str) -> None:
        """An invitation to a third player, and its email's delay past its due time."""
        from notifications.models import Notification

        self.invited += 1
        third = bench_user(f"abuse_third{self.invited}")
        reply = self.http.request(
            "POST",
            "/api/games/",
            {"players": 2, "seats": [{"kind": "invite", "username": third.username}]},
        )
        if reply.status != 201:
            self.note(phase, f"the victim's invitation: {reply.status} {reply.body[:200]!r}")
            figures.missing["email"] += 1
            figures.emails.append(float("inf"))
            return
        game = reply.data["id"]
        deadline = time.monotonic() + SAMPLE_TIMEOUT + invitation_grace()
        due = None
        while time.monotonic() < deadline:
            if due is None:
                due = (
                    Notification.objects.filter(
                        recipient=third, game_id=game, kind=Notification.Kind.INVITATION
                    )
                    .values_list("send_after", flat=True)
                    .first()
                )
            arrived = self.smtp.arrived(third.email)
            if due is not None and arrived:
                seconds = arrived[0] - due.timestamp()
                figures.emails.append(seconds)
                grace = f" (due {due.timestamp() - self.created_at(game):.1f} s after creation)"
                self.note(phase, f"invitation's email: {seconds:.2f} s after due{grace}")
                return
            time.sleep(0.02)
        figures.missing["email"] += 1
        figures.emails.append(float("inf"))
        self.note(phase, f"invitation's email: none within {SAMPLE_TIMEOUT:.0f} s of its due time")

    def live_sample(self, figures: Figures, phase: str) -> None:
        """What the victim's board page does: wait for its game to change (`LIVE_WAIT` s, as the
        computer's game stands still meanwhile); answered 204 once the wait is over."""
        from games.models import Game

        game = next(iter(self.games.values()), None)
        if game is None:
            return
        ply = Game.objects.values_list("ply", flat=True).get(pk=game)
        path = f"/games/{game}/live/?wait={LIVE_WAIT:g}&since={ply}"
        began = time.monotonic()
        try:
            cookie = {"Cookie": f"sessionid={self.session}"}
            status = plain_get(self.live_port, path, cookie, timeout=SAMPLE_TIMEOUT).status
        except OSError:
            status = 0
        took = time.monotonic() - began
        if status in (200, 204, 304):
            figures.live.append(took)
            self.note(phase, f"board's live wait ({LIVE_WAIT:g} s): {status} after {took:.2f} s")
        else:
            figures.live.append(float("inf"))
            figures.live_bad[f"{status or 'no answer'} {within(took)}"] += 1
            self.note(phase, f"board's live wait ({LIVE_WAIT:g} s): {status} after {took:.1f} s")

    @staticmethod
    def created_at(game: str) -> float:
        from games.models import Game

        return Game.objects.values_list("created_at", flat=True).get(pk=game).timestamp()


def collect_sweeps(stack: Stack, figures: Figures, phase: str, note: Callable) -> None:
    deadline = time.monotonic() + 30
    while True:
        times = task_times(stack.log("sweeps"))
        if all(task_id in times for _, task_id, _ in figures.sweeps):
            break
        if time.monotonic() > deadline:
            break
        time.sleep(0.5)
    for name, task_id, sent in figures.sweeps:
        start, end = times.get(task_id, (None, None))
        if start is None or end is None:
            figures.missing["sweep"] += 1
            figures.sweep_starts.append(float("inf"))
            figures.sweep_ends.append(float("inf"))
            note(phase, f"{name}: not run within 30 s of the phase's end")
            continue
        # The log's times are to the millisecond: a start a hair before the send is 0.
        figures.sweep_starts.append(max(0.0, start - sent))
        figures.sweep_ends.append(max(0.0, end - sent))
    if figures.sweep_ends:
        note(
            phase,
            f"{len(figures.sweeps)} sweeps: sent to started max {max(figures.sweep_starts):.2f} s,"
            f" to finished max {max(figures.sweep_ends):.2f} s",
        )


# -- the limits that must hold -------------------------------------------------------------------


class Watch:
    """What the hostile account has at once, read from the database every half second."""

    def __init__(self, user: Any) -> None:
        self.user = user
        self.most: Counter = Counter()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.loop, daemon=True)

    def loop(self) -> None:
        from django.db import connection

        from analysis.models import Analysis
        from games.models import Game, Seat

        # As the README says the limits count: unfinished games the player sits at (not an
        # invitation they have not accepted, nor a seat they resigned); lobby games: theirs,
        # waiting for players, with a seat anyone may take.
        seated = Seat.objects.filter(user=self.user, resigned_at__isnull=True).exclude(
            invitation=Seat.Invitation.PENDING
        )
        mine = Game.objects.filter(
            status__in=[Game.Status.OPEN, Game.Status.ACTIVE], pk__in=seated.values("game_id")
        )
        computers = Seat.objects.filter(kind=Seat.Kind.COMPUTER)
        masters = computers.filter(bot_level=Seat.BotLevel.MASTER)
        open_seats = Seat.objects.filter(kind=Seat.Kind.HUMAN, user__isnull=True, name="").exclude(
            invitation=Seat.Invitation.DECLINED
        )
        lobby = Game.objects.filter(
            status=Game.Status.OPEN, created_by=self.user, pk__in=open_seats.values("game_id")
        )
        try:
            while not self.stop.is_set():
                now = {
                    "computer games": mine.filter(pk__in=computers.values("game_id")).count(),
                    "master games": mine.filter(pk__in=masters.values("game_id")).count(),
                    "lobby games": lobby.count(),
                    "analyses pending": Analysis.objects.filter(
                        requested_by=self.user, status=Analysis.Status.PENDING
                    ).count(),
                    "games created": Game.objects.filter(created_by=self.user).count(),
                }
                for name, value in now.items():
                    self.most[name] = max(self.most[name], value)
                self.stop.wait(0.5)
        finally:
            connection.close()


def rate_count(rate: str) -> int:
    return int(rate.split("/")[0])


# -- the report ---------------------------------------------------------------------------------


def report(
    args: argparse.Namespace,
    quiet: Figures,
    flood: Figures,
    hostile: Hostile,
    watch: Watch,
    smtp: Smtp,
    victim_email: str,
) -> bool:
    from django.conf import settings

    from notifications.models import Notification

    say("\nThe hostile account's floods (accepted / refused, and why; a 429 of the per-second")
    say("API throttle is waited out and tried again: counted apart as 'waited'):")
    say(f"  {'kind':<22} {'sent':>5} {'accepted':>8} {'waited':>6}  refused")
    tally = hostile.tally
    for kind, counts in tally.outcomes.items():
        refused = ", ".join(f"{n} x {what}" for what, n in counts.items() if what != "accepted")
        say(
            f"  {kind:<22} {sum(counts.values()):>5} {counts['accepted']:>8}"
            f" {tally.retried[kind]:>6}  {refused or '-'}"
        )

    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    limits = [
        ("games created (an hour)", watch.most["games created"], rate_count(rates["game_create"])),
        ("computer games at once", watch.most["computer games"], settings.GAMES_MAX_COMPUTER_GAMES),
        ("master games at once", watch.most["master games"], settings.GAMES_MAX_MASTER_GAMES),
        ("lobby games at once", watch.most["lobby games"], settings.GAMES_MAX_LOBBY_GAMES),
        (
            "analyses pending at once",
            watch.most["analyses pending"],
            settings.ANALYSIS_MAX_PENDING_PER_PLAYER,
        ),
        ("live waits held at once", hostile.live_held_at_once, settings.LIVE_MAX_WAITS_PER_PLAYER),
    ]
    held = True
    answers = ", ".join(f"{n} x {what}" for what, n in sorted(hostile.live_answers.items()))
    say(f"\nThe hostile's live waits, by answer and time: {answers or 'none'}.")
    say("\nThe limits (the most the hostile account had at once: by the database; live waits: by")
    say(f"their answers: those answered 204/304 after waiting out their {LIVE_FLOOD_WAIT} s):")
    for name, most, limit in limits:
        ok = most <= limit
        held &= ok
        say(f"  {name:<26} {most:>4}  (limit {limit}) {'held' if ok else 'NOT HELD'}")
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

    level = args.level
    rows: list[tuple[str, float, float, float | None]] = []  # name, quiet, flood, target
    for name, get, target in (
        (f"computer's reply ({level}) p50", lambda f: f.replies.get(level, []), TARGET_SECONDS),
        (f"computer's reply ({level}) max", lambda f: f.replies.get(level, []), TARGET_SECONDS),
        (
            "computer's reply (strong) p50",
            lambda f: f.replies.get("strong", []),
            STRONG_THINKING + TARGET_SECONDS,
        ),
        (
            "computer's reply (strong) max",
            lambda f: f.replies.get("strong", []),
            STRONG_THINKING + TARGET_SECONDS,
        ),
        ("invitation's email, due -> sink, max", lambda f: f.emails, TARGET_SECONDS),
        ("sweep sent -> started, max", lambda f: f.sweep_starts, TARGET_SECONDS),
        ("sweep sent -> finished, max", lambda f: f.sweep_ends, TARGET_SECONDS),
        (f"board's live wait ({LIVE_WAIT:g} s), max", lambda f: f.live, LIVE_WAIT + 2),
    ):
        q = 0.5 if name.endswith("p50") else 1.0
        rows.append((name, percentile(get(quiet), q), percentile(get(flood), q), target))

    samples = (
        f"samples quiet/flood: {level} {len(quiet.replies.get(level, []))}/"
        f"{len(flood.replies.get(level, []))}, strong {len(quiet.replies.get('strong', []))}/"
        f"{len(flood.replies.get('strong', []))}, emails {len(quiet.emails)}/{len(flood.emails)},"
        f" sweeps {len(quiet.sweep_ends)}/{len(flood.sweep_ends)}, live waits"
        f" {len(quiet.live)}/{len(flood.live)}"
    )
    say(f"\nWhat the innocent player saw ({samples}):")
    say(f"  {'figure':<38} {'quiet':>8} {'flood':>8}  {'target':<10} result")
    passed = True
    for name, calm, busy, target in rows:
        if target is not None:
            ok = all(v == v and v < target for v in (calm, busy))
            passed &= ok
            verdict, wanted = ("pass" if ok else "FAIL"), f"< {target:g} s"
        else:
            verdict, wanted = "(report)", "-"
        say(f"  {name:<38} {seconds(calm):>8} {seconds(busy):>8}  {wanted:<10} {verdict}")
    for phase, figures in (("quiet", quiet), ("flood", flood)):
        for what, times in figures.live_bad.items():
            say(f"  ('none' above: {times} of the victim's live waits ({phase}): {what})")
    ok = passed and held and not tally.faults
    say(
        f"\n{'All targets met' if passed else 'A target was missed'}; limits"
        f" {'held' if held else 'NOT held'}; {len(tally.faults)} faults."
        f" ({os.cpu_count()} CPUs, shared with whatever else runs here.)"
    )
    return ok


# -- main ---------------------------------------------------------------------------------------


def run_phase(
    name: str,
    victim: Victim,
    figures: Figures,
    sweeper: Sweeper,
    stack: Stack,
    *,
    seconds_: float,
    emails: int,
    rounds: int,
    level: str,
    progress: Callable[[], str] | None = None,
) -> None:
    sweeper.run(figures.sweeps)
    began = time.monotonic()
    done = 0
    last_progress = began
    while done < rounds or time.monotonic() - began < seconds_:
        victim.reply_sample(level, figures, name)
        victim.reply_sample("strong", figures, name)
        victim.reply_sample(level, figures, name)
        victim.live_sample(figures, name)
        if len(figures.emails) < emails:
            victim.email_sample(figures, name)
        done += 1
        if progress and time.monotonic() - last_progress > 10:
            victim.note(name, progress())
            last_progress = time.monotonic()
        if time.monotonic() - began > 3 * seconds_ + 60:
            break
    sweeper.halt()
    collect_sweeps(stack, figures, name, victim.note)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller floods, shorter phases")
    parser.add_argument("--level", default="greedy", help="the quick computer level (%(default)s)")
    parser.add_argument("--seconds", type=float, help="of flood (default 150; --quick 50)")
    parser.add_argument("--quiet-seconds", type=float, help="before (default 20; --quick 10)")
    parser.add_argument("--sweep-every", type=float, default=10.0, help="seconds (%(default)s)")
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
    stop_on_signals()  # Ctrl-C and a TERM alike stop everything started here (`finally` below)

    smtp = Smtp()
    smtp_port = free_port()
    env = stack_env(database_url, broker_url, cache_url, smtp_port)
    stack = Stack(env, prefix="abuse_")
    logs = stack.logs
    hostile: Hostile | None = None
    watch: Watch | None = None
    sweeper: Sweeper | None = None
    try:
        say(f"Preparing {database_url} (migrate, flush) and Redis {broker_url}, {cache_url} ...")
        flush_redis(broker_url, cache_url)
        prepare(env, flush=True)
        django_setup(env, LOG_LEVEL="WARNING")  # this process: only what goes wrong
        from django.conf import settings

        args.analyse_moves = settings.ANALYSIS_MIN_PERSON_MOVES

        smtp.serve(smtp_port)
        site_port, live_port = free_port(), free_port()
        say(f"Starting the site, the live process and {len(WORKERS)} workers (logs: {logs}) ...")
        start_stack(stack, (site_port, live_port))

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

        quiet, flood = Figures(), Figures()
        say(f"\nQuiet: the victim alone for {args.quiet_seconds:g} s")
        run_phase(
            "quiet",
            victim,
            quiet,
            sweeper,
            stack,
            seconds_=args.quiet_seconds,
            emails=1,
            rounds=2,
            level=args.level,
        )

        say(f"\nFlood: the hostile account's floods, and the victim, for {args.seconds:g} s")
        watch = Watch(hostile_user)
        watch.thread.start()
        hostile.start()
        time.sleep(2)
        run_phase(
            "flood",
            victim,
            flood,
            sweeper,
            stack,
            seconds_=args.seconds,
            emails=args.emails,
            rounds=4,
            level=args.level,
            progress=lambda: f"hostile accepted/sent: {hostile.tally.summary()}",
        )
        hostile.finish()
        watch.stop.set()
        watch.thread.join(timeout=5)
        ok = report(args, quiet, flood, hostile, watch, smtp, victim_user.email)
        say(f"Took {time.monotonic() - started:.0f} s; the processes' logs: {logs}")
        return 0 if ok else 1
    except KeyboardInterrupt:
        say("\nInterrupted: stopping everything this script started.")
        return 130
    finally:
        if sweeper is not None:
            sweeper.halt()
        if hostile is not None:
            hostile.stop.set()
        if watch is not None:
            watch.stop.set()
        stack.stop()
        smtp.stop()
        try:
            flush_redis(broker_url, cache_url)
        except Exception as exc:  # noqa: BLE001 (a note, not a reason to fail the cleanup)
            say(f"  note: Redis not emptied: {exc}")


if __name__ == "__main__":
    sys.exit(main())
