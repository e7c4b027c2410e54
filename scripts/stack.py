"""The real stack's parts that the scripts which start it share (scripts/abuse.py, scripts/soak.py):
the site's environment, its processes (each in a process group of its own, stopped together and
restartable), an SMTP sink that keeps every message, and a keep-alive HTTP client with a token.
"""

from __future__ import annotations

import contextlib
import http.client
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

import bench_web  # noqa: E402  (scripts/: the secret key of the scripts' sites)

# Settings of the environment that would change the limits under test: the site's defaults.
LIMIT_SETTINGS = (
    "API_THROTTLE_ANON",
    "API_THROTTLE_USER",
    "THROTTLE_GAME_CREATE",
    "THROTTLE_GAME_JOIN",
    "THROTTLE_GAME_REMATCH",
    "THROTTLE_GAME_INVITE",
    "GAMES_MAX_COMPUTER_GAMES",
    "GAMES_MAX_LOBBY_GAMES",
    "GAMES_MAX_MASTER_GAMES",
    "LIVE_MAX_WAITS_PER_PLAYER",
    "ANALYSIS_MIN_PERSON_MOVES",
    "ANALYSIS_MAX_PENDING_PER_PLAYER",
    "ANALYSIS_SECONDS_PER_GAME",
)


def say(message: str) -> None:
    print(message, flush=True)


# -- the processes ---------------------------------------------------------------------------


class Smtp:
    """The SMTP sink: every message with the time it arrived."""

    def __init__(self) -> None:
        self.messages: list[tuple[float, list[str], bytes]] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            self.messages.append(
                (time.time(), [r.lower() for r in envelope.rcpt_tos], envelope.original_content)
            )
        return "250 Message accepted for delivery"

    def arrived(self, address: str) -> list[float]:
        with self.lock:
            return [at for at, to, _ in self.messages if address.lower() in to]


class Stack:
    """The processes of the site, each in a process group of its own, stopped together."""

    def __init__(self, env: dict[str, str], logs: Path) -> None:
        self.env, self.logs = env, logs
        self.processes: dict[str, subprocess.Popen] = {}
        self.commands: dict[str, tuple[list[str], dict[str, str]]] = {}

    def start(self, name: str, command: list[str], env: dict[str, str] | None = None) -> None:
        self.commands[name] = (command, env or self.env)
        # Appended to: a process started again keeps its earlier lines.
        with (self.logs / f"{name}.log").open("a") as out:
            self.processes[name] = subprocess.Popen(
                command,
                cwd=ROOT,
                env=env or self.env,
                stdout=out,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a group of its own: stopped with its children
            )

    def kill(self, name: str, signum: int = signal.SIGKILL) -> None:
        """Signals the process's whole group (a worker's pool, gunicorn's workers) and, for a
        kill, reaps it."""
        process = self.processes[name]
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signum)
        if signum in (signal.SIGKILL, signal.SIGTERM):
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=15)
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()

    def restart(self, name: str) -> None:
        """Starts a killed process again with its command and environment."""
        command, env = self.commands[name]
        self.start(name, command, env)

    def children(self, name: str) -> list[int]:
        """The pids whose parent is the process (gunicorn's workers), from /proc."""
        parent = self.processes[name].pid
        found = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                # The parent's pid is the 4th field after the command's ")" (which may hold spaces).
                stat = (entry / "stat").read_text()
                if int(stat.rsplit(")", 1)[1].split()[1]) == parent:
                    found.append(int(entry.name))
        return found

    def log(self, name: str) -> str:
        return (self.logs / f"{name}.log").read_text(errors="replace")

    def wait_ready(self, name: str, ready: Callable[[], bool], timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            process = self.processes[name]
            if process.poll() is not None or time.monotonic() > deadline:
                tail = "\n".join(self.log(name).splitlines()[-30:])
                raise SystemExit(f"{name} did not start:\n{tail}")
            time.sleep(0.2)

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(process.pid, signal.SIGTERM)
        deadline = time.monotonic() + 15
        for process in self.processes.values():
            with contextlib.suppress(subprocess.TimeoutExpired):
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            # The group: the prefork pool's children and gunicorn's workers as well.
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                say(f"  note: process {process.pid} did not stop")


def site_env(database_url: str, broker_url: str, cache_url: str, smtp_port: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in LIMIT_SETTINGS}
    env.update(
        DATABASE_URL=database_url,
        DEBUG="0",
        SECRET_KEY=bench_web.SECRET,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SITE_URL="http://127.0.0.1:8000",
        SECURE_SSL_REDIRECT="0",
        SECURE_COOKIES="0",
        SECURE_HSTS_SECONDS="0",
        LOG_LEVEL="INFO",  # the workers' "ready." and their tasks' lines are logged at INFO
        REDIS_URL=cache_url,
        CELERY_BROKER_URL=broker_url,
        CELERY_TASK_ALWAYS_EAGER="0",
        EMAIL_URL=f"smtp://127.0.0.1:{smtp_port}",
        # The invitations' grace period (where the site has one): off, so that an invitation's
        # email is due at once; its delay is measured from its due time all the same.
        NOTIFY_INVITATION_GRACE_SECONDS="0",
    )
    return env


# -- HTTP ---------------------------------------------------------------------------------------


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes

    @property
    def data(self) -> Any:
        try:
            return orjson.loads(self.body) if self.body else None
        except orjson.JSONDecodeError:
            return None

    @property
    def code(self) -> str:
        data = self.data
        return str(data.get("code", "")) if isinstance(data, dict) else ""


class Http:
    """One keep-alive connection to the site, with a player's token; one per thread."""

    def __init__(self, port: int, token: str) -> None:
        self.port, self.token = port, token
        self.conn: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, body: Any = None, *, attempts: int = 2) -> Reply:
        """The answer; a connection that failed is opened again and the request sent again, up
        to `attempts` times in all (a keep-alive connection the server closed meanwhile)."""
        headers = {"Authorization": f"Token {self.token}", "Accept": "application/json"}
        payload = None
        if body is not None or method == "POST":
            payload = orjson.dumps(body if body is not None else {})
            headers["Content-Type"] = "application/json"
        for attempt in range(1, attempts + 1):
            try:
                if self.conn is None:
                    self.conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=90)
                self.conn.request(method, path, body=payload, headers=headers)
                response = self.conn.getresponse()
                data = response.read()
                found = {k.lower(): v for k, v in response.getheaders()}
                if found.get("connection", "").lower() == "close":
                    self.conn.close()
                    self.conn = None
                return Reply(response.status, found, data)
            except (http.client.HTTPException, OSError):
                if self.conn is not None:
                    self.conn.close()
                self.conn = None
                if attempt == attempts:
                    raise
        raise RuntimeError("unreachable")


def plain_get(port: int, path: str, headers: dict[str, str], timeout: float = 30) -> Reply:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("GET", path, headers=headers)
        response = conn.getresponse()
        return Reply(response.status, dict(response.getheaders()), response.read())
    finally:
        conn.close()
