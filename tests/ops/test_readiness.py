"""/readyz (issue #31): whether this process should take traffic, for a load balancer; 503 and
why when its database does not answer, a migration is not applied, or it is shutting down.
/healthz stays the cheap "alive" check."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.db import connection
from django.db.migrations.recorder import MigrationRecorder

from core.ops import readiness
from tests.support.outage import closed_port
from tests.support.processes import python_with_settings

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_process():
    """Each test starts as a new process: migrations not yet compared, not shutting down."""
    readiness.forget_migrations_check()
    readiness.shutting_down.clear()
    yield
    readiness.forget_migrations_check()
    readiness.shutting_down.clear()


@pytest.mark.django_db
def test_ready_when_the_database_answers_and_every_migration_is_applied(client):
    response = client.get("/readyz")
    assert response.status_code == 200
    assert response.json() == {"status": "ready"}
    assert response["Cache-Control"].startswith("max-age=0")


@pytest.mark.django_db
def test_not_ready_while_a_migration_is_not_applied(client):
    # As a process started with the new code, before `migrate` ran: its last migration missing.
    MigrationRecorder.Migration.objects.filter(app="games").order_by("-id").first().delete()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json() == {"status": "not ready", "reasons": ["migrations not applied"]}


@pytest.mark.django_db
def test_not_ready_once_asked_to_stop(client):
    assert client.get("/readyz").status_code == 200
    readiness.shutting_down.set()
    response = client.get("/readyz")
    assert response.status_code == 503
    assert response.json()["reasons"] == ["shutting down"]
    # Still alive, and serving the requests it has.
    assert client.get("/healthz").status_code == 200


def test_not_ready_while_the_database_does_not_answer():
    """A process whose database is away (here: nothing listens at its port) says so. In a
    process of its own, as a server's: the test's connection may come from a pool."""
    check = (
        "import django; django.setup(); from django.test import Client; "
        "r = Client(HTTP_HOST='localhost').get('/readyz'); print(r.status_code, r.content.decode())"
    )
    database = f"postgres://postgres@127.0.0.1:{closed_port()}/azul"
    done = python_with_settings(check, {"DATABASE_URL": database})
    assert done.returncode == 0, done.stderr
    status, body = done.stdout.strip().split(" ", 1)
    assert status == "503"
    assert json.loads(body) == {"status": "not ready", "reasons": ["database not answering"]}


@pytest.mark.django_db
def test_the_check_bounds_its_own_query_only():
    """The check's timeout is its transaction's (`set_config(..., true)`): the request's other
    queries, on the same connection, keep the server's."""
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        before = cursor.fetchone()[0]
    assert readiness.database_answers(timeout=0.5)
    with connection.cursor() as cursor:
        cursor.execute("SHOW statement_timeout")
        assert cursor.fetchone()[0] == before


def test_readyz_is_exempt_from_the_https_redirect(settings):
    import re

    assert any(re.fullmatch(pattern, "readyz") for pattern in settings.SECURE_REDIRECT_EXEMPT)
    assert any(re.fullmatch(pattern, "metrics") for pattern in settings.SECURE_REDIRECT_EXEMPT)
