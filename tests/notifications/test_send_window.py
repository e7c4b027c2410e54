"""An email is marked sent as soon as the mail server took it: a process killed later (while it
says goodbye to a slow server, say) does not leave a sent email pending, which would go again
once its claim ran out."""

from __future__ import annotations

import asyncio
import threading

import pytest
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP
from django.db import connection
from django.utils import timezone

from notifications import outbox
from notifications.models import Notification
from tests.support import factories
from tests.support.mail import only_these
from tests.support.outage import closed_port
from tests.support.smtp import Recorder

pytestmark = pytest.mark.django_db(transaction=True)


class GoodbyeHeld(Controller):
    """An SMTP server that takes messages at once but holds its answer to QUIT until
    `release` is set; `quitting` is set when a QUIT comes."""

    def __init__(self, handler: Recorder) -> None:
        super().__init__(handler, hostname="127.0.0.1", port=closed_port())
        self.quitting = threading.Event()
        self.release = threading.Event()

    def factory(self) -> SMTP:
        controller = self

        class Server(SMTP):
            async def smtp_QUIT(self, arg: str) -> None:
                controller.quitting.set()
                await asyncio.get_running_loop().run_in_executor(None, controller.release.wait, 10)
                await super().smtp_QUIT(arg)

        return Server(self.handler, **self.SMTP_kwargs)


def test_the_email_is_marked_sent_before_the_goodbye(settings, alice, bob):
    game = only_these(lambda: factories.invite_game(bob, alice))
    recorder = Recorder()
    server = GoodbyeHeld(recorder)
    server.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT = "127.0.0.1", server.port
    settings.EMAIL_USE_TLS = settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    notification = Notification.objects.create(
        recipient=alice, kind="invitation", game=game, ply=0, send_after=timezone.now()
    )
    results: list[bool] = []

    def send() -> None:
        try:
            results.append(outbox.notification_send(notification_id=notification.pk))
        finally:
            connection.close()  # this thread's own

    sender = threading.Thread(target=send)
    try:
        sender.start()
        assert server.quitting.wait(10), "the sender never said goodbye"
        # The server has the email; the sender is still saying goodbye.
        assert len(recorder.messages) == 1
        notification.refresh_from_db()
        assert notification.status == Notification.Status.SENT
    finally:
        server.release.set()
        sender.join(15)
        server.stop()
    assert results == [True]
