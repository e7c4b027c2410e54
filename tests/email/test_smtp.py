"""Sign-up mail through a real SMTP conversation (aiosmtpd on the loopback), then the link."""

import re
from email import message_from_bytes, policy

import pytest
from allauth.account.models import EmailAddress
from django.urls import reverse

from tests.support.factories import PASSWORD

pytestmark = pytest.mark.django_db

CONFIRM_LINK = re.compile(r"http://testserver(/accounts/confirm-email/[^/\s]+/)")


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
