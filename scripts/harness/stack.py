"""Starting the stack: the site's environment, its PostgreSQL database and Redis, and its processes
(gunicorn, the live process, Celery workers, the sweeps, a Redis of its own), each in a process
group of its own (stopped with its children), restartable, their output in a log file each.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import resource
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from harness import ROOT
from harness.clients import healthy
from harness.report import say

BIN = Path(sys.executable).parent
SECRET = "bench-only-secret-key-not-for-production-0123456789abcdef"
# The web benchmarks' Redis (BENCH_REDIS_URL): as in production, the cache (sessions, games,
# board markup, throttles) is Redis, shared by the workers; a database of its own, emptied
# before each run.
BENCH_REDIS = "redis://127.0.0.1:6379/14"

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


# -- environments ----------------------------------------------------------------------------------


def base_env(database_url: str, *, drop: Iterable[str] = (), **values: str) -> dict[str, str]:
    """This process's environment (less `drop`) with production's settings on `database_url`:
    DEBUG off, the scripts' secret key, tasks sent to a broker, mail to a dummy backend; then
    `values`."""
    dropped = set(drop)
    env = {k: v for k, v in os.environ.items() if k not in dropped}
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
        CELERY_TASK_ALWAYS_EAGER="0",
    )
    env.update(values)
    return env


def bench_env(database_url: str, redis_url: str) -> dict[str, str]:
    """The web benchmarks' site: the cache and the broker on `redis_url` (as in production: tasks
    go to the broker after each move; no worker takes them, and the queue is emptied with the
    database at the start)."""
    return base_env(
        database_url,
        # As in production, per second: DRF's throttle costs a request in proportion to the
        # requests of the window, and a per-minute rate would make it the bench's bottleneck.
        API_THROTTLE_USER="100000/second",
        API_THROTTLE_ANON="10000000/minute",
        REDIS_URL=redis_url,
        CELERY_BROKER_URL=redis_url,
    )


def stack_env(database_url: str, broker_url: str, cache_url: str, smtp_port: int) -> dict[str, str]:
    """The whole stack's site (the soak, the abuse run): the site's own limits, mail to the SMTP
    sink on `smtp_port`."""
    return base_env(
        database_url,
        drop=LIMIT_SETTINGS,
        SITE_URL="http://127.0.0.1:8000",
        LOG_LEVEL="INFO",  # the workers' "ready." and their tasks' lines are logged at INFO
        REDIS_URL=cache_url,
        CELERY_BROKER_URL=broker_url,
        EMAIL_URL=f"smtp://127.0.0.1:{smtp_port}",
        # The invitations' grace period (where the site has one): off, so that an invitation's
        # email is due at once; its delay is measured from its due time all the same.
        NOTIFY_INVITATION_GRACE_SECONDS="0",
    )


def outbound_env() -> dict[str, str]:
    """The devices' push endpoint and the webhooks served here (sinks.ReachSink), over HTTP on
    127.0.0.1: allowed for this site only."""
    return {"OUTBOUND_ALLOW_HTTP": "1", "OUTBOUND_ALLOWED_NETWORKS": "127.0.0.1/32"}


def django_setup(env: dict[str, str], **overrides: str) -> None:
    """This process as the site (`env`, then `overrides`), Django set up."""
    os.environ.update(env, **overrides)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "azul_site.settings")
    import django

    django.setup()


# -- the database and Redis ------------------------------------------------------------------------


def _admin(database_url: str) -> tuple[str, str]:
    parsed = urlparse(database_url)
    return parsed.path.lstrip("/"), parsed._replace(path="/postgres").geturl()


# A fresh database is a copy of one migrated once (`CREATE DATABASE ... TEMPLATE`), not migrated
# again: `manage.py migrate` of the site's migrations costs about 7 CPU-seconds (20 s on a loaded
# two-core machine) and the soak, the abuse run, `make bench-reach` and the benchmarks' first run
# each make a fresh database (and their tests in the suite); the copy takes a fraction of a second.
# The template is named for what decides the migrated schema (TEMPLATE_PREFIX + migrations_key()):
# a change of a migration or of a locked package makes a new one, and the others are dropped.
TEMPLATE_PREFIX = "azul_template_"
# The advisory lock held while a template is made (two processes at once make it once).
TEMPLATE_LOCK = 0x617A756C  # "azul"


def migrations_key() -> str:
    """A hash of the project's migration files and of the packages' versions (Django's own
    migrations and its apps' come with their versions): what the migrated schema follows."""
    digest = hashlib.sha256()
    for path in sorted(ROOT.glob("*/migrations/*.py")):
        digest.update(f"{path.relative_to(ROOT)}\0".encode())
        digest.update(path.read_bytes())
    digest.update(installed_packages())
    return digest.hexdigest()[:16]


def installed_packages() -> bytes:
    """The packages' versions, as the lock every install takes has them (`make venv`); reading
    the installed ones' metadata took a second."""
    return (ROOT / "requirements" / "dev-lock.txt").read_bytes()


def _exists(conn: Any, name: str) -> bool:
    return bool(conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone())


def template_database(database_url: str, env: dict[str, str] | None = None) -> str:
    """The name of the migrated template on `database_url`'s server, made first if it is not
    there (migrated with `env`, the site's environment, on it; by default base_env's): under an
    advisory lock, as `<name>_building` renamed when done, so that a template that exists is
    complete; the templates of other keys dropped then."""
    import psycopg

    _, admin = _admin(database_url)
    name = TEMPLATE_PREFIX + migrations_key()
    with psycopg.connect(admin, autocommit=True) as conn:
        if _exists(conn, name):
            return name
        conn.execute("SELECT pg_advisory_lock(%s)", [TEMPLATE_LOCK])
        try:
            if not _exists(conn, name):
                building = f"{name}_building"
                conn.execute(f'DROP DATABASE IF EXISTS "{building}" WITH (FORCE)')
                conn.execute(f'CREATE DATABASE "{building}"')
                url = urlparse(database_url)._replace(path=f"/{building}").geturl()
                manage(dict(env or base_env(url), DATABASE_URL=url), "migrate", "--noinput", "-v0")
                conn.execute(f'ALTER DATABASE "{building}" RENAME TO "{name}"')
                stale = conn.execute(
                    "SELECT datname FROM pg_database WHERE datname LIKE %s AND datname <> %s",
                    [TEMPLATE_PREFIX.replace("_", r"\_") + "%", name],
                ).fetchall()
                for (old,) in stale:
                    conn.execute(f'DROP DATABASE IF EXISTS "{old}" WITH (FORCE)')
        finally:
            conn.execute("SELECT pg_advisory_unlock(%s)", [TEMPLATE_LOCK])
    return name


def _create_migrated(conn: Any, database_url: str, env: dict[str, str] | None) -> None:
    """The database created as a copy of the template, which its comment names (`migrated`)."""
    name, _ = _admin(database_url)
    template = template_database(database_url, env)
    conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{template}"')
    conn.execute(f"COMMENT ON DATABASE \"{name}\" IS 'copy of {template}'")


def migrated(database_url: str) -> bool:
    """Whether the database is a copy of the current template (its comment says so): no need to
    migrate it again (a no-op `migrate` costs a process's start, 2-3 CPU-seconds, and the
    benchmarks share one database in the suite). Migrations undone by hand are not seen."""
    import psycopg

    name, admin = _admin(database_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        found = conn.execute(
            "SELECT shobj_description(oid, 'pg_database') FROM pg_database WHERE datname = %s",
            [name],
        ).fetchone()
    return found is not None and found[0] == f"copy of {TEMPLATE_PREFIX}{migrations_key()}"


def ensure_database(database_url: str, env: dict[str, str] | None = None) -> bool:
    """The database created, migrated (a copy of the template), unless it exists: whether it
    was."""
    import psycopg

    name, admin = _admin(database_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        if _exists(conn, name):
            return False
        _create_migrated(conn, database_url, env)
        return True


def recreate_database(
    database_url: str, *, drop_only: bool = False, env: dict[str, str] | None = None
) -> None:
    """The database dropped (whoever is connected) and, unless `drop_only`, created again,
    migrated (a copy of the template; `env` to make the template if need be)."""
    import psycopg

    name, admin = _admin(database_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        if not drop_only:
            _create_migrated(conn, database_url, env)


def vacuum(database_url: str) -> None:
    """Clean up after seeding (which deletes the last run's games), so that autovacuum does not
    do it during a scenario and count as PostgreSQL's cost of those requests."""
    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        conn.execute("VACUUM ANALYZE")


def terminate_backends(database_url: str) -> int:
    """Every connection to the database terminated (as a failover does): how many."""
    import psycopg

    name, admin = _admin(database_url)
    with psycopg.connect(admin, autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
            " WHERE datname = %s AND pid <> pg_backend_pid()",
            [name],
        ).fetchall()
    return sum(1 for (done,) in rows if done)


def manage(env: dict[str, str], *args: str, **options: Any) -> subprocess.CompletedProcess:
    """`manage.py <args>` in a process of its own, with the site's environment."""
    options.setdefault("check", True)
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, **options)


def prepare(
    env: dict[str, str],
    *,
    recreate: bool = False,
    flush: bool = False,
    collectstatic: bool = False,
) -> None:
    """The database of `env` created (or dropped and created again) as a copy of the migrated
    template, or migrated when it was there already and is not such a copy (made by an earlier
    version, maybe); then emptied (`flush`) and the static files collected, if asked."""
    database_url = env["DATABASE_URL"]
    if recreate:
        recreate_database(database_url, env=env)
        created = True
    else:
        created = ensure_database(database_url, env)
        if not created and not migrated(database_url):
            manage(env, "migrate", "--noinput", "-v0")
    if flush and not created:  # a new copy of the template holds nothing to empty
        manage(env, "flush", "--noinput", "-v0")
    if collectstatic:
        collect_static(env)


def static_key() -> str:
    """A hash of what `collectstatic` makes STATIC_ROOT from: the project's static files, the
    locked packages (theirs), the settings and the storage that hashes and compresses."""
    digest = hashlib.sha256()
    sources = [p for p in (ROOT / "static").rglob("*") if p.is_file()]
    sources += [p for p in ROOT.glob("*/static/**/*") if p.is_file()]
    sources += [ROOT / "core" / "pages" / "storage.py", *ROOT.glob("azul_site/settings/*.py")]
    for path in sorted(sources):
        digest.update(f"{path.relative_to(ROOT)}\0".encode())
        digest.update(path.read_bytes())
    digest.update(installed_packages())
    return digest.hexdigest()


def collect_static(env: dict[str, str]) -> None:
    """`manage.py collectstatic` into the STATIC_ROOT of `env`, unless the files there were
    collected from the same sources (static_key(), kept in a stamp file beside them): the
    compressed, hashed-name storage compresses every file again on each run, 5.5 CPU-seconds
    (measured), which `make bench-web`, `bench-history` and `bench-live` paid in turn."""
    root = ROOT / env.get("STATIC_ROOT", "staticfiles")  # as the settings take it
    stamp, key = root / ".collected-from", static_key()
    if stamp.exists() and stamp.read_text() == key:
        return
    manage(env, "collectstatic", "--noinput", "-v0")
    stamp.write_text(key)


def flush_redis(*urls: str) -> None:
    import redis

    for url in urls:
        redis.Redis.from_url(url).flushdb()


def vapid_env(env: dict[str, str]) -> dict[str, str]:
    """A VAPID key pair for this run, as `manage.py vapid_keys` prints it: the command's own
    `key_pair()`, in this process (the command in a process of its own imported the site, 2-3 s
    of each run's start), and the subject it gives (`env`'s, or the site's contact's)."""
    from notifications.management.commands.vapid_keys import key_pair

    public, private = key_pair()
    contact = env.get("CONTACT_EMAIL") or "contact@localhost"  # the settings' default
    return {
        "WEBPUSH_VAPID_PUBLIC_KEY": public,
        "WEBPUSH_VAPID_PRIVATE_KEY": private,
        "WEBPUSH_VAPID_SUBJECT": env.get("WEBPUSH_VAPID_SUBJECT") or f"mailto:{contact}",
    }


# -- this process ----------------------------------------------------------------------------------


def stop_on_signals() -> None:
    """Ctrl-C, a TERM and a HUP alike raise KeyboardInterrupt, so that a script's `finally`
    stops everything it started. (SIGINT too: a shell starts a background job with it ignored.)"""

    def interrupted(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP):
        signal.signal(signum, interrupted)


def most_files() -> None:
    """As many open files as the system allows this process: thousands of sockets."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def gunicorn_config() -> dict[str, Any]:
    """gunicorn.conf.py's settings (workers, threads)."""
    config: dict[str, Any] = {}
    exec((ROOT / "gunicorn.conf.py").read_text(), config)
    return config


# -- the processes ---------------------------------------------------------------------------------

# The workers, as the Makefile's `worker-*` targets and docker-compose.yml run them.
WORKERS = {
    "moves": ["-Q", "moves,celery", "-n", "moves@%h"],
    "slow": ["-Q", "slow_moves", "--concurrency", "1", "-n", "slow@%h"],
    "master": ["-Q", "master_moves", "--concurrency", "1", "-n", "master@%h"],
    "mail": ["-Q", "mail", "--concurrency", "2", "-n", "mail@%h"],
    "sweeps": ["-Q", "sweeps", "--concurrency", "2", "-n", "sweeps@%h"],
    "analysis": ["-Q", "analysis", "--concurrency", "1", "-n", "analysis@%h"],
}
NICE = {"analysis": 10}
# One worker of every queue instead (`make worker`'s, named).
EVERY_QUEUE = ["-Q", "moves,celery,slow_moves,master_moves,mail,sweeps,analysis", "-n", "soak@%h"]

# The live process as deployed (docker-compose.yml): gunicorn.conf.py with one uvicorn worker,
# LiveWorker, which answers its waits at once on SIGTERM (uvicorn's own waited out gunicorn's
# graceful timeout for them: 15 s of every run that stopped with waits open, before its SIGKILL).
LIVE_ENV = {"GUNICORN_WORKER_CLASS": "azul_site.live_worker.LiveWorker", "WEB_CONCURRENCY": "1"}


class Stack:
    """The processes of the site, each in a process group of its own, stopped together; each
    one's output in `logs/<name>.log` (a temporary folder unless given)."""

    def __init__(self, env: dict[str, str], logs: Path | None = None, prefix: str = "") -> None:
        self.env = env
        self.logs = logs or Path(tempfile.mkdtemp(prefix=prefix or "stack_"))
        self.processes: dict[str, subprocess.Popen] = {}
        self.commands: dict[str, tuple[list[str], dict[str, str]]] = {}

    def __enter__(self) -> Stack:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def pid(self, name: str) -> int:
        return self.processes[name].pid

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

    def start_or_restart(self, name: str, command: list[str], env: dict[str, str] | None = None):
        """Started with `command`, or again with the command it was first started with."""
        if name in self.commands:
            self.restart(name)
        else:
            self.start(name, command, env)

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

    def log_path(self, name: str) -> Path:
        return self.logs / f"{name}.log"

    def log(self, name: str) -> str:
        return self.log_path(name).read_text(errors="replace")

    def log_size(self, name: str) -> int:
        path = self.log_path(name)
        return path.stat().st_size if path.exists() else 0

    def wait_ready(self, name: str, ready: Callable[[], bool], timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while not ready():
            process = self.processes[name]
            if process.poll() is not None or time.monotonic() > deadline:
                tail = "\n".join(self.log(name).splitlines()[-30:])
                raise SystemExit(f"{name} did not start:\n{tail}")
            time.sleep(0.1)

    def wait_for_line(self, name: str, text: str, after: int = 0, timeout: float = 90) -> None:
        """Waits for `text` in the process's log beyond its first `after` bytes (a process started
        again appends to its log)."""
        self.wait_ready(name, lambda: text in self.log(name)[after:], timeout)

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

    # The site's parts, as deployed (README, "Serving"; the Makefile's `worker-*` targets).

    def site(
        self,
        port: int,
        *options: str,
        name: str = "web",
        app: str = "azul_site.wsgi",
        env: dict[str, str] | None = None,
        wait: bool = True,
    ) -> None:
        """gunicorn with gunicorn.conf.py on the loopback `port`; `wait`: until /healthz answers."""
        command = [str(BIN / "gunicorn"), app, "--config", str(ROOT / "gunicorn.conf.py")]
        self.start_or_restart(name, [*command, "--bind", f"127.0.0.1:{port}", *options], env)
        if wait:
            self.wait_healthy(name, port)

    def live(self, port: int, *options: str, name: str = "live", wait: bool = True) -> None:
        """The live process: gunicorn with one uvicorn worker (azul_site/asgi.py)."""
        env = dict(self.env, **LIVE_ENV)
        self.site(port, *options, name=name, app="azul_site.asgi:application", env=env, wait=wait)

    def wait_healthy(self, name: str, port: int, timeout: float = 60) -> None:
        self.wait_ready(name, lambda: healthy(port), timeout)

    def worker(
        self,
        name: str,
        *options: str,
        nice: int = 0,
        wait: bool = True,
        timeout: float = 90,
    ) -> None:
        """A Celery worker (`celery -A azul_site worker <options> --loglevel=INFO`), or the same
        again; `wait`: until it logs "ready."."""
        after = self.log_size(name)
        command = [str(BIN / "celery"), "-A", "azul_site", "worker", *options, "--loglevel=INFO"]
        if nice:
            command = ["nice", "-n", str(nice), *command]
        self.start_or_restart(name, command)
        if wait:
            self.wait_for_line(name, "ready.", after, timeout)

    def workers(self) -> None:
        """One worker per queue (WORKERS), started together; back when each is ready."""
        for name, options in WORKERS.items():
            self.worker(name, *options, nice=NICE.get(name, 0), wait=False)
        for name in WORKERS:
            self.wait_for_line(name, "ready.")

    def sweeps(self, every: float, name: str = "sweep") -> None:
        """`manage.py sweep --every <every>`, as `make run` does with 60."""
        self.start_or_restart(name, [sys.executable, "manage.py", "sweep", "--every", f"{every:g}"])

    def redis(self, port: int, name: str = "redis") -> None:
        """A redis-server of this stack's own on `port`, keeping nothing on disk: stopped, it
        comes back empty, as one that lost its data does."""
        import redis

        command = ["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", ""]
        command += ["--appendonly", "no", "--dir", str(self.logs)]
        self.start_or_restart(name, command)
        client = redis.Redis(port=port, socket_timeout=1)
        self.wait_ready(name, lambda: ping(client), 30)


def ping(client: Any) -> bool:
    try:
        return bool(client.ping())
    except Exception:  # noqa: BLE001 (not up yet)
        return False


# -- beat, and what the workers did ----------------------------------------------------------------


class Sweeper:
    """Sends the minute's sweeps as beat does (the schedule's task names and options)."""

    def __init__(self, every: float) -> None:
        from django.conf import settings

        from azul_site.celery import app

        self.app, self.every = app, every
        self.tasks = [
            (entry["task"], entry.get("options", {}))
            for entry in settings.CELERY_BEAT_SCHEDULE.values()
            if entry["task"] in ("games.tasks.sweep", "notifications.tasks.sweep")
        ]
        self.sent: list[tuple[str, str, float]] = []
        self.stop = threading.Event()
        self.thread: threading.Thread | None = None

    def run(self, sent: list[tuple[str, str, float]]) -> None:
        """Sends them every `every` seconds until `halt()`, each noted in `sent` as (task, id,
        sent at)."""

        def loop() -> None:
            while not self.stop.is_set():
                for name, options in self.tasks:
                    at = time.time()
                    result = self.app.send_task(name, **options)
                    sent.append((name, result.id, at))
                self.stop.wait(self.every)

        self.stop.clear()
        self.thread = threading.Thread(target=loop, daemon=True)
        self.thread.start()

    def halt(self) -> None:
        self.stop.set()
        if self.thread:
            self.thread.join(timeout=5)


TASK_LINE = re.compile(
    r"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}).*?Task \S+\[([0-9a-f-]{36})\] "
    r"(?:received|succeeded in ([0-9.e-]+)s)"
)


def task_times(log: str) -> dict[str, tuple[float | None, float | None]]:
    """Per task id, from a worker's log: (start, end) as epoch seconds; the start is
    the end less the run time the worker reports."""
    found: dict[str, tuple[float | None, float | None]] = {}
    for line in log.splitlines():
        match = TASK_LINE.search(line)
        if not match or match.group(3) is None:
            continue
        stamp, task_id, took = match.groups()
        end = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S,%f").timestamp()
        found[task_id] = (end - float(took), end)
    return found


def run(script: Callable[[], bool], cleanup: Callable[[], None], logs: Path, started: float) -> int:
    """A script's run: 0 when `script()` found all well, 1 when not, 130 on Ctrl-C (or a TERM,
    after `stop_on_signals()`); `cleanup()` (stopping everything the script started) in every
    case. `started`: the script's start (time.monotonic()), for the time it took."""
    try:
        ok = script()
        say(f"Took {time.monotonic() - started:.0f} s; the processes' logs: {logs}")
        return 0 if ok else 1
    except KeyboardInterrupt:
        say("\nInterrupted: stopping everything this script started.")
        return 130
    finally:
        cleanup()
