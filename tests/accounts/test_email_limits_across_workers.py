"""The limits on account emails hold across the web processes with Redis stopped or hung: five
gunicorn workers, each its own process, share one count (the database's, `core.cache`), so a
flood spread over them sends as many emails as the limit allows, not that many per worker.

The mail goes over SMTP to a server of the test's own; the requests go five at a time, so that
every worker takes some (one after another, the worker that has just answered may take them all).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.db import connection
from django.urls import reverse

from tests.support.databases import current_database
from tests.support.gunicorn import gunicorn
from tests.support.outage import closed_port, hung_server
from tests.support.smtp import Recorder, smtp_server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

WORKERS = 5
# allauth's defaults, which the site keeps (test_email_limits_redis_down.py).
RESETS_PER_ADDRESS = 5
SIGNUPS_PER_IP = 20
# The workers' connections name themselves (libpq reads PGAPPNAME), to be counted.
APP_NAME = f"limits-test-{os.getpid()}"


@pytest.fixture(params=["stopped", "hung"])
def redis_url(request) -> Iterator[str]:
    """A Redis that was stopped (nothing listens) or that accepts and never answers."""
    if request.param == "hung":
        with hung_server() as url:
            yield url
    else:
        yield f"redis://127.0.0.1:{closed_port()}/0"


@pytest.fixture
def site(redis_url, static_root, settings, tmp_path) -> Iterator[tuple[str, Recorder]]:
    """Five gunicorn workers with their cache (and broker) on that Redis and their mail to a
    recording SMTP server; the base URL and the recorder."""
    recorder = Recorder()
    with (
        smtp_server(recorder, settings) as smtp_port,
        gunicorn(
            "azul_site.wsgi",
            tmp_path / "gunicorn.log",
            ready_path="/favicon.ico",
            ready_statuses=(301, 302),
            WEB_CONCURRENCY=str(WORKERS),
            REDIS_URL=redis_url,
            EMAIL_URL=f"smtp://127.0.0.1:{smtp_port}",
            STATIC_ROOT=str(static_root),
            PGAPPNAME=APP_NAME,
            LOG_LEVEL="WARNING",
        ) as server,
    ):
        yield f"http://127.0.0.1:{server.port}", recorder


def workers_that_served() -> int:
    """How many of the workers have a connection to the database: each opens one for its first
    request that reads it, and keeps it (CONN_MAX_AGE)."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = %s",
            [current_database(), APP_NAME],
        )
        return cursor.fetchone()[0]


def browser(base: str, path: str) -> tuple[requests.Session, str]:
    """A session holding the CSRF cookie of the form at `path`, and the form's token."""
    session = requests.Session()
    page = session.get(base + path, timeout=30)
    assert page.status_code == 200, page.status_code
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, page.text[:500]
    return session, token.group(1)


def flood(base: str, path: str, forms: list[dict[str, str]]) -> list[int]:
    """POST each form to `path`, `WORKERS` at a time, each from a browser of its own; the
    statuses, redirects not followed."""
    session, token = browser(base, path)
    cookies = session.cookies.get_dict()

    def post(form: dict[str, str]) -> int:
        response = requests.post(
            base + path,
            data={"csrfmiddlewaretoken": token, **form},
            cookies=cookies,
            headers={"Referer": base + path},
            allow_redirects=False,
            timeout=30,
        )
        return response.status_code

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return list(pool.map(post, forms))


def test_password_resets_to_one_address_stop_at_the_limit(site, alice):
    base, mail = site
    statuses = flood(base, reverse("account_reset_password"), [{"email": alice.email}] * 15)

    assert sorted(statuses) == [302] * RESETS_PER_ADDRESS + [429] * (15 - RESETS_PER_ADDRESS)
    assert len(mail.messages) == RESETS_PER_ADDRESS
    assert all(m["rcpt_tos"] == [alice.email] for m in mail.messages)
    assert workers_that_served() >= 2  # the flood was spread over the processes


def test_sign_ups_from_one_address_stop_at_the_limit(site, django_user_model):
    base, mail = site
    forms = [
        {
            "username": f"flood{n}",
            "email": f"flood{n}@example.com",
            "password1": "tile-drafter-4827",
            "password2": "tile-drafter-4827",
        }
        for n in range(SIGNUPS_PER_IP + 5)
    ]
    statuses = flood(base, reverse("account_signup"), forms)

    assert sorted(statuses) == [302] * SIGNUPS_PER_IP + [429] * 5
    assert len(mail.messages) == SIGNUPS_PER_IP
    assert django_user_model.objects.filter(username__startswith="flood").count() == SIGNUPS_PER_IP
    assert workers_that_served() >= 2
