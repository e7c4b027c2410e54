"""A real SMTP server on the loopback (aiosmtpd), for the tests whose mail goes through an SMTP
conversation: Django's SMTP backend, or a worker's, talks to it as to any mail server."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from aiosmtpd.controller import Controller

from tests.support.outage import closed_port


class Recorder:
    """An SMTP handler that keeps every message it is given."""

    def __init__(self) -> None:
        self.messages: list[dict] = []

    async def handle_DATA(self, server, session, envelope) -> str:
        self.messages.append(
            {
                "mail_from": envelope.mail_from,
                "rcpt_tos": list(envelope.rcpt_tos),
                "content": envelope.original_content or envelope.content,
            }
        )
        return "250 Message accepted for delivery"


@contextmanager
def smtp_server(handler: Any, settings: Any = None) -> Iterator[int]:
    """Serve SMTP with `handler` on a free loopback port, with this process's mail sent there
    when given its `settings` (`mail_to`); yields the port. Without them only other processes,
    told the port, send there (a server shared by several tests, which pytest-django's
    `settings`, one test's, cannot outlive)."""
    controller = Controller(handler, hostname="127.0.0.1", port=closed_port())
    controller.start()
    if settings is not None:
        mail_to(settings, controller.port)
    try:
        yield controller.port
    finally:
        controller.stop()


def mail_to(settings: Any, port: int) -> None:
    """This process's mail sent over SMTP to the loopback's `port` (plain SMTP: no TLS, no
    login), in pytest-django's `settings` (undone after the test)."""
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
