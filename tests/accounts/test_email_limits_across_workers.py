"""The limits on account emails hold across the web processes with Redis stopped or hung: three
gunicorn workers, each its own process, share one count (the database's, `core.outages.cache`), so a
flood spread over them sends as many emails as the limit allows, not that many per worker:
password resets, sign-ups, the confirmation email sent again, and changes to one's addresses.

The mail goes over SMTP to a server of the test's own; the requests go three at a time, so that
every worker takes some (one after another, the worker that has just answered may take them all).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import pytest
import requests
from django.contrib.auth.hashers import PBKDF2PasswordHasher
from django.db import connection
from django.urls import reverse

from core.models import RateLimitEntry
from tests.support.databases import current_database
from tests.support.factories import PASSWORD
from tests.support.gunicorn import gunicorn
from tests.support.outage import closed_port, hung_server
from tests.support.smtp import Recorder, smtp_server

pytestmark = [pytest.mark.slow, pytest.mark.django_db(transaction=True)]

# Three rather than five: each imports the site on start-up (the server is ready when the first
# is, after the others shared the cores with it), and two would do to show a shared count.
WORKERS = 3
# allauth's defaults, which the site keeps (test_email_limits_redis_down.py).
RESETS_PER_ADDRESS = 5
SIGNUPS_PER_IP = 20
EMAIL_CHANGES_PER_USER = 10
PASSWORDS = {"password1": PASSWORD, "password2": PASSWORD}
# The workers' connections name themselves (libpq reads PGAPPNAME), to be counted.
APP_NAME = f"limits-test-{os.getpid()}"


@pytest.fixture(scope="module", params=["stopped", "hung"])
def redis_url(request) -> Iterator[str]:
    """A Redis that was stopped (nothing listens) or that accepts and never answers."""
    if request.param == "hung":
        with hung_server() as url:
            yield url
    else:
        yield f"redis://127.0.0.1:{closed_port()}/0"


@pytest.fixture(scope="module")
def stack(
    redis_url, static_root, tmp_path_factory, django_db_setup
) -> Iterator[tuple[str, Recorder]]:
    """WORKERS gunicorn workers with their cache (and broker) on that Redis and their mail to a
    recording SMTP server, started once for the module's tests on that Redis (starting them is
    most of a test's time); the base URL and the recorder."""
    recorder = Recorder()
    with (
        smtp_server(recorder) as smtp_port,
        gunicorn(
            "azul_site.wsgi",
            tmp_path_factory.mktemp("limits") / "gunicorn.log",
            ready_path="/favicon.ico",
            ready_statuses=(301, 302),
            # Not a test of the stop: with Redis hung, the workers took 5 s to exit after
            # their "Worker exiting" (2 s with it stopped).
            stop_seconds=1,
            WEB_CONCURRENCY=str(WORKERS),
            REDIS_URL=redis_url,
            EMAIL_URL=f"smtp://127.0.0.1:{smtp_port}",
            STATIC_ROOT=str(static_root),
            PGAPPNAME=APP_NAME,
            LOG_LEVEL="WARNING",
        ) as server,
    ):
        yield f"http://127.0.0.1:{server.port}", recorder


@pytest.fixture
def site(stack) -> tuple[str, Recorder]:
    """The module's servers as a test finds them alone: no mail recorded yet and no count of
    allauth's limits kept (the test database, emptied after each test, holds them, as the
    users and the sessions)."""
    base, recorder = stack
    assert not RateLimitEntry.objects.exists()
    recorder.messages.clear()
    return base, recorder


@pytest.fixture
def started_at(site) -> datetime:
    """When the test started, by the database's clock (`workers_that_served` counts the workers
    that queried it since)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT clock_timestamp()")
        return cursor.fetchone()[0]


def workers_that_served(since: datetime) -> int:
    """How many of the workers have queried the database `since` (the test's start): each keeps
    its connection (CONN_MAX_AGE), whose last query the server records."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND application_name = %s"
            " AND query_start >= %s",
            [current_database(), APP_NAME, since],
        )
        return cursor.fetchone()[0]


def form_token(session: requests.Session, url: str) -> str:
    """The CSRF token of the form on the page at `url`, read by `session` (which keeps the
    cookie that goes with it)."""
    page = session.get(url, timeout=30)
    assert page.status_code == 200, page.status_code
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)
    assert token, page.text[:500]
    return token.group(1)


def submit(session: requests.Session, url: str, form: dict[str, str]) -> int:
    """Fill in and send the form on the page at `url` as the browser `session` does (keeping
    the cookies it is given back); the status, a redirect not followed."""
    token = form_token(session, url)
    response = session.post(
        url,
        data={"csrfmiddlewaretoken": token, **form},
        headers={"Referer": url},
        allow_redirects=False,
        timeout=30,
    )
    return response.status_code


def flood(
    base: str,
    path: str,
    forms: list[dict[str, str]],
    session: requests.Session | None = None,
    page: str | None = None,
) -> list[int]:
    """POST each form to `path`, `WORKERS` at a time, with the cookies of `session` (a new
    browser's if none) and the token of the form on `page` (`path` if none); the statuses,
    redirects not followed."""
    session = session or requests.Session()
    token = form_token(session, base + (page or path))
    cookies = session.cookies.get_dict()

    def post(form: dict[str, str]) -> int:
        response = requests.post(
            base + path,
            data={"csrfmiddlewaretoken": token, **form},
            cookies=cookies,
            headers={"Referer": base + (page or path)},
            allow_redirects=False,
            timeout=30,
        )
        return response.status_code

    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        return list(pool.map(post, forms))


def test_password_resets_to_one_address_stop_at_the_limit(site, alice, started_at):
    base, mail = site
    statuses = flood(base, reverse("account_reset_password"), [{"email": alice.email}] * 15)

    assert sorted(statuses) == [302] * RESETS_PER_ADDRESS + [429] * (15 - RESETS_PER_ADDRESS)
    assert len(mail.messages) == RESETS_PER_ADDRESS
    assert all(m["rcpt_tos"] == [alice.email] for m in mail.messages)
    assert workers_that_served(started_at) >= 2  # the flood was spread over the processes


def test_sign_ups_from_one_address_stop_at_the_limit(site, django_user_model, started_at):
    base, mail = site
    forms = [
        {
            "username": f"flood{n}",
            "email": f"flood{n}@example.com",
            **PASSWORDS,
        }
        for n in range(SIGNUPS_PER_IP + 5)
    ]
    statuses = flood(base, reverse("account_signup"), forms)

    assert sorted(statuses) == [302] * SIGNUPS_PER_IP + [429] * 5
    assert len(mail.messages) == SIGNUPS_PER_IP
    assert django_user_model.objects.filter(username__startswith="flood").count() == SIGNUPS_PER_IP
    assert workers_that_served(started_at) >= 2


def test_confirmation_emails_wait_for_the_cool_down(site, started_at):
    base, mail = site
    dora = requests.Session()
    form = {"username": "dora", "email": "dora@example.com", **PASSWORDS}
    assert submit(dora, base + reverse("account_signup"), form) == 302
    assert len(mail.messages) == 1

    statuses = flood(
        base,
        reverse("accounts:verification_resend"),
        [{}] * 10,
        session=dora,
        page=reverse("account_email_verification_sent"),
    )

    assert statuses == [302] * 10  # "we sent you one less than 3 minutes ago"
    assert [m["rcpt_tos"] for m in mail.messages] == [["dora@example.com"]]
    assert workers_that_served(started_at) >= 2


def test_changes_to_a_players_addresses_stop_at_the_limit(site, alice, started_at):
    base, mail = site
    # Hashed as the servers hash (this process's tests use a faster hasher they do not know).
    hasher = PBKDF2PasswordHasher()
    alice.password = hasher.encode(PASSWORD, hasher.salt())
    alice.save(update_fields=["password"])
    browser = requests.Session()
    form = {"login": "alice", "password": PASSWORD}
    assert submit(browser, base + reverse("account_login"), form) == 302

    statuses = flood(
        base,
        reverse("account_email"),
        [{"action_add": "", "email": f"alice.{n}@example.com"} for n in range(15)],
        browser,
    )

    assert sorted(statuses) == [302] * EMAIL_CHANGES_PER_USER + [429] * 5
    assert len(mail.messages) == EMAIL_CHANGES_PER_USER
    assert workers_that_served(started_at) >= 2
