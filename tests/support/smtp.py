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
def smtp_server(handler: Any, settings: Any) -> Iterator[int]:
    """Serve SMTP with `handler` on a free loopback port, with this process's mail sent there
    (plain SMTP: no TLS, no login); yields the port."""
    controller = Controller(handler, hostname="127.0.0.1", port=closed_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = controller.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    try:
        yield controller.port
    finally:
        controller.stop()
