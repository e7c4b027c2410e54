"""Sign-up mail through a real SMTP conversation (aiosmtpd on the loopback), then the link."""

import re
import socket
from email import message_from_bytes, policy

import pytest
from aiosmtpd.controller import Controller
from allauth.account.models import EmailAddress
from django.urls import reverse

from tests.conftest import PASSWORD

pytestmark = pytest.mark.django_db

CONFIRM_LINK = re.compile(r"http://testserver(/accounts/confirm-email/[^/\s]+/)")


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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def smtp_server(settings):
    recorder = Recorder()
    controller = Controller(recorder, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST = "127.0.0.1"
    settings.EMAIL_PORT = controller.port
    settings.EMAIL_USE_TLS = False
    settings.EMAIL_USE_SSL = False
    settings.EMAIL_HOST_USER = ""
    settings.EMAIL_HOST_PASSWORD = ""
    try:
        yield recorder
    finally:
        controller.stop()


def test_sign_up_mail_goes_through_smtp_and_its_link_confirms(client, smtp_server):
    response = client.post(
        reverse("account_signup"),
        {
            "username": "dora",
            "email": "dora@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )
    assert response.status_code == 302

    assert len(smtp_server.messages) == 1
    sent = smtp_server.messages[0]
    assert sent["rcpt_tos"] == ["dora@example.com"]
    assert "noreply@localhost" in sent["mail_from"]
    message = message_from_bytes(sent["content"], policy=policy.default)
    assert message["To"] == "dora@example.com"
    assert message["Subject"].startswith("[Azul] ")
    body = message.get_body(preferencelist=("plain",)).get_content()
    confirm_path = CONFIRM_LINK.search(body).group(1)

    assert client.get(confirm_path).status_code == 200
    assert client.post(confirm_path).status_code == 302
    assert EmailAddress.objects.get(email="dora@example.com").verified
