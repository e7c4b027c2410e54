"""The API against its own schema: Schemathesis (`st run`, with the checks and bounds of the
repository's schemathesis.toml) sends generated requests to the site served as deployed
(gunicorn, DEBUG off) on the test database, as a real player with a real API token, and fails on
any 5xx or any answer the schema (/api/schema/) does not describe.

The ids in paths name real games in every state the player meets (theirs to move, waiting on
others, open, invited to, finished, cancelled, someone else's), and real events likewise, so
that requests get past the 404 to the code behind it; some are random, for the 404s. The run
changes the games and events (moves, resignations, cancels, entries): each test's database
starts empty again (`transactional_db`).
"""

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
# A hard stop for each run, well past its usual time; what keeps a run short is the config's
# bound (examples per operation).
TIMEOUT_SECONDS = 400
PASSED_ENV = {k: v for k, v in os.environ.items() if k in {"PATH", "HOME", "LANG"}}


def database_url() -> str:
    """The test database (pytest-django's), as the server's DATABASE_URL."""
    from django.db import connection

    db = connection.settings_dict
    credentials = quote(db["USER"] or "", safe="")
    if db["PASSWORD"]:
        credentials += ":" + quote(db["PASSWORD"], safe="")
    host = f"{db['HOST'] or '127.0.0.1'}:{db['PORT'] or 5432}"
    return f"postgres://{credentials}@{host}/{db['NAME']}"


def api_key(user) -> str:
    """A new API token of `user`, made as the settings page makes one: its key."""
    from accounts.services import token_create

    made = token_create(user=user)
    # (token, key) since tokens are kept as digests; the token itself (`.key`) before.
    return made[1] if isinstance(made, tuple) else made.key


def seed_games(alice, bob, carol, dave) -> dict[str, str]:
    """Alice's games in every state she can act on, and one she has no part in."""
    from games import services
    from tests.support import factories
    from tests.support.play import play_forward, play_to_end

    def open_game(creator, *, players: int = 2):
        seats = [services.SeatSpec(kind="open")] * (players - 1)
        return services.game_create(
            creator=creator, num_players=players, variant="colored", days_per_move=3, seats=seats
        )

    cancelled = factories.invite_game(alice, bob)
    services.game_cancel(game_id=cancelled.id, user=alice)
    games = {
        "two_players": factories.start_game(alice, bob),
        "three_players_gray": play_forward(
            factories.start_game(alice, bob, carol, variant="gray"), moves=5
        ),
        "against_the_computer": factories.against_computer(alice),
        # All but the last moves written outright, the last one through the services.
        "finished": play_to_end(factories.start_game(alice, bob), seed=7),
        "finished_three_players": play_to_end(factories.start_game(bob, alice, carol), seed=3),
        "invited_to": factories.invite_game(bob, alice),
        "inviting": factories.invite_game(alice, carol, dave),
        "own_open": open_game(alice, players=3),
        "open_to_join": open_game(bob),
        "not_alices": factories.start_game(bob, carol),
        "cancelled": cancelled,
    }
    return {name: str(game.id) for name, game in games.items()}


def seed_events(alice, bob, carol, dave) -> dict[str, str]:
    """Events in every state Alice can act on: hers (with Bob entered, to remove), open to
    enter, private, entered, running with her in it, finished with results, cancelled. She
    organises one: the organisers' limits (EVENTS_MAX_OPEN) refuse her third new one."""
    from django.test import TestCase

    from events import services
    from events.models import EventTable
    from tests.support.play import play_to_end

    def event(organiser, *entrants, **changes):
        values = {"name": "Seeded", "format": "swiss", "table_size": 2, "rounds": 1}
        values["max_entrants"] = 8
        made = services.event_create(
            organiser=organiser, settings_=services.EventSettings(**{**values, **changes})
        )
        for user in entrants:
            services.entry_register(
                event_id=made.pk, user=user, code=changes.get("invitation_code", "")
            )
        return made

    with TestCase.captureOnCommitCallbacks(execute=True):
        running = event(bob, alice, bob, carol, dave, max_entrants=4)
        finished = event(carol, bob, carol, max_entrants=2)
    with TestCase.captureOnCommitCallbacks(execute=True):
        for table in EventTable.objects.filter(event=finished):
            play_to_end(table.game_id)
    cancelled = event(dave, carol)
    services.event_cancel(event_id=cancelled.pk, organiser=dave)
    events = {
        "own_open": event(alice, bob),
        "open_to_enter": event(bob, carol, format="round_robin", table_size=3, rounds=None),
        "private": event(carol, dave, invitation_code="sesame"),
        "entered": event(dave, alice, format="elimination", table_size=3, advance=1, rounds=None),
        "running": running,
        "finished": finished,
        "cancelled": cancelled,
    }
    return {name: str(made.pk) for name, made in events.items()}


PLAYERS = ["bob", "carol", "dave", "alice"]
# The anonymous run's checks: what the schema promises of every answer, whoever asks (the
# checks of valid input taken and of authentication are for a signed-in client).
ANONYMOUS_CHECKS = ",".join(
    [
        "not_a_server_error",
        "status_code_conformance",
        "content_type_conformance",
        "response_schema_conformance",
    ]
)
# Text that reached PostgreSQL as a 500 before (issue #30): the NUL run sends it as names.
HOSTILE = ["\x00", "carol\x00", "a\x00b"]


def toml_list(items) -> str:
    return "[" + ", ".join(json.dumps(item) for item in items) + "]"  # JSON strings are TOML's


def api_operations(url: str) -> list[dict]:
    """The operations of the site's schema (/api/schema/, as Schemathesis reads it)."""
    with urllib.request.urlopen(f"{url}/api/schema/?format=json", timeout=30) as answer:
        schema = json.load(answer)
    methods = {"get", "put", "post", "patch", "delete"}
    return [
        operation
        for item in schema["paths"].values()
        for method, operation in item.items()
        if method in methods
    ]


def signed_in_only(operations: list[dict]) -> list[str]:
    """The ids of the operations the schema says only a signed-in client may call (no `{}`
    among their security requirements)."""
    return [
        operation["operationId"]
        for operation in operations
        if {} not in operation.get("security", [{}])
    ]


def without_text(operations: list[dict]) -> list[str]:
    """The ids of the operations that take nothing but their path: no query string, no body."""
    return [
        operation["operationId"]
        for operation in operations
        if "requestBody" not in operation
        and all(parameter["in"] == "path" for parameter in operation.get("parameters", []))
    ]


def config_with(
    games: dict[str, str],
    names: dict[str, str],
    *,
    events: dict[str, str],
    anonymous: bool = False,
    no_coverage: list[str] | None = None,
) -> str:
    """schemathesis.toml, with the real games' and events' ids in paths and `names` (parameter
    -> the dictionary of names it takes) wherever a name goes; `anonymous`, without its token;
    `no_coverage`, the ids of operations left out of the coverage phase."""
    bindings = {
        "path.game_id": ("games", 0.9),
        "path.event_id": ("events", 0.9),
        # Seat positions are strings in the path (a 404 when not a number).
        "path.position": ("positions", 0.9),
        **{parameter: (dictionary, 0.5) for parameter, dictionary in names.items()},
    }
    parameters = ", ".join(
        f'"{parameter}" = {{ dictionary = "{dictionary}", probability = {probability} }}'
        for parameter, (dictionary, probability) in bindings.items()
    )
    config = (ROOT / "schemathesis.toml").read_text()
    if anonymous:
        config = re.sub(r"(?m)^headers = .*\n", "", config)
        assert "Authorization" not in config
    return config + (
        "\n# The test's data (tests/azul_site/test_api_schemathesis.py).\n"
        f"[dictionaries.games]\nvalues = {toml_list(games.values())}\n"
        f"[dictionaries.events]\nvalues = {toml_list(events.values())}\n"
        f"[dictionaries.positions]\nvalues = {toml_list(['0', '1', '2', '3'])}\n"
        f"[dictionaries.players]\nvalues = {toml_list(PLAYERS)}\n"
        f"[dictionaries.hostile]\nvalues = {toml_list(HOSTILE)}\n"
        f'[[operations]]\ninclude-path-regex = "^/api/"\nparameters = {{ {parameters} }}\n'
        + (
            f'[[operations]]\ninclude-operation-id-regex = "^({"|".join(no_coverage)})$"\n'
            "phases.coverage.enabled = false\n"
            if no_coverage
            else ""
        )
    )


def schemathesis(url: str, key: str, config: str, tmp_path: Path, *options: str):
    """`st run` with `config` against the site at `url` as the owner of `key`: the finished
    run and how long it took."""
    path = tmp_path / "schemathesis.toml"
    path.write_text(config)
    started = time.monotonic()
    run = subprocess.run(
        [str(BIN / "st"), "--config-file", str(path), "run", f"{url}/api/schema/"]
        + ["--workers", "1", "--no-color", *options],
        cwd=tmp_path,
        env={**PASSED_ENV, "AZUL_API_TOKEN": key},
        capture_output=True,
        text=True,
        timeout=TIMEOUT_SECONDS,
    )
    return run, time.monotonic() - started


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def server_env() -> dict[str, str]:
    """The site as deployed (DEBUG off), without Redis or a broker: the cache is each worker's
    own and tasks run in the request. The throttles are tested on their own
    (tests/games/api/test_api_throttle.py): here they would answer most requests with 429."""
    unlimited = "1000000/second"
    return {
        **PASSED_ENV,
        "DATABASE_URL": database_url(),
        "DEBUG": "0",
        "SECRET_KEY": "schemathesis-only-secret-key-not-for-production-0123456789",
        "ALLOWED_HOSTS": "127.0.0.1",
        "SECURE_SSL_REDIRECT": "0",
        "SECURE_COOKIES": "0",
        "SECURE_HSTS_SECONDS": "0",
        "EMAIL_URL": "dummymail://",
        # Only errors: their tracebacks tell what a 5xx was.
        "LOG_LEVEL": "ERROR",
        "WEB_CONCURRENCY": "2",
        # An analysis asked for runs in the request: a short one (the search's floor per move
        # would otherwise make it 4 s for a game of some 80 moves).
        "ANALYSIS_SECONDS_PER_GAME": "0.5",
        "ANALYSIS_MIN_SECONDS_PER_MOVE": "0.005",
        "API_THROTTLE_USER": unlimited,
        "API_THROTTLE_ANON": unlimited,
        **{
            f"THROTTLE_{name}": unlimited
            for name in (
                "GAME_CREATE",
                "GAME_JOIN",
                "GAME_REMATCH",
                "GAME_INVITE",
                "GAMES_WAITING",
                "REPLAY_POINTS",
                "EVENT_CREATE",
                "EVENT_ENTRY",
                "EVENT_ORGANISE",
            )
        },
    }


@pytest.fixture
def site(transactional_db, tmp_path):
    """The site under gunicorn (gunicorn.conf.py) on a free loopback port: its base URL, and
    the file its errors go to."""
    port = free_port()
    log = tmp_path / "gunicorn.log"
    with log.open("wb") as out:
        server = subprocess.Popen(
            [
                str(BIN / "gunicorn"),
                "azul_site.wsgi",
                "--config",
                str(ROOT / "gunicorn.conf.py"),
                "--bind",
                f"127.0.0.1:{port}",
                "--log-level",
                "error",
            ],
            cwd=ROOT,
            env=server_env(),
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        while True:
            assert server.poll() is None, log.read_text()
            try:
                with urllib.request.urlopen(f"{url}/healthz", timeout=5) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                assert time.monotonic() < deadline, log.read_text()
                time.sleep(0.2)
        yield url, log
    finally:
        server.terminate()
        server.wait(timeout=30)


def summary(run: subprocess.CompletedProcess, seconds: float, server_log: Path) -> str:
    return (
        f"{run.stdout}\n{run.stderr}\n({seconds:.0f} s)\n"
        f"--- the server's log (errors) ---\n{server_log.read_text()}"
    )


@pytest.mark.slow(minutes=1.5)
def test_the_api_answers_as_its_schema_says(site, tmp_path, alice, bob, carol, dave):
    from accounts.services import block_create

    url, server_log = site
    games = seed_games(alice, bob, carol, dave)
    events = seed_events(alice, bob, carol, dave)
    block_create(blocker=alice, username=dave.username)  # one to unblock
    key = api_key(alice)

    # Every check of schemathesis.toml, the players' real names where names go.
    names = {"path.username": "players", "body.username": "players"}
    first, seconds = schemathesis(url, key, config_with(games, names, events=events), tmp_path)
    assert first.returncode == 0, summary(first, seconds, server_log)
    # Every operation of the schema, none left out for want of data it could make.
    operations = re.search(r"Selected: (\d+)/(\d+)\s+Tested: (\d+)", first.stdout)
    assert operations and len(set(operations.groups())) == 1, summary(first, seconds, server_log)

    # NULs in any text (refused with 400, never a 500), and the names that held one before.
    # (Schemathesis puts no NUL in a path: tests/core/test_hostile_input.py sends those; nor in
    # a header.) So only the operations that take a query string or a body: the others' requests
    # could hold no NUL, and the first run sent them with every check.
    operations = api_operations(url)
    hostile = ["body.username", "query.search", "query.player"]
    run, nul_seconds = schemathesis(
        url,
        key,
        config_with(games, dict.fromkeys(hostile, "hostile"), events=events),
        tmp_path,
        *("--checks", "not_a_server_error", "--phases", "fuzzing"),
        *("--generation-allow-x00", "true", "--max-examples", "10"),
        *(f"--exclude-operation-id={operation}" for operation in without_text(operations)),
    )
    assert run.returncode == 0, summary(run, nul_seconds, server_log)
    assert re.search(r"Tested: [1-9]", run.stdout), summary(run, nul_seconds, server_log)

    # With no token, as a client that has not signed in: every answer (401s mostly) is one the
    # schema lists for that operation, in the error body it describes. An operation for the
    # signed-in only answers 401 before it reads its input, so the coverage phase's edge cases
    # (some thirty per operation) would all get the same answer: those operations have the
    # other phases (5 examples each, valid and not, and the stateful sequences), the public
    # ones every phase.
    anonymous, anonymous_seconds = schemathesis(
        url,
        key,
        config_with(
            games,
            names,
            anonymous=True,
            events=events,
            no_coverage=signed_in_only(operations),
        ),
        tmp_path,
        *("--checks", ANONYMOUS_CHECKS, "--max-examples", "5"),
    )
    assert anonymous.returncode == 0, summary(anonymous, anonymous_seconds, server_log)
    tested = re.search(r"Selected: (\d+)/(\d+)\s+Tested: (\d+)", anonymous.stdout)
    assert tested and len(set(tested.groups())) == 1, summary(
        anonymous, anonymous_seconds, server_log
    )
    cases = re.findall(r"(\d+) generated", first.stdout + run.stdout + anonymous.stdout)
    print(
        f"schemathesis: {seconds:.0f} s, then {nul_seconds:.0f} s with NULs,"
        f" {anonymous_seconds:.0f} s anonymous; cases: {cases}"
    )
