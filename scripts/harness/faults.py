"""Faults: the stack's parts killed, stopped and hung in turn on a fixed beat (`Injector`), each
recorded with its window (from the fault until its part is back, and a little after), and a
supervisor that starts again any process that ended by itself, as a process manager does; the
soak's schedule of them (`rotation`), and what the requests that failed say against the windows.
"""

from __future__ import annotations

import os
import random
import re
import signal
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from harness.report import say
from harness.stack import EVERY_QUEUE, Stack, terminate_backends

# A fault's window: from the fault until its part is back, and this much after, for the requests
# already on their way (a worker's first request after its connection was terminated).
WINDOW_AFTER = 5.0


@dataclass
class Fault:
    kind: str
    start: float
    end: float = 0.0
    note: str = ""

    def covers(self, at: float) -> bool:
        return self.start <= at <= self.end + WINDOW_AFTER


# -- the faults, each back when its part is ------------------------------------------------------


def kill_and_restart(stack: Stack, name: str, down: float, start: Callable[[], None]) -> str:
    """SIGKILL to the process's group; `down` seconds later, `start()` again."""
    stack.kill(name, signal.SIGKILL)
    time.sleep(down)
    start()
    return "SIGKILL to its process group" if name == "worker" else "SIGKILL, started again"


def stop_and_restart(stack: Stack, name: str, down: float, start: Callable[[], None]) -> str:
    """SIGTERM (Redis: its queue is lost, it keeps nothing on disk); `down` seconds later,
    `start()` again."""
    stack.kill(name, signal.SIGTERM)
    time.sleep(down)
    start()
    return "SIGTERM, started again"


def hang(stack: Stack, name: str, down: float) -> str:
    """SIGSTOP, then SIGCONT `down` seconds later."""
    pid = stack.pid(name)
    os.kill(pid, signal.SIGSTOP)
    time.sleep(down)
    os.kill(pid, signal.SIGCONT)
    return f"SIGSTOP for {down:g} s"


def kill_one_child(stack: Stack, name: str, timeout: float = 30) -> str:
    """SIGKILL to one of gunicorn's workers; back when its master has started another."""
    workers = stack.children(name)
    victim = random.choice(workers)
    os.kill(victim, signal.SIGKILL)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        now = stack.children(name)
        if victim not in now and len(now) >= len(workers):
            break
        time.sleep(0.1)
    return f"SIGKILL to 1 of {len(workers)}"


def cut_connections(database_url: str) -> str:
    """Every connection to the database terminated (`pg_terminate_backend`, as a failover does)."""
    return f"{terminate_backends(database_url)} terminated"


# -- the soak's schedule -------------------------------------------------------------------------

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
# Each once (`gap`): first the faults that lose work sent meanwhile (a task sent while Redis is
# away is skipped, the killed worker's unacknowledged ones are lost), which the sweeps send again
# a minute on (notifications.outbox.SWEEP_LAG): that minute runs while the others are injected,
# rather than after the play as the stack settles (40-50 s of a run when Redis hung last-but-one).
ONCE_ORDER = (
    "redis hung",
    "redis stopped",
    "worker",
    "gunicorn worker",
    "database connections",
    "sweep",
)


def rotation(
    stack: Stack,
    database_url: str,
    redis_port: int,
    sweep_every: float,
    every: float,
    gap: float | None = None,
) -> Injector:
    """FAULTS in turn, every `every` seconds (or, with `gap`, each once in ONCE_ORDER, `gap`
    seconds after the previous one's window: `Injector`), on a stack of Redis (on
    `redis_port`), the site (`web`), one worker of every queue (`worker`) and the sweeps
    (`sweep`); the worker and the sweeps started again whenever they end by themselves."""

    def worker() -> None:
        stack.worker("worker", *EVERY_QUEUE)

    def sweeps() -> None:
        stack.sweeps(sweep_every)

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
    assert tuple(actions) == FAULTS and sorted(ONCE_ORDER) == sorted(FAULTS)
    if gap is not None:
        actions = {kind: actions[kind] for kind in ONCE_ORDER}
    return Injector(stack, actions, {"worker": worker, "sweep": sweeps}, every, gap)


# -- the injector ----------------------------------------------------------------------------------


class Injector:
    """Every `every` seconds, the next of `faults` (kind: its action, which returns a note once
    its part is back), in their order; and a supervisor that starts again any of `restarters`'
    processes that ended by itself.

    With `gap`, each fault once instead: the first `gap` seconds after the start, each next one
    `gap` seconds after the previous one's window closed (so that no two windows overlap, however
    long a part takes to come back on a loaded machine), and the thread ends `gap` seconds after
    the last window closed (`thread.join()`: the play may end)."""

    def __init__(
        self,
        stack: Stack,
        faults: dict[str, Callable[[], str]],
        restarters: dict[str, Callable[[], None]],
        every: float,
        gap: float | None = None,
    ) -> None:
        self.stack, self.actions, self.restarters, self.every = stack, faults, restarters, every
        self.gap = gap
        self.faults: list[Fault] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.run, name="faults", daemon=True)
        self.failure = ""
        # Held while a fault is under way, so that the supervisor leaves its part alone.
        self.lock = threading.Lock()
        # The processes that ended by themselves, each started again by the supervisor.
        self.exits: list[tuple[float, str, int]] = []
        # The supervisor's own stop: it goes on while the stack settles, after the faults.
        self.done = threading.Event()
        self.supervisor = threading.Thread(target=self.supervise, name="supervisor", daemon=True)

    def start(self) -> None:
        self.thread.start()
        self.supervisor.start()

    def supervise(self) -> None:
        """Starts again any process that ended by itself, as a process manager does (systemd's
        Restart=, docker-compose's `restart:`): Celery's worker, for one, exits when Redis goes
        away under it (kombu's "Unrecoverable error" while it puts back its unacked tasks)."""
        while not self.done.wait(0.5):
            with self.lock:
                for name, start in self.restarters.items():
                    code = self.stack.processes[name].poll()
                    if code is not None:
                        self.exits.append((time.time(), name, code))
                        say(f"  {time.strftime('%H:%M:%S')} {name} ended (exit {code}): restarted")
                        start()

    def run(self) -> None:
        if self.gap is not None:
            self.run_once(self.gap)
            return
        # On a fixed beat from the start, whatever each fault took: the seconds of play over
        # `every` say how many there are.
        kinds = list(self.actions)
        began = time.monotonic()
        count = 0
        while not self.stop.wait(max(0.0, began + (count + 1) * self.every - time.monotonic())):
            kind = kinds[count % len(kinds)]
            count += 1
            if not self.inject(kind):
                return

    def run_once(self, gap: float) -> None:
        """Each fault once, `gap` seconds after the previous one's window (the first after the
        start); returns `gap` seconds after the last window closed."""
        closed = time.time()
        for kind in self.actions:
            if self.stop.wait(max(0.0, closed + gap - time.time())) or not self.inject(kind):
                return
            closed = self.faults[-1].end + WINDOW_AFTER
        self.stop.wait(max(0.0, closed + gap - time.time()))

    def inject(self, kind: str) -> bool:
        """The fault `kind`, recorded with its window once its part is back: whether it could be
        injected (if not, `failure` says why)."""
        with self.lock:
            fault = Fault(kind, time.time())
            self.faults.append(fault)
            try:
                fault.note = self.actions[kind]()
            except Exception as exc:  # noqa: BLE001 (reported, and the run fails)
                self.failure = f"{kind}: {exc!r}"
                fault.end = time.time()
                return False
            fault.end = time.time()
        say(
            f"  {time.strftime('%H:%M:%S')} fault: {kind} ({fault.note}), back after"
            f" {fault.end - fault.start:.1f} s"
        )
        return True

    def finish(self, timeout: float = 30) -> None:
        """Both threads stopped (the supervisor too)."""
        self.stop.set()
        self.done.set()
        for thread in (self.thread, self.supervisor):
            if thread.is_alive():
                thread.join(timeout=timeout)

    def covering(self, at: float) -> Fault | None:
        """The fault whose window holds the time `at`, if any."""
        return next((f for f in self.faults if f.covers(at)), None)

    def judge(self, errors: list[tuple[float, str]]) -> list[str]:
        """The faults and the processes that ended by themselves, and `errors` (when, what: a
        5xx or a request unanswered) inside and outside the faults' windows, printed; the
        losses: a fault that could not be injected, and each error outside the windows."""
        losses = [f"a fault could not be injected: {self.failure}"] if self.failure else []
        inside = [(at, what) for at, what in errors if self.covering(at)]
        outside = [(at, what) for at, what in errors if not self.covering(at)]
        for at, what in outside:
            clock = time.strftime("%H:%M:%S", time.localtime(at))
            losses.append(f"outside the faults' windows, at {clock}: {what}")
        faults = self.faults
        exits = Counter(f"{name} (exit {code})" for _, name, code in self.exits)
        kinds = Counter(f.kind for f in faults)
        longest = {k: max(f.end - f.start for f in faults if f.kind == k) for k in kinds}
        say(
            f"  faults injected                {len(faults)}: "
            + ", ".join(f"{k} {n} (down at most {longest[k]:.1f} s)" for k, n in kinds.items())
        )
        say(
            "  ended by themselves            "
            + (", ".join(f"{what} {n}" for what, n in exits.items()) or "none")
            + " (each started again at once)"
        )
        say(
            f"  5xx or unanswered              {len(inside)} inside the windows,"
            f" {len(outside)} outside"
        )
        by_kind = Counter(next(f.kind for f in faults if f.covers(at)) for at, _ in inside)
        say("      by fault: " + (", ".join(f"{k} {n}" for k, n in by_kind.items()) or "-"))
        shapes = Counter(re.sub(r"[0-9a-f-]{36}", "<id>", what) for _, what in inside)
        for what, times in shapes.most_common(10):
            say(f"      inside: {times} x {what[:160]}")
        return losses
