"""The soak's short version (`make soak` with SOAK_ARGS; ten minutes by default): players on the
real stack while each of its faults is injected once (`--fault-gap 2`: Redis hung, Redis
stopped, the worker, a gunicorn worker, the database's connections, the sweep, each 2 s after the
previous one's window closed, and the play over 2 s after the last: harness.faults.ONCE_ORDER,
those that lose work first, which the sweeps send again a minute on while the others are
injected), and then nothing lost (scripts/soak.py's checks). Each part is down a few seconds
(harness.faults.DOWN_SECONDS; the worker until it is ready again) and its window ends
WINDOW_AFTER (5 s) after it is back: no two windows overlap, however slowly a part comes back on
a loaded machine, and a 5xx between them is a loss. About a minute of play and 10 s to settle
(before: 75 s on a fixed beat of 12 s, whose windows overlapped when the machine was loaded, and
up to 50 s to settle when Redis hung late). The site runs three gunicorn workers
(WEB_CONCURRENCY, as an operator sets it; gunicorn.conf.py's 2 x cores + 1 would be five, each
importing the site). The script starts and stops everything itself, on a database and a Redis
of its own."""

from __future__ import annotations

import os
import re
import shutil

import pytest
import yaml
from django.db import connection

from tests.support.commands import make
from tests.support.databases import ROOT, database_url

FAULTS = (
    "worker",
    "redis stopped",
    "gunicorn worker",
    "database connections",
    "redis hung",
    "sweep",
)


@pytest.mark.slow(minutes=2)
@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server")
def test_two_minutes_of_faults_lose_nothing():
    # One database per xdist worker, and never `make soak`'s.
    name = f"azul_soak_ci_{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"
    assert connection.vendor == "postgresql"
    run = make(
        "soak",
        "SOAK_ARGS=--fault-gap 2",
        timeout=600,
        check=False,
        SOAK_DATABASE_URL=database_url(name),
        WEB_CONCURRENCY="3",
    )
    assert run.returncode == 0, run.stdout[-6000:] + run.stderr[-3000:]
    injected = re.search(r"faults injected +\d+: (.*)", run.stdout)
    assert injected, run.stdout[-3000:]
    for kind in FAULTS:
        assert re.search(rf"(^|, ){kind} [1-9]", injected.group(1)), (kind, injected.group(1))


def test_the_deployed_processes_are_started_again_when_they_end():
    """docker-compose.yml: the site's processes restart by themselves (the soak found Celery's
    worker exiting for good when Redis restarted under it)."""
    services = yaml.safe_load((ROOT / "docker-compose.yml").read_text())["services"]
    for name in ("web", "live", "beat", *(n for n in services if n.startswith("worker"))):
        assert services[name].get("restart") == "unless-stopped", name
