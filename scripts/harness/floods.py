"""Floods: concurrent clients sending requests (`run_get`) or playing moves (`run_moves`) for a
time or a number of requests, and the CPU the serving processes spend on them (from /proc).
"""

from __future__ import annotations

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

from harness.clients import Client, Reply
from harness.report import percentile

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


def run_get(name, port, path, headers, concurrency, seconds, max_requests) -> Result:
    """`concurrency` clients GETting `path` for `seconds` or `max_requests` in all."""
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
                if status == 200:
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
