"""The password-reset form mails accounts only (ACCOUNT_EMAIL_UNKNOWN_ACCOUNTS off), and answers
an unknown address exactly as a known one, so that it neither mails strangers nor tells who has
an account."""

import re

import pytest
from django.urls import reverse

pytestmark = pytest.mark.django_db


def page_text(response) -> str:
    """The page, less what differs on every response (the masked CSRF token)."""
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", response.content.decode())


def ask_for_reset(client, email):
    response = client.post(reverse("account_reset_password"), {"email": email}, follow=True)
    assert response.status_code == 200
    return response


def test_an_unknown_address_gets_no_email_and_the_same_answer(client, alice, mailoutbox):
    known = ask_for_reset(client, "alice@example.com")
    assert [m.to for m in mailoutbox] == [["alice@example.com"]]

    unknown = ask_for_reset(client, "stranger@example.org")

    assert len(mailoutbox) == 1
    assert unknown.redirect_chain == known.redirect_chain
    assert page_text(unknown) == page_text(known)
