"""Errors reported to Sentry (issue #31) when SENTRY_DSN is set, and nothing when it is not. The
Sentry here is a local HTTP server that takes what an ingest endpoint takes (envelopes)."""

from __future__ import annotations

import gzip
import subprocess
import textwrap
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.support.databases import current_database, database_url
from tests.support.processes import python_with_settings

ROOT = Path(__file__).resolve().parents[2]

PASSWORD = "hunter2-tile-wall"
SEED = "5eed0fdea1c0ffee5eed0fdea1c0ffee"
TOKEN = "tok3n-of-the-bot-0123456789abcdef012345"
SESSION = "s3ssion0123456789abcdefghijklmnop"
EMAIL = "dora.player+azul@example.org"

FAILING_REQUEST = textwrap.dedent(f"""
    import sys, types
    import django
    django.setup()
    from django.conf import settings
    from django.test import Client
    from django.urls import include, path

    def boom(request, token):
        password = {PASSWORD!r}
        deal_seed = {SEED!r}
        raise RuntimeError("the view failed for " + request.POST["email"])

    urls = types.ModuleType("failing_urls")
    urls.urlpatterns = [
        path("notifications/unsubscribe/<str:token>/", boom),
        path("", include("azul_site.urls")),
    ]
    sys.modules["failing_urls"] = urls
    settings.ROOT_URLCONF = "failing_urls"

    client = Client(raise_request_exception=False, HTTP_HOST="localhost")
    client.cookies["sessionid"] = {SESSION!r}
    response = client.post(
        "/notifications/unsubscribe/{TOKEN}/?token={TOKEN}",
        {{"password": {PASSWORD!r}, "email": {EMAIL!r}}},
        headers={{"Authorization": "Token {TOKEN}"}},
    )
    print(response.status_code)
    import sentry_sdk
    sentry_sdk.flush(timeout=10)
""")

# A task as the site's are (an id in, the work looked up, a retry on a transient fault), failing
# the way a mail task can: the address in the log line before and in the error itself.
FAILING_TASK = textwrap.dedent(f"""
    import logging, smtplib
    import django
    django.setup()
    import sentry_sdk
    from azul_site.celery import app

    logger = logging.getLogger("notifications.outbox")

    @app.task(name="tests.failing_mail")
    def failing_mail(notification_id):
        password = {PASSWORD!r}
        deal_seed = {SEED!r}
        token = {TOKEN!r}
        logger.warning("mail %s to %s refused", notification_id, {EMAIL!r})
        raise smtplib.SMTPRecipientsRefused({{{EMAIL!r}: (550, b"no such user")}})

    print(failing_mail.apply(args=[7], throw=False).state)
    sentry_sdk.flush(timeout=10)
""")


class Sink(BaseHTTPRequestHandler):
    received: list[bytes]

    def do_POST(self) -> None:  # noqa: N802
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Content-Encoding") == "gzip":
            body = gzip.decompress(body)
        elif self.headers.get("Content-Encoding") == "br":
            import brotli

            body = brotli.decompress(body)
        self.server.received.append((self.path, body))  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def sentry_sink() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Sink)
    server.received = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def run(code: str, **env: str) -> subprocess.CompletedProcess:
    return python_with_settings(
        code, {"DATABASE_URL": database_url(current_database()), **env}, without=("SENTRY_",)
    )


def reported(sink: ThreadingHTTPServer, code: str, *, printed: str) -> str:
    """What Sentry (the sink) was sent by `code` run with SENTRY_DSN set, which printed
    `printed`."""
    done = run(code, SENTRY_DSN=f"http://publickey@127.0.0.1:{sink.server_address[1]}/42")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == printed
    envelopes = [body for path, body in sink.received if path == "/api/42/envelope/"]  # type: ignore[attr-defined]
    assert envelopes, sink.received  # type: ignore[attr-defined]
    return b"".join(envelopes).decode("utf-8", "replace")


@pytest.mark.django_db
def test_an_error_in_a_view_reaches_sentry_without_personal_data_or_secrets(sentry_sink):
    sent = reported(sentry_sink, FAILING_REQUEST, printed="500")
    assert "RuntimeError" in sent and "the view failed" in sent
    assert "/notifications/unsubscribe/[Filtered]/" in sent
    for secret in (PASSWORD, SEED, TOKEN, SESSION, EMAIL):
        assert secret not in sent, secret


@pytest.mark.django_db
def test_an_error_in_a_task_reaches_sentry_without_personal_data_or_secrets(sentry_sink):
    sent = reported(sentry_sink, FAILING_TASK, printed="FAILURE")
    assert "SMTPRecipientsRefused" in sent and "tests.failing_mail" in sent
    # The error's message and the log line before it (a breadcrumb), their address scrubbed.
    assert "{'[Filtered]': (550, b'no such user')}" in sent
    assert "mail 7 to [Filtered] refused" in sent
    for secret in (PASSWORD, SEED, TOKEN, EMAIL):
        assert secret not in sent, secret


def test_without_a_dsn_sentry_is_not_even_loaded():
    done = run(
        "import sys, django; django.setup(); "
        "from django.conf import settings; "
        "print(settings.SENTRY_DSN == '', 'sentry_sdk' in sys.modules)"
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]
