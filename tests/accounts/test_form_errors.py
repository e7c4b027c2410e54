"""Errors on the account pages sit where they belong, as on the new-game form: a field's errors
right under that field, errors about the whole form above the fields."""

import re

import pytest
from django.urls import reverse

from tests.support.factories import PASSWORD

pytestmark = pytest.mark.django_db


def field_block(html: str, name: str) -> str:
    """The markup of one field (label, input, its errors), as the site's forms render it."""
    match = re.search(
        rf'<div class="field[^"]*" id="field-{name}">(.*?)(?=<div class="field|</form>)',
        html,
        re.S,
    )
    assert match, f"no field {name!r} in the form"
    return match.group(1)


def errors_under(html: str, name: str) -> list[str]:
    """The errors shown under field `name`, checked to come after its input."""
    block = field_block(html, name)
    errors = re.search(r'<ul class="errorlist"[^>]*>(.*?)</ul>', block, re.S)
    if not errors:
        return []
    assert block.index(f'name="{name}"') < errors.start(), f"{name}'s errors are above it"
    return re.findall(r"<li>(.*?)</li>", errors.group(1), re.S)


def form_errors(html: str) -> list[str]:
    """The errors above a form's first field."""
    form = html[html.index("<form method=") :]
    top = form[: form.index('<div class="field')]
    return re.findall(r"<li>(.*?)</li>", "".join(re.findall(r"form-errors\">(.*?)</ul>", top)))


def test_sign_up_errors_sit_under_the_fields_they_belong_to(client, alice, mailoutbox):
    response = client.post(
        reverse("account_signup"),
        {
            "username": "Alice",
            "email": "not-an-email",
            "password1": "123",
            "password2": "456",
        },
    )

    assert response.status_code == 200
    html = response.content.decode()
    assert "already" in " ".join(errors_under(html, "username"))
    assert errors_under(html, "email") == ["Enter a valid email address."]
    password_errors = " ".join(errors_under(html, "password1"))
    assert "too short" in password_errors and "entirely numeric" in password_errors
    assert form_errors(html) == []
    assert mailoutbox == []


def test_sign_up_password_mismatch_is_under_the_second_password(client):
    response = client.post(
        reverse("account_signup"),
        {
            "username": "dora",
            "email": "dora@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD + "x",
        },
    )

    html = response.content.decode()
    assert errors_under(html, "password2") == ["You must type the same password each time."]
    assert errors_under(html, "username") == [] and errors_under(html, "email") == []
    # What was typed stays, except passwords.
    assert 'value="dora@example.com"' in field_block(html, "email")


def test_the_browser_leaves_checking_to_the_server(client):
    # Without `novalidate`, the browser's own bubbles would answer some mistakes, away from the
    # fields' messages; the site's forms all let the server say it, under the field.
    html = client.get(reverse("account_signup")).content.decode()

    assert re.search(r'<form method="post"\s+action="/accounts/signup/"\s+novalidate>', html)


def test_a_wrong_password_is_said_above_the_login_form(client, alice):
    response = client.post(reverse("account_login"), {"login": "alice", "password": "nope-123"})

    html = response.content.decode()
    assert form_errors(html) == ["The username and/or password you specified are not correct."]
    assert errors_under(html, "login") == [] and errors_under(html, "password") == []


def test_a_missing_login_is_said_under_its_field(client):
    response = client.post(reverse("account_login"), {"login": "", "password": "x"})

    assert errors_under(response.content.decode(), "login") == ["This field is required."]


def test_password_change_errors_sit_under_their_fields(alice, client_for):
    response = client_for(alice).post(
        reverse("account_change_password"),
        {"oldpassword": "not-it", "password1": "short", "password2": "short"},
    )

    html = response.content.decode()
    assert errors_under(html, "oldpassword") == ["Please type your current password."]
    assert "too short" in " ".join(errors_under(html, "password1"))


def test_password_reset_error_sits_under_the_email(client):
    response = client.post(reverse("account_reset_password"), {"email": "nope"})

    assert errors_under(response.content.decode(), "email") == ["Enter a valid email address."]


def test_email_change_error_sits_under_the_new_address(alice, client_for):
    response = client_for(alice).post(
        reverse("account_email"), {"action_add": "", "email": "not-an-email"}
    )

    html = response.content.decode()
    block = re.search(r'<div class="field has-errors">(.*?)</div>', html, re.S)
    assert block, "the field with the error is marked"
    assert block.group(1).index('name="email"') < block.group(1).index("Enter a valid email")


def test_sign_up_says_what_is_wrong_with_a_password_once(client):
    rules = "Your password must contain at least 8 characters."
    assert rules in client.get(reverse("account_signup")).content.decode()

    response = client.post(
        reverse("account_signup"),
        {"username": "dora", "email": "dora@example.com", "password1": "abc", "password2": "abc"},
    )

    page = response.content.decode()
    assert "This password is too short. It must contain at least 8 characters." in page
    assert rules not in page  # the rules are not listed again under the errors
    assert page.count("at least 8 characters") == 1
