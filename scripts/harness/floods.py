"""Floods: concurrent clients sending requests (`run_get`) or playing moves (`run_moves`) for a
time or a number of requests, and the CPU the serving processes spend on them (from /proc); and
a hostile account's floods through the API (`Hostile`, the abuse run's), its answers tallied by
kind and outcome (`Tally`).
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

import orjson

from harness.clients import Client, Http, Reply, plain_get
from harness.report import percentile, say, within

SERVER_PROGRAMS = ("gunicorn", "postgres", "redis-server")
"""The processes that serve a request; their CPU time per request is what the request costs,
whatever the load generator (which shares the machine) spends."""


LOAD_GENERATOR = "load generator"


def server_cpu_seconds() -> dict[str, float]:
    """CPU time (user + system) used so far by the gunicorn, PostgreSQL and Redis processes,
    by program."""
    ticks = dict.fromkeys(SERVER_PROGRAMS, 0)
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        name = stat[stat.index("(") + 1 : stat.rindex(")")]
        cmdline = ""
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmdline = f.read().decode(errors="replace")
        except OSError:
            pass
        program = next((p for p in SERVER_PROGRAMS if p in name or p in cmdline), None)
        if program:
            fields = stat[stat.rindex(")") + 2 :].split()
            ticks[program] += int(fields[11]) + int(fields[12])  # utime, stime
    return {p: t / os.sysconf("SC_CLK_TCK") for p, t in ticks.items()}


def process_tree(pid: int) -> list[int]:
    pids, todo = [], [pid]
    while todo:
        current = todo.pop()
        pids.append(current)
        try:
            with open(f"/proc/{current}/task/{current}/children") as f:
                todo += [int(child) for child in f.read().split()]
        except OSError:
            pass
    return pids


@dataclass
class Usage:
    cpu: float  # seconds, user + system
    threads: int
    rss_mib: float


def usage(pid: int) -> Usage:
    """CPU, threads and resident memory of a process and its children (gunicorn's workers)."""
    cpu, threads, rss = 0.0, 0, 0
    for each in process_tree(pid):
        try:
            with open(f"/proc/{each}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            with open(f"/proc/{each}/status") as f:
                status = dict(line.split(":", 1) for line in f if ":" in line)
        except OSError:
            continue
        cpu += (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        threads += int(status["Threads"])
        rss += int(status["VmRSS"].split()[0])
    return Usage(cpu, threads, rss / 1024)


@dataclass
class Result:
    name: str
    latencies: list[float]
    wall: float
    errors: int
    # Seconds of CPU during the scenario, by program (the servers', and the load generator's).
    server_cpu: dict[str, float] = field(default_factory=dict)

    def add(self, other: Result) -> None:
        """Count `other`, another slice of the same scenario, in this one."""
        self.latencies += other.latencies
        self.wall += other.wall
        self.errors += other.errors
        for program, seconds in other.server_cpu.items():
            self.server_cpu[program] = self.server_cpu.get(program, 0.0) + seconds

    @property
    def cpu_ms_per_request(self) -> float:
        return self.cpu_ms(*SERVER_PROGRAMS)

    def cpu_ms(self, *programs: str) -> float:
        spent = sum(self.server_cpu.get(p, 0.0) for p in programs)
        return spent * 1000 / len(self.latencies) if self.latencies else 0.0

    @property
    def rps(self) -> float:
        return len(self.latencies) / self.wall if self.wall else 0.0

    def pct(self, q: float) -> float:
        """Milliseconds, 0 when there is no answer."""
        return percentile(self.latencies, q, empty=0.0) * 1000


def with_cpu(scenario: Callable[[], Result]) -> Result:
    """The scenario's result, with the CPU the servers (and this process) spent meanwhile."""
    cpu_before, own_before = server_cpu_seconds(), time.process_time()
    result = scenario()
    cpu_after, own_after = server_cpu_seconds(), time.process_time()
    result.server_cpu = {p: cpu_after[p] - cpu_before[p] for p in SERVER_PROGRAMS}
    result.server_cpu[LOAD_GENERATOR] = own_after - own_before
    return result


def in_threads(target: Callable[..., None], arguments: list[tuple]) -> float:
    """`target(*each)` in a thread per item of `arguments`, all at once; the seconds they took."""
    started = time.perf_counter()
    threads = [threading.Thread(target=target, args=each) for each in arguments]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return time.perf_counter() - started


def run_get(name, port, path, headers, concurrency, seconds, max_requests, ok=200) -> Result:
    """`concurrency` clients GETting `path` for `seconds` or `max_requests` in all; an answer
    other than `ok` (200, or 304 for a poll with the ETag it has) is an error."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds
    budget = [max_requests]

    def worker() -> None:
        client = Client(port)
        while time.perf_counter() < deadline:
            with lock:
                if budget[0] <= 0:
                    return
                budget[0] -= 1
            status, _, elapsed = client.request("GET", path, headers)
            with lock:
                if status == ok:
                    latencies.append(elapsed)
                else:
                    errors[0] += 1

    wall = in_threads(worker, [()] * concurrency)
    return Result(name, latencies, wall, errors[0])


class MovingPair:
    """Two players with their own games, moving in turn with the right `expected_ply` (token
    auth) and starting their next game when one ends; carries on from round to round."""

    def __init__(self, port: int, tokens: dict[str, str], games: list[str], seed: int) -> None:
        self.tokens, self.games = tokens, iter(games)
        self.rng = random.Random(seed)
        self.client = Client(port)
        self.game_id: str | None = None
        self.view: dict = {"status": "not started"}
        self.state: Any = None  # the engine's state of the game, as the last answer shows it

    def _next_game(self) -> bool:
        self.game_id, self.state = next(self.games, None), None
        if self.game_id is None:
            return False
        _, data, _ = self.client.request(
            "GET",
            f"/api/games/{self.game_id}/",
            {"Authorization": f"Token {next(iter(self.tokens.values()))}"},
        )
        self.view = orjson.loads(data)
        self.seat_user = {p["position"]: p["username"] for p in self.view["players"]}
        return True

    def play(self, take_turn, record) -> None:
        """Move while `take_turn()` allows; `record(status, data, elapsed)` each answer."""
        import azul

        while self.view["status"] == "active" or self._next_game():
            if self.view["status"] != "active":
                continue
            if not take_turn():
                return
            state = self.state or azul.State.from_dict(self.view["state"])
            position, ply = state.to_move[0], self.view["ply"]
            move = azul.random_move(state, self.rng, position)
            body = orjson.dumps({"move": str(move), "expected_ply": ply})
            headers = {
                "Authorization": f"Token {self.tokens[self.seat_user[position]]}",
                "Content-Type": "application/json",
            }
            status, data, elapsed = self.client.request(
                "POST", f"/api/games/{self.game_id}/moves/", headers, body
            )
            record(status, data, elapsed)
            if status != 201:
                print(f"  move refused ({status}): {data[:200]!r}", file=sys.stderr)
                self.view = {"status": "refused"}
                return
            self.view = orjson.loads(data)
            # The answer's state is the move played on the state before, unless the server dealt
            # a new round after it: playing it here costs the load generator (which shares the
            # machine with the server) less than parsing the answer's.
            self.state = azul.play(state, move, position) if self.view["ply"] == ply + 1 else None


def run_moves(pairs: list[MovingPair], seconds: float, max_requests: int) -> Result:
    """The pairs playing at once, for `seconds` or `max_requests` moves in all."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    deadline = time.perf_counter() + seconds
    budget = [max_requests]

    def take_turn() -> bool:
        with lock:
            if budget[0] <= 0 or time.perf_counter() >= deadline:
                return False
            budget[0] -= 1
            return True

    def record(status: int, data: bytes, elapsed: float) -> None:
        with lock:
            if status == 201:
                latencies.append(elapsed)
            else:
                errors[0] += 1

    wall = in_threads(lambda pair: pair.play(take_turn, record), [(pair,) for pair in pairs])
    return Result("move submission (POST)", latencies, wall, errors[0])


# -- an account's floods: its answers, by kind and outcome ----------------------------------------


@dataclass
class Tally:
    """Per kind of request: answers by outcome; the 5xx's bodies."""

    outcomes: dict[str, Counter] = field(default_factory=dict)
    retried: Counter = field(default_factory=Counter)
    faults: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, kind: str, outcome: str) -> None:
        with self.lock:
            self.outcomes.setdefault(kind, Counter())[outcome] += 1

    def retry(self, kind: str) -> None:
        with self.lock:
            self.retried[kind] += 1

    def fault(self, text: str) -> None:
        with self.lock:
            self.faults.append(text)

    def accepted(self, kind: str) -> int:
        with self.lock:
            return self.outcomes.get(kind, Counter())["accepted"]

    def table(self) -> None:
        """The tally, a line per kind: sent, accepted, waited out and tried again, refused."""
        say(f"  {'kind':<22} {'sent':>5} {'accepted':>8} {'waited':>6}  refused")
        for kind, counts in self.outcomes.items():
            refused = ", ".join(f"{n} x {what}" for what, n in counts.items() if what != "accepted")
            say(
                f"  {kind:<22} {sum(counts.values()):>5} {counts['accepted']:>8}"
                f" {self.retried[kind]:>6}  {refused or '-'}"
            )

    def summary(self) -> str:
        with self.lock:
            return ", ".join(
                f"{kind} {c['accepted']}/{sum(c.values())}" for kind, c in self.outcomes.items()
            )


def outcome_of(reply: Reply) -> str:
    if reply.status < 400 or reply.status == 304:
        return "accepted"
    if reply.status >= 500:
        return f"{reply.status}"
    return f"{reply.status} {reply.code}".strip()


# -- a hostile account's floods ------------------------------------------------------------------

LIVE_FLOOD_WAIT = 60  # each of the hostile's waits: the longest the site allows
STILL_WAITING = -1


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
        game: str | None = None
        while not self.stop.is_set():
            late = time.monotonic() > deadline
            with self.games_lock:
                game = next(iter(self.lobby or (self.games if late else [])), None)
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

    def halt(self) -> None:
        self.stop.set()

    def finish(self) -> None:
        self.stop.set()
        for thread in self.threads:
            thread.join(timeout=20)
