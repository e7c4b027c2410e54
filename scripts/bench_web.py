"""Web-layer benchmark: gunicorn on PostgreSQL, measured from a loopback load generator.

    python scripts/bench_web.py            # or: make bench-web

Creates (if needed) and migrates a dedicated database (`azul_bench`, or BENCH_DATABASE_URL),
seeds players and games through the services, starts gunicorn with DEBUG off, then measures
requests per second and p50/p95 latency, each with CONCURRENCY client threads, for:

- the trivial view (`/healthz`, one `SELECT 1`): the baseline,
- the board page of a long game (session login),
- the game detail API of the same game (token auth),
- move submission: each client thread is a pair of players with their own games, posting legal
  moves with the right `expected_ply` (token auth) and starting its next game when one ends.

The scenarios take turns in rounds (`--rounds`), so that a drift in the machine's speed during
the run does not favour one of them; each prints the totals of its slices.

Targets: the board page and the game API cost at most 4x the trivial view, move submission at
most 6x (by p50 latency and by server CPU per request); move submission p95 under 50 ms with 8
concurrent players.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlparse

import orjson

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/azul_bench"
# As in production, the cache (sessions, games, board markup, throttles) is Redis, shared by the
# workers; a database of its own, emptied before each run.
DEFAULT_REDIS = "redis://127.0.0.1:6379/14"
SECRET = "bench-only-secret-key-not-for-production-0123456789abcdef"


def server_env(database_url: str, redis_url: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        DATABASE_URL=database_url,
        DEBUG="0",
        SECRET_KEY=SECRET,
        ALLOWED_HOSTS="127.0.0.1,localhost",
        SECURE_SSL_REDIRECT="0",
        SECURE_COOKIES="0",
        SECURE_HSTS_SECONDS="0",
        LOG_LEVEL="WARNING",
        EMAIL_URL="dummymail://",
        # As in production, per second: DRF's throttle costs a request in proportion to the
        # requests of the window, and a per-minute rate would make it the bench's bottleneck.
        API_THROTTLE_USER="100000/second",
        API_THROTTLE_ANON="10000000/minute",
        # As in production: tasks (the next player's email) go to the broker after each move;
        # no worker takes them here, and the queue is emptied with the database at the start.
        CELERY_TASK_ALWAYS_EAGER="0",
        REDIS_URL=redis_url,
        CELERY_BROKER_URL=redis_url,
    )
    return env


def ensure_database(database_url: str) -> None:
    import psycopg

    parsed = urlparse(database_url)
    name = parsed.path.lstrip("/")
    admin = parsed._replace(path="/postgres").geturl()
    with psycopg.connect(admin, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def vacuum(database_url: str) -> None:
    """Clean up after seeding (which deletes the last run's games), so that autovacuum does not
    do it during a scenario and count as PostgreSQL's cost of those requests."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


# -- seeding (in this process, through the services) ---------------------------------------------


@dataclass
class Seed:
    long_game: str
    long_ply: int
    session_cookie: str
    watcher_token: str
    # Per client thread: {username: token} and the ids of that pair's games.
    pairs: list[tuple[dict[str, str], list[str]]] = field(default_factory=list)


def bench_user(name: str):
    """A verified player for the benchmarks (after `django.setup()`)."""
    from allauth.account.models import EmailAddress
    from django.contrib.auth import get_user_model

    u, _ = get_user_model().objects.get_or_create(
        username=name, defaults={"email": f"{name}@bench.test"}
    )
    EmailAddress.objects.get_or_create(
        user=u, email=u.email, defaults={"primary": True, "verified": True}
    )
    return u


def bench_session(user) -> str:
    """The key of a new signed-in session of `user`, for a page's session cookie."""
    from django.conf import settings
    from django.contrib.sessions.backends.db import SessionStore

    store = SessionStore()
    store["_auth_user_id"] = str(user.pk)
    store["_auth_user_backend"] = settings.AUTHENTICATION_BACKENDS[-1]
    store["_auth_user_hash"] = user.get_session_auth_hash()
    store.create()
    return store.session_key


def seed(concurrency: int, games_per_pair: int, long_moves: int) -> Seed:
    import django

    django.setup()
    import azul
    from accounts.services import token_create
    from games import selectors, services
    from games.models import Game

    Game.objects.all().delete()

    user = bench_user

    def start(a, b) -> Game:
        game = services.game_create(
            creator=a,
            num_players=2,
            variant="colored",
            days_per_move=3,
            seats=[services.SeatSpec(kind="invite", username=b.username)],
        )
        services.invitation_respond(game_id=game.id, user=b, accept=True)
        return selectors.game_get(game_id=game.id)

    rng = random.Random(1)
    watcher = user("bench_watcher")
    a, b = user("bench_long_a"), user("bench_long_b")
    long_game = start(a, b)
    by_seat = {s.position: s.user for s in long_game.seats.all()}
    for _ in range(long_moves):
        game = selectors.game_get(game_id=long_game.id)
        state = azul.State.from_dict(game.state)
        if game.status != Game.Status.ACTIVE or not state.to_move:
            break
        position = state.to_move[0]
        move = str(azul.random_move(state, rng, position))
        services.move_submit(
            game_id=game.id, user=by_seat[position], move=move, expected_ply=game.ply
        )
    long_game = selectors.game_get(game_id=long_game.id)

    def token(u) -> str:
        # Runs share players: each run's token replaces the last, within the limit per player.
        u.api_tokens.all().delete()
        return token_create(user=u, name="bench")[1]

    result = Seed(
        long_game=str(long_game.id),
        long_ply=long_game.ply,
        session_cookie=bench_session(watcher),
        watcher_token=token(watcher),
    )
    for i in range(concurrency):
        p, q = user(f"bench_p{i}a"), user(f"bench_p{i}b")
        games = [str(start(p, q).id) for _ in range(games_per_pair)]
        result.pairs.append(({p.username: token(p), q.username: token(q)}, games))
    return result


# -- load generation -------------------------------------------------------------------------


class Client:
    """HTTP/1.1 on one connection at a time, kept alive while the server allows, sending back the
    cookies the server set (as a browser sends its CSRF cookie).

    Written on a socket: the standard library's client parses every response's headers with the
    email package, which costs the load generator, on the same two cores as the server, more than
    the rest of its work."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.sock: socket.socket | None = None
        self.buffer = b""
        self.cookies: dict[str, str] = {}

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
        self.sock, self.buffer = None, b""

    def request(
        self, method: str, path: str, headers: dict[str, str], body: bytes | None = None
    ) -> tuple[int, bytes, float]:
        lines = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{self.port}"]
        lines += [f"{name}: {value}" for name, value in headers.items() if name != "Cookie"]
        jar = [headers["Cookie"]] if "Cookie" in headers else []
        jar += [f"{name}={value}" for name, value in self.cookies.items()]
        if jar:
            lines.append(f"Cookie: {'; '.join(jar)}")
        if body is not None:
            lines.append(f"Content-Length: {len(body)}")
        message = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + (body or b"")
        for attempt in (1, 2):
            started = time.perf_counter()
            try:
                if self.sock is None:
                    self.sock = socket.create_connection(("127.0.0.1", self.port), timeout=30)
                    self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.sock.sendall(message)
                status, response_headers, data = self._response()
            except (ConnectionError, OSError):
                self.close()  # a kept-alive connection the server had closed: once more
                if attempt == 2:
                    raise
                continue
            elapsed = time.perf_counter() - started
            for name, value in response_headers:
                if name == "set-cookie":
                    cookie, _, cookie_value = value.split(";", 1)[0].partition("=")
                    self.cookies[cookie.strip()] = cookie_value
                elif name == "connection" and value.lower() == "close":
                    self.close()
            return status, data, elapsed
        raise RuntimeError("unreachable")

    def _receive(self) -> bytes:
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        return chunk

    def _response(self) -> tuple[int, list[tuple[str, str]], bytes]:
        data = self.buffer
        while b"\r\n\r\n" not in data:
            data += self._receive()
        head, _, data = data.partition(b"\r\n\r\n")
        status_line, *header_lines = head.decode("latin-1").split("\r\n")
        headers = [
            (name.strip().lower(), value.strip())
            for name, _, value in (line.partition(":") for line in header_lines)
        ]
        found = dict(headers)
        if "content-length" not in found:  # Django always sets it for these responses
            raise ValueError(f"no Content-Length in the response to {status_line!r}")
        length = int(found["content-length"])
        while len(data) < length:
            data += self._receive()
        self.buffer = data[length:]
        return int(status_line.split(" ", 2)[1]), headers, data[:length]


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
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000 if ordered else 0.0


def run_get(name, port, path, headers, concurrency, seconds, max_requests) -> Result:
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

    started = time.perf_counter()
    threads = [threading.Thread(target=worker) for _ in range(concurrency)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return Result(name, latencies, time.perf_counter() - started, errors[0])


class MovingPair:
    """Two players with their own games, moving in turn with the right `expected_ply` (token
    auth) and starting their next game when one ends; carries on from round to round."""

    def __init__(self, port: int, tokens: dict[str, str], games: list[str], seed: int) -> None:
        self.tokens, self.games = tokens, iter(games)
        self.rng = random.Random(seed)
        self.client = Client(port)
        self.game_id: str | None = None
        self.view: dict = {"status": "not started"}
        self.state = None  # the engine's state of the game, as the last answer shows it

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

    started = time.perf_counter()
    threads = [threading.Thread(target=pair.play, args=(take_turn, record)) for pair in pairs]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return Result("move submission (POST)", latencies, time.perf_counter() - started, errors[0])


def start_gunicorn(port: int, env: dict[str, str], *options: str) -> subprocess.Popen:
    """The site under gunicorn, as deployed (gunicorn.conf.py), on the loopback `port`."""
    gunicorn = Path(sys.executable).with_name("gunicorn")
    return subprocess.Popen(
        [
            str(gunicorn),
            "azul_site.wsgi",
            "--config",
            str(ROOT / "gunicorn.conf.py"),
            "--bind",
            f"127.0.0.1:{port}",
            "--log-level",
            "warning",
            *options,
        ],
        cwd=ROOT,
        env=env,
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, timeout: float = 30) -> None:
    end = time.time() + timeout
    while time.time() < end:
        try:
            status, _, _ = Client(port).request("GET", "/healthz", {})
            if status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise SystemExit("gunicorn did not answer /healthz in time")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--seconds", type=float, default=8.0, help="per scenario, in all")
    parser.add_argument("--max-requests", type=int, default=4000, help="per scenario, in all")
    parser.add_argument(
        "--rounds", type=int, default=4, help="the scenarios run in turn, this many times"
    )
    parser.add_argument("--workers", type=int, help="default: gunicorn.conf.py's")
    parser.add_argument("--threads", type=int, help="default: gunicorn.conf.py's")
    parser.add_argument("--long-moves", type=int, default=120)
    args = parser.parse_args()

    database_url = os.environ.get("BENCH_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_REDIS_URL", DEFAULT_REDIS)
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    env = server_env(database_url, redis_url)
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "azul_site.settings")
    ensure_database(database_url)
    python = sys.executable
    subprocess.run(
        [python, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    subprocess.run(
        [python, "manage.py", "collectstatic", "--noinput", "-v0"], cwd=ROOT, env=env, check=True
    )
    print(f"Seeding {database_url} ...", flush=True)
    data = seed(args.concurrency, games_per_pair=8, long_moves=args.long_moves)
    vacuum(database_url)

    port = free_port()
    server = start_gunicorn(
        port,
        env,
        *(["--workers", str(args.workers)] if args.workers else []),
        *(["--threads", str(args.threads)] if args.threads else []),
    )
    try:
        wait_for(port)
        board = f"/games/{data.long_game}/"
        session = {"Cookie": f"sessionid={data.session_cookie}"}
        token = {"Authorization": f"Token {data.watcher_token}"}
        # Warm every worker's imports, templates and connections before measuring.
        run_get("warm", port, board, session, args.concurrency, 2, 200)
        run_get("warm", port, f"/api/games/{data.long_game}/", token, args.concurrency, 2, 200)
        # The scenarios take turns, a slice each per round, so that a change in the machine's
        # speed during the run (seen here: a third either way within a minute) weighs on all of
        # them alike rather than on whichever ran then.
        per_round = (args.concurrency, args.seconds / args.rounds, args.max_requests // args.rounds)
        pairs = [
            MovingPair(port, tokens, games, seed=index)
            for index, (tokens, games) in enumerate(data.pairs)
        ]
        scenarios = [
            lambda: run_get("trivial view (/healthz)", port, "/healthz", {}, *per_round),
            lambda: run_get(
                f"board page ({data.long_ply} log entries)", port, board, session, *per_round
            ),
            lambda: run_get(
                "game detail API (GET)", port, f"/api/games/{data.long_game}/", token, *per_round
            ),
            lambda: run_moves(pairs, *per_round[1:]),
        ]
        results: list[Result] = []
        for round_number in range(args.rounds):
            for index, scenario in enumerate(scenarios):
                cpu_before, own_before = server_cpu_seconds(), time.process_time()
                result = scenario()
                cpu_after, own_after = server_cpu_seconds(), time.process_time()
                result.server_cpu = {p: cpu_after[p] - cpu_before[p] for p in SERVER_PROGRAMS}
                result.server_cpu[LOAD_GENERATOR] = own_after - own_before
                if round_number == 0:
                    results.append(result)
                else:
                    results[index].add(result)
    finally:
        server.terminate()
        server.wait(timeout=20)

    base = results[0].pct(0.5) or 1e-9
    config: dict = {}
    exec((ROOT / "gunicorn.conf.py").read_text(), config)
    workers, threads = args.workers or config["workers"], args.threads or config["threads"]
    print(
        f"\ngunicorn {workers} workers x {threads} threads, {args.concurrency} concurrent clients,"
        f" {os.cpu_count()} CPUs, PostgreSQL, Redis cache, DEBUG=0\n"
    )
    cpu_base = results[0].cpu_ms_per_request or 1e-9
    header = f"{'scenario':<36} {'requests':>8} {'errors':>6} {'req/s':>8} {'p50 ms':>8}"
    header += f" {'p95 ms':>8} {'x trivial':>9} {'CPU ms/req':>10} {'x trivial':>9}"
    print(header)
    print("-" * len(header))
    for r in results:
        print(
            f"{r.name:<36} {len(r.latencies):>8} {r.errors:>6} {r.rps:>8.0f} {r.pct(0.5):>8.1f}"
            f" {r.pct(0.95):>8.1f} {r.pct(0.5) / base:>9.1f}"
            f" {r.cpu_ms_per_request:>10.2f} {r.cpu_ms_per_request / cpu_base:>9.1f}"
        )
    print("\nCPU ms per request, by program (the load generator's own is not the server's):")
    programs = (*SERVER_PROGRAMS, LOAD_GENERATOR)
    print(f"{'scenario':<36}" + "".join(f" {p:>14}" for p in programs))
    for r in results:
        print(f"{r.name:<36}" + "".join(f" {r.cpu_ms(p):>14.2f}" for p in programs))
    moves_r = results[3]
    print(
        "\n(x trivial: by p50 latency, then by server CPU per request: gunicorn, PostgreSQL and"
        " Redis processes, without the load generator)"
    )
    print()
    targets = [(results[1], 4), (results[2], 4), (results[3], 6)]
    for r, times in targets:
        for measure, value, baseline in (
            ("p50", r.pct(0.5), base),
            ("server CPU", r.cpu_ms_per_request, cpu_base),
        ):
            verdict = "ok" if value <= times * baseline else "MISSED"
            ratio = value / baseline
            print(f"{r.name} {measure} {ratio:.1f}x trivial (target <= {times}x): {verdict}")
    print(
        f"move submission p95 {moves_r.pct(0.95):.1f} ms (target < 50 ms): "
        f"{'ok' if moves_r.pct(0.95) < 50 else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
