"""Every command of the README's table ("Other commands") and every target the Makefile documents,
run as an operator runs it (the Make target itself where there is one) at a toy size, so that none
can break unseen: each exits 0 and prints its figures beside their goals. The goals are not
asserted (these are not timed tests, on a machine shared with the rest of the suite); the figures
must be there and sane. A command with a test of its own elsewhere is named in COVERED, and a new
command in the README or the Makefile without a test fails `test_every_command_has_a_test`.

The benchmarks run on one database of this module's (per xdist worker), migrated once (a copy of
the migrated template: harness.stack.template_database), and a `redis-server` of its own; the
venv is the one `make test` set up before the suite (`-o venv`: a test never reinstalls it:
tests/support/commands.py). The site's gunicorn runs TOY_WEB_WORKERS workers (WEB_CONCURRENCY,
as an operator sets it) rather than gunicorn.conf.py's 2 x cores + 1: each imports the site
(2 CPU-seconds), and the toy runs' two clients keep two busy."""

from __future__ import annotations

import ast
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import polib
import psycopg
import pytest
from django.conf import settings

from tests.support.commands import make, read_until, start_make, stop
from tests.support.databases import ROOT, current_database, database_url, drop_database
from tests.support.outage import closed_port, running_redis_server

README = ROOT / "README.md"
TOY_WEB_WORKERS = "2"
MAKEFILE = ROOT / "Makefile"
THIS = "tests/ops/test_readme_commands.py"

# Each command, and the tests that run it (file::function). Commands are the README table's
# backticked ones and `make <target>` for each target the Makefile documents with `##`.
COVERED = {
    "make test": [f"{THIS}::test_make_test_lints_then_runs_the_suite"],  # and CI runs it
    "make run": [f"{THIS}::test_make_run_serves_the_site"],
    "make lint": [f"{THIS}::test_make_test_lints_then_runs_the_suite"],
    "make test-quick": [f"{THIS}::test_make_test_quick_leaves_out_the_slow_and_browser_tests"],
    "make fmt": [f"{THIS}::test_make_fmt_fixes_and_formats"],
    "make bench": [f"{THIS}::test_make_bench"],
    "make bench-web": [f"{THIS}::test_make_bench_web"],
    "make bench-sweep": [f"{THIS}::test_make_bench_sweep"],
    "make bench-history": [f"{THIS}::test_make_bench_history"],
    "make bench-computer": [f"{THIS}::test_make_bench_computer"],
    "make bench-reach": [f"{THIS}::test_make_bench_reach"],
    "make bench-live": [f"{THIS}::test_make_bench_live"],
    "make bench-swiss": [f"{THIS}::test_make_bench_swiss"],
    "make bench-league": [f"{THIS}::test_make_bench_league"],
    "make bench-events": [f"{THIS}::test_make_bench_events"],
    "make abuse": [f"{THIS}::test_make_abuse"],
    "make soak": ["tests/ops/test_soak.py::test_two_minutes_of_faults_lose_nothing"],
    "make screenshots": [f"{THIS}::test_make_screenshots"],
    "make schemathesis": [f"{THIS}::test_make_schemathesis"],
    "make messages": [f"{THIS}::test_make_messages"],
    "make backup": [f"{THIS}::test_make_backup_then_restore"],
    "make restore": [f"{THIS}::test_make_backup_then_restore"],
    **{
        f"make {target}": [f"{THIS}::test_make_workers_serve_every_queue"]
        for target in (
            "worker",
            "worker-moves",
            "worker-slow",
            "worker-master",
            "worker-mail",
            "worker-sweeps",
            "worker-analysis",
        )
    },
    "make lock": [
        "tests/test_dependencies.py::test_make_lock_solves_pyproject_to_the_locked_versions",
        "tests/test_dependencies.py::test_the_lock_holds_what_pyproject_asks_for",
    ],
    "python manage.py sweep": [
        "tests/core/test_sweep_command.py::test_the_sweep_loop_goes_on_after_its_connection_is_terminated"
    ],
    # The restore drill runs both as an operator does after a restore (`manage.py ...`).
    "python manage.py check_game_logs": [
        "tests/ops/test_restore_drill.py::test_a_backup_restores_into_a_site_that_plays_on",
        "tests/games/test_check_game_logs.py::test_games_made_by_play_in_every_state_pass",
    ],
    "python manage.py ratings_recompute": [
        "tests/ops/test_restore_drill.py::test_a_backup_restores_into_a_site_that_plays_on",
        "tests/ratings/test_recompute.py::test_recompute_agrees_then_reports_and_fixes_differences",
    ],
}


# -- the list --------------------------------------------------------------------------------------


def readme_commands() -> set[str]:
    """The commands of the README's table under "Other commands": each backticked one in its
    first column, without its arguments (`make restore DUMP=...` is `make restore`)."""
    text = README.read_text()
    table = text.split("Other commands:", 1)[1].split("\n\n", 2)[1]
    commands = set()
    for row in table.splitlines()[2:]:
        first = row.split("|")[1]
        for command in re.findall(r"`([^`]+)`", first):
            words = command.split()
            keep = 3 if words[:2] == ["python", "manage.py"] else 2
            commands.add(" ".join(words[:keep]))
    return commands


def makefile_targets() -> set[str]:
    """`make <target>` for each target the Makefile documents (`target: ...  ## what it does`)."""
    return {
        f"make {name}"
        for name in re.findall(r"^([\w-]+):[^=\n]*##", MAKEFILE.read_text(), re.MULTILINE)
    }


def test_every_command_has_a_test():
    commands = readme_commands()
    assert {"make bench-sweep", "make backup", "python manage.py sweep"} <= commands
    missing = sorted((commands | makefile_targets()) - COVERED.keys())
    assert not missing, f"commands without a smoke test (add one here, and to COVERED): {missing}"


def test_the_tests_named_for_the_commands_exist():
    for command, tests in COVERED.items():
        for test in tests:
            path, name = test.split("::")
            tree = ast.parse((ROOT / path).read_text())
            defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
            assert name in defined, (command, test)


# -- the figures, and where the commands run -------------------------------------------------------


def numbers(line: str) -> list[float]:
    return [float(n.replace(",", "")) for n in re.findall(r"-?\d[\d,]*(?:\.\d+)?", line)]


def row(output: str, start: str) -> list[float]:
    """The numbers of the table row that starts with `start`."""
    found = [line for line in output.splitlines() if line.strip().startswith(start)]
    assert found, f"no row {start!r} in:\n{output[-4000:]}"
    return numbers(found[0].strip()[len(start) :])


@pytest.fixture(scope="module")
def bench_database(django_db_setup, django_db_blocker) -> Iterator[str]:
    """The URL of a database beside the test database, shared by the benchmarks in turn (each
    empties what it needs): migrated by the first, dropped at the end."""
    with django_db_blocker.unblock():
        name = f"{current_database()}_commands"
        drop_database(name)
        yield database_url(name)
        drop_database(name)


@pytest.fixture(scope="module")
def static_root(static_root) -> str:
    """Where the benchmarks that serve the site find its static files: the suite's, collected
    once in this process (tests/conftest.py's `static_root`), not the project's, which another
    process of the suite may be collecting into. Stamped as collected from the current sources
    (harness.stack.static_key(), what `prepare(collectstatic=True)` compares), so that the first
    benchmark does not collect and compress them all again (5.5 CPU-seconds)."""
    key = subprocess.run(
        [sys.executable, "-c", "from harness.stack import static_key; print(static_key())"],
        cwd=ROOT / "scripts",
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    (static_root / ".collected-from").write_text(key)
    return str(static_root)


@pytest.fixture(scope="module")
def redis_url() -> Iterator[str]:
    """A `redis-server` of this module's own (per xdist worker): its URL without the db."""
    with running_redis_server() as server:
        yield f"redis://127.0.0.1:{server.port}"


# -- the benchmarks --------------------------------------------------------------------------------


@pytest.mark.slow
def test_make_bench():
    out = make("bench", "BENCH_ARGS=--seconds 0.05 --variant colored").stdout
    for players in (2, 3, 4):
        games, plays, legal, ref, ratio, strong, uct = row(out, f"{players} colored")
        assert min(games, plays, legal, ref, strong, uct) > 0 and ratio > 0, out


@pytest.mark.slow
def test_make_bench_swiss():
    out = make("bench-swiss", "BENCH_ARGS=--players 40 --rounds 3 --runs 1").stdout
    for size in (2, 4):
        timed = rf"^{size} a table: pairing in [\d.]+ s \(target < 1 s\): (ok|MISSED)$"
        assert re.search(timed, out, re.MULTILINE), out
        assert f"{size} a table: repeat meetings 0 (target: none): ok" in out, out


@pytest.mark.slow
def test_make_bench_league(bench_database):
    out = make(
        "bench-league",
        "BENCH_ARGS=--players 12 --size 4 --leavers 1 --newcomers 1",
        BENCH_LEAGUE_DATABASE_URL=bench_database,
    ).stdout
    seconds, _cpu, divisions, games = row(out, "season rolled over")
    assert seconds > 0 and divisions == 3 and games == 18, out
    assert re.search(r"^rollover: [\d.]+ s \(target < 60 s\): (ok|MISSED)$", out, re.MULTILINE), out
    assert "divisions: 3 of 4 (target: 4 to 8, one apart at most): ok" in out, out
    assert "every member placed once, no leaver (target: so): ok" in out, out
    assert "a second rollover: 2 seasons (target: 2): ok" in out, out


@pytest.mark.slow
def test_make_bench_events(bench_database):
    # Its own database: the script makes it and drops it at the end.
    out = make(
        "bench-events",
        "BENCH_ARGS=--swiss-players 4 --swiss-rounds 2 --rr-players 4 --absent 1",
        BENCH_EVENTS_DATABASE_URL=bench_database + "_events",
    ).stdout
    for name, games, rounds in (
        ("Swiss 4 x 2 rounds, 2 a table", 4, 2),
        ("round robin 4, 4 a table", 1, 1),
    ):
        played, rounds_played, person, server, *_ = row(out, name)
        assert (played, rounds_played) == (games, rounds), out
        # The absent player's three timeouts a round, the server's moves.
        assert person > 0 and server >= 3 * rounds, out
        assert re.search(rf"^{name}: the whole event in [\d.]+ s of wall clock", out, re.M), out
        assert f"{name}: {games} of {games} games finished, event finished" in out, out
        assert re.search(rf"^{name}: standings the same as recomputed .*: ok$", out, re.M), out
        assert re.search(rf"^{name}: round \d moved on by the sweep, .*: ok$", out, re.M), out
    assert "Swiss 4 x 2 rounds, 2 a table: repeat meetings 0 (target: none): ok" in out, out


@pytest.mark.slow
def test_make_bench_sweep(bench_database):
    out = make(
        "bench-sweep",
        "BENCH_ARGS=--games 200 --due 20 --new-reminders 10 --stalled 2 --users 40 --runs 2",
        BENCH_SWEEP_DATABASE_URL=bench_database,
    ).stdout
    assert re.search(r"One sweep: min [\d.]+ ms, median [\d.]+ ms \(target < 1000 ms: ", out), out
    for name, seeded in (("timeouts", 20), ("reminders written", 10), ("computer turns", 2)):
        assert f"  {name}: {seeded} (seeded: {seeded}; every run found as many)" in out, out
    assert "games.tasks.play_timeouts x20" in out and "games.tasks.computer_move x2" in out, out


@pytest.mark.slow
def test_make_bench_web(bench_database, redis_url, static_root):
    out = make(
        "bench-web",
        "BENCH_ARGS=--seconds 1 --rounds 1 --concurrency 2 --long-moves 10 --max-requests 80"
        " --workers 2",
        BENCH_DATABASE_URL=bench_database,
        STATIC_ROOT=static_root,
        BENCH_REDIS_URL=f"{redis_url}/0",
    ).stdout
    for scenario in ("trivial view", "board page", "game detail API", "move submission"):
        requests, errors, rps, p50, p95 = row(out, scenario)[-8:-3]
        assert requests > 0 and errors == 0 and 0 < p50 <= p95, (scenario, out)
    assert len(re.findall(r"x trivial \(target <= [46]x\): (ok|MISSED)", out)) == 6, out
    assert re.search(r"move submission p95 [\d.]+ ms \(target < 50 ms\): (ok|MISSED)", out), out


@pytest.mark.slow
def test_make_bench_history(bench_database, redis_url, static_root):
    out = make(
        "bench-history",
        "BENCH_ARGS=--players 30 --games 150 --requests 8 --concurrency 2",
        BENCH_HISTORY_DATABASE_URL=bench_database,
        STATIC_ROOT=static_root,
        BENCH_REDIS_URL=f"{redis_url}/0",
        WEB_CONCURRENCY=TOY_WEB_WORKERS,
    ).stdout
    goals = re.findall(r"^(.+): p95 ([\d.]+) ms \((target|reported) < 100 ms\): ", out, re.M)
    # Six pages with a target (issue 14), others reported beside them.
    assert len(goals) >= 9 and sum(kind == "target" for *_, kind in goals) >= 6, out
    for name, *_ in goals:
        requests, errors, p50, p95 = row(out, name)[-4:]
        assert requests == 8 and errors == 0 and 0 < p50 <= p95, (name, out)
    assert re.search(r"manage.py rate_levels .*: [\d.]+ s", out), out


@pytest.mark.slow
def test_make_bench_computer(bench_database, redis_url):
    out = make(
        "bench-computer",
        "BENCH_ARGS=--moves 3 --warmup 1 --concurrency 1",
        BENCH_COMPUTER_DATABASE_URL=bench_database,
        BENCH_COMPUTER_REDIS_URL=f"{redis_url}/1",
    ).stdout
    p50, p95, worst = row(out, "person's move committed -> computer's move seen")
    assert 0 < p50 <= p95 <= worst, out
    assert re.search(r"p50 beyond the computer's thinking time: \d+ ms \(target < 1000 ms: ", out)


@pytest.mark.slow
def test_make_bench_live(bench_database, redis_url, static_root):
    out = make(
        "bench-live",
        "BENCH_ARGS=--boards 6 --per-game 2 --seconds 1 --idle-seconds 0.5 --no-site-asgi",
        BENCH_DATABASE_URL=bench_database,
        STATIC_ROOT=static_root,
        BENCH_REDIS_URL=f"{redis_url}/2",
        WEB_CONCURRENCY=TOY_WEB_WORKERS,
    ).stdout
    # The row of 6 open boards: threads, KiB a board, idle CPU, probe ms, moves, told p50, p95,
    # max, board p50, p95, max, CPU ms a board told, errors.
    boards = re.search(r"^ +6 +(\d.*)$", out, re.M)
    assert boards, out
    threads, _, _, _, moves, *told, errors = numbers(boards[1])[:8] + numbers(boards[1])[-1:]
    assert threads > 0 and moves > 0 and 0 < told[0] <= told[1] <= told[2] and errors == 0, out
    assert re.search(r"Fallback polling .*: \d+ checks/s, p50 [\d.]+ ms", out), out


@pytest.mark.slow
def test_make_bench_reach(bench_database):
    # Its own database: the script drops it at the end.
    out = make(
        "bench-reach",
        "BENCH_ARGS=--moves 2",
        BENCH_REACH_DATABASE_URL=bench_database + "_reach",
        WEB_CONCURRENCY=TOY_WEB_WORKERS,
    ).stdout
    for channel in ("push notice", "webhook call"):
        found = re.search(rf"move -> {channel} +n=2  p50 +(\d+) ms  p95 +(\d+) ms", out)
        assert found and 0 < int(found[1]) <= int(found[2]), out


@pytest.mark.slow(minutes=1)
def test_make_abuse(bench_database, redis_url):
    """Exits 1 when a timing goal is missed, which a busy machine may do: the floods' limits and
    the absence of faults are what must hold at any speed. One round of the victim's samples
    under the floods (and one quiet), 6-9 s (two took 15-18 s): every figure has its samples,
    and the floods reach each limit within the first seconds. The site on TOY_WEB_WORKERS."""
    run = make(
        "abuse",
        "ABUSE_ARGS=--quick --seconds 4 --quiet-seconds 3 --sweep-every 3 --rounds 1",
        timeout=400,
        check=False,
        ABUSE_DATABASE_URL=bench_database,
        ABUSE_BROKER_URL=f"{redis_url}/3",
        ABUSE_REDIS_URL=f"{redis_url}/4",
        WEB_CONCURRENCY=TOY_WEB_WORKERS,
    )
    out = run.stdout
    assert run.returncode in (0, 1), f"{out[-5000:]}\n{run.stderr[-5000:]}"
    assert re.search(r"(All targets met|A target was missed); limits held; 0 faults", out), out
    assert len(re.findall(r"^  \S.* (held)$", out, re.M)) == 6, out
    figures = re.findall(r"^  (computer's|invitation's|sweep|board's) .* (pass|FAIL)$", out, re.M)
    assert len(figures) == 8, out


# -- the site's other commands ---------------------------------------------------------------------


def test_make_test_lints_then_runs_the_suite():
    """`make lint` runs before the suite in `make test` (this run is one): a dry run shows both."""
    dry = make("test", "-n").stdout
    lint = make("lint", "-n").stdout.strip().splitlines()
    assert len(lint) == 4 and "ruff check ." in lint[0] and "mypy" in lint[-1], lint
    lines = dry.strip().splitlines()
    assert lines[: len(lint)] == lint and "pytest -n" in lines[-1], dry


def test_make_test_quick_leaves_out_the_slow_and_browser_tests():
    """`make test-quick` runs pytest without lint and deselects what is marked slow or e2e: run
    here on a module of each kind, only the quick tests run."""
    dry = make("test-quick", "-n").stdout.strip().splitlines()
    assert len(dry) == 1 and "pytest -n" in dry[0] and "not slow and not e2e" in dry[0], dry
    quick = "tests/test_architecture.py"
    slow = "tests/ops/test_soak.py"
    browser = "tests/e2e/test_pwa.py"
    out = make(
        "test-quick",
        "PYTEST_WORKERS=0",
        f"PYTEST_ARGS=-p no:cacheprovider -v {quick} {slow} {browser}",
    ).stdout
    passed = re.findall(r"^(tests/\S+)::\S+ PASSED", out, re.M)
    assert passed and set(passed) <= {quick, slow}, out
    assert quick in passed and "test_two_minutes_of_faults" not in out, out
    assert re.search(r"\d+ deselected", out), out


def test_make_fmt_fixes_and_formats(tmp_path):
    """In a folder of its own with the project's settings (in the project it would reformat
    work in progress)."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path)
    (tmp_path / "messy.py").write_text("import sys, os\n\nprint( os.sep,sys.argv )\n")
    make("fmt", cwd=tmp_path)
    assert (
        tmp_path / "messy.py"
    ).read_text() == "import os\nimport sys\n\nprint(os.sep, sys.argv)\n"


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("msgfmt") is None, reason="needs gettext")
def test_make_messages(tmp_path):
    """On a copy of the project (a run in place rewrites the catalogs' dates): the catalogs are
    made again from the marked strings and compiled."""
    copy = tmp_path / "site"
    shutil.copytree(
        ROOT,
        copy,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", "node_modules", "staticfiles", "artifacts", "docs", "__pycache__"
        ),
        symlinks=True,
    )
    project = {p: p.stat().st_mtime for p in (ROOT / "locale").glob("*/LC_MESSAGES/*")}
    compiled = sorted(copy.glob("locale/*/LC_MESSAGES/*.mo"))
    for path in compiled:
        path.unlink()
    make("messages", cwd=copy, timeout=300)
    for language in (code for code, _ in settings.LANGUAGES if code != "en"):
        for domain in ("django", "djangojs"):
            folder = copy / "locale" / language / "LC_MESSAGES"
            made = polib.pofile(str(folder / f"{domain}.po"))
            assert len(made) > 0 and made.percent_translated() > 0, (language, domain)
            assert polib.mofile(str(folder / f"{domain}.mo")), (language, domain)
    assert compiled, "no compiled catalogs in the project"
    assert {p: p.stat().st_mtime for p in project} == project, "the project's catalogs changed"


@pytest.mark.django_db
def test_make_backup_then_restore(tmp_path):
    source = current_database()
    target = f"{source}_make_restore"
    drop_database(target)
    try:
        dumped = make(
            "backup", f"DATABASE_URL={database_url(source)}", f"BACKUP_DIR={tmp_path}", timeout=120
        )
        dump = Path(dumped.stdout.strip())
        assert dump.parent == tmp_path and dump.name.startswith(f"{source}-"), dumped.stdout
        make("restore", f"DATABASE_URL={database_url(target)}", f"DUMP={dump}", timeout=120)
        with psycopg.connect(database_url(target)) as conn:
            tables = {
                name
                for (name,) in conn.execute(
                    "select tablename from pg_tables where schemaname = 'public'"
                )
            }
        assert {"games_game", "games_logentry", "accounts_user"} <= tables
    finally:
        drop_database(target)


@pytest.mark.slow
@pytest.mark.django_db
def test_make_workers_serve_every_queue(redis_url, tmp_path):
    """`make worker` takes every queue; the `worker-*` targets, one kind each, take them all
    between them. Each starts, says which queues it serves and is ready."""
    targets = [
        "worker",
        "worker-moves",
        "worker-slow",
        "worker-master",
        "worker-mail",
        "worker-sweeps",
        "worker-analysis",
    ]
    env = {
        "DATABASE_URL": database_url(current_database()),
        "CELERY_BROKER_URL": f"{redis_url}/5",
        "REDIS_URL": f"{redis_url}/6",
    }
    started = {
        t: start_make(
            t, tmp_path / f"{t}.log", "CELERY_ARGS=--loglevel=INFO --concurrency=1", **env
        )
        for t in targets
    }
    try:
        queues = {}
        for target, process in started.items():
            text = read_until(tmp_path / f"{target}.log", process, " ready.", 120)
            queues[target] = set(re.findall(r"^\s*\.> (\S+)\s+exchange=", text, re.M))
    finally:
        for process in started.values():
            stop(process)
    every = set(settings.WORKER_QUEUES)
    assert queues.pop("worker") == every
    assert set().union(*queues.values()) == every and all(queues.values()), queues


@pytest.mark.slow
def test_make_run_serves_the_site(tmp_path):
    """On SQLite with tasks in-process, as the README says: migrated, then served (with the
    minute's sweep beside it), and stopped whole."""
    port = closed_port()
    log = tmp_path / "run.log"
    process = start_make(
        "run",
        log,
        f"PORT={port}",
        DATABASE_URL=f"sqlite:///{tmp_path / 'db.sqlite3'}",
        CELERY_BROKER_URL="",
        REDIS_URL="",
        DEBUG="1",
    )
    try:
        read_until(log, process, "Quit the server with", 300)
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=30) as answer:
            assert answer.status == 200
        read_until(log, process, "sweep:", 60)
    finally:
        stop(process)


@pytest.mark.e2e
@pytest.mark.slow
@pytest.mark.skipif(shutil.which("chromium") is None, reason="needs Debian's chromium")
def test_make_screenshots(django_db_setup, django_db_blocker, tmp_path):
    """Into a folder of the test's (docs/screenshots/ is left as committed), on a test database
    of its own (the inner pytest's, beside this one's)."""
    committed = {p.name: p.stat().st_mtime for p in (ROOT / "docs" / "screenshots").glob("*.png")}
    with django_db_blocker.unblock():
        base = f"{current_database()}_shots"
    out = tmp_path / "shots"
    run = make(
        "screenshots",
        f"DATABASE_URL={database_url(base)}",
        f"SCREENSHOTS_ARGS=--out {out}",
        timeout=600,
    )
    made = sorted(p.name for p in out.glob("*.png"))
    assert made == sorted(committed), run.stdout
    for name in made:
        assert (out / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert str(out / name) in run.stdout
    assert {
        p.name: p.stat().st_mtime for p in (ROOT / "docs" / "screenshots").glob("*.png")
    } == committed


@pytest.mark.slow
@pytest.mark.django_db(transaction=True)
def test_make_schemathesis(tmp_path, django_user_model):
    """Against the site under gunicorn on the test database as the owner of a real token, one
    example an operation: the Makefile's command line and the repository's schemathesis.toml
    (the full run is tests/azul_site/test_api_schemathesis.py)."""
    from accounts.services import token_create
    from tests.support.gunicorn import gunicorn

    user = django_user_model.objects.create_user("smoke", "smoke@example.com", "pw-smoke-1234")
    key = token_create(user=user, name="smoke")[1]
    unlimited = "1000000/second"
    throttles = {
        f"THROTTLE_{name}": unlimited
        for name in ("GAME_CREATE", "GAME_JOIN", "GAME_REMATCH", "GAME_INVITE", "GAMES_WAITING")
    }
    with gunicorn(
        "azul_site.wsgi",
        tmp_path / "gunicorn.log",
        LOG_LEVEL="ERROR",
        API_THROTTLE_USER=unlimited,
        API_THROTTLE_ANON=unlimited,
        ANALYSIS_SECONDS_PER_GAME="0.2",
        **throttles,
    ) as site:
        run = make(
            "schemathesis",
            f"SCHEMATHESIS_URL=http://127.0.0.1:{site.port}",
            "SCHEMATHESIS_ARGS=--max-examples 1 --phases fuzzing --no-color",
            timeout=300,
            check=False,
            AZUL_API_TOKEN=key,
        )
        log = site.log()
    out = run.stdout + run.stderr
    assert run.returncode == 0, out[-6000:] + log[-3000:]
    tested = re.search(r"Tested: (\d+)", out)
    passed = re.search(r"(\d+) generated, (\d+) passed", out)
    assert tested and int(tested[1]) > 40, out[-3000:]  # of the schema's operations
    assert passed and passed[1] == passed[2], out[-3000:]
