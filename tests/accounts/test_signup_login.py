import re

import pytest
from allauth.account.models import EmailAddress
from django.urls import reverse

from accounts.models import DELIVERY_FIELDS
from tests.support.factories import PASSWORD

pytestmark = pytest.mark.django_db

CONFIRM_LINK = re.compile(r"http://testserver(/accounts/confirm-email/[^/\s]+/)")


def sign_up(client, username="dora", email="dora@example.com"):
    return client.post(
        reverse("account_signup"),
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )


def log_in(client, login, password=PASSWORD):
    return client.post(reverse("account_login"), {"login": login, "password": password})


def is_logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def test_sign_up_then_confirm_email_then_log_in(client, mailoutbox):
    response = sign_up(client)

    assert response.status_code == 302
    assert response.url == reverse("account_email_verification_sent")
    assert not is_logged_in(client)
    assert len(mailoutbox) == 1
    mail = mailoutbox[0]
    assert mail.to == ["dora@example.com"]
    assert mail.subject.startswith("[Azul] ")
    confirm_path = CONFIRM_LINK.search(mail.body).group(1)

    page = client.get(confirm_path)
    assert page.status_code == 200
    assert "dora@example.com" in page.content.decode()
    confirmed = client.post(confirm_path)
    assert confirmed.status_code == 302
    assert EmailAddress.objects.get(email="dora@example.com").verified

    response = log_in(client, "dora")
    assert response.status_code == 302
    assert response.url == reverse("home")
    assert is_logged_in(client)


def test_new_user_gets_a_profile_with_default_preferences(client, mailoutbox, django_user_model):
    sign_up(client)

    profile = django_user_model.objects.get(username="dora").profile
    assert profile.time_zone == "UTC"
    assert {getattr(profile, f) for f in DELIVERY_FIELDS if f != "email_chat"} == {"immediate"}
    assert profile.email_chat == "never"
    assert profile.email_digest
    assert profile.name == "dora"


def test_unverified_user_is_sent_to_verification_instead_of_logged_in(client, make_user):
    make_user("dora", verified=False)

    response = log_in(client, "dora")

    assert response.status_code == 302
    assert response.url == reverse("account_email_verification_sent")
    assert not is_logged_in(client)


def test_sign_up_refuses_a_taken_username_whatever_its_case(client, alice, mailoutbox):
    response = sign_up(client, username="Alice", email="someone.else@example.com")

    assert response.status_code == 200
    assert "username" in response.context["form"].errors
    assert mailoutbox == []


def test_sign_up_with_a_taken_email_tells_only_its_owner(
    client, alice, mailoutbox, django_user_model
):
    # Answering "email taken" on the page would tell anyone which addresses have accounts.
    response = sign_up(client, username="mallory", email="ALICE@example.com")

    assert response.status_code == 302
    assert not django_user_model.objects.filter(username="mallory").exists()
    assert [mail.to for mail in mailoutbox] == [["alice@example.com"]]
    assert "already" in mailoutbox[0].body


@pytest.mark.parametrize("login", ["alice", "alice@example.com", "Alice@Example.com"])
def test_log_in_with_username_or_email(client, alice, login):
    response = log_in(client, login)

    assert response.status_code == 302
    assert is_logged_in(client)
    assert int(client.session["_auth_user_id"]) == alice.pk


def test_wrong_password_is_refused_with_a_form_error(client, alice):
    response = log_in(client, "alice", password="not-the-password")

    assert response.status_code == 200
    assert response.context["form"].non_field_errors()
    assert not is_logged_in(client)


def test_log_out(alice, client_for):
    client = client_for(alice)

    response = client.post(reverse("account_logout"))

    assert response.status_code == 302
    assert not is_logged_in(client)


@pytest.mark.parametrize(
    "url_name",
    [
        "account_login",
        "account_signup",
        "account_reset_password",
        "account_email_verification_sent",
    ],
)
def test_account_pages_render_inside_the_site_layout(client, url_name):
    response = client.get(reverse(url_name))

    assert response.status_code == 200
    content = response.content.decode()
    assert 'class="site-header"' in content
    assert "/static/css/site.css" in content


@pytest.mark.parametrize("url_name", ["account_email", "account_change_password"])
def test_account_management_pages_render_inside_the_site_layout(alice, client_for, url_name):
    response = client_for(alice).get(reverse(url_name))

    assert response.status_code == 200
    assert 'class="site-header"' in response.content.decode()


def test_password_reset_mails_a_link_that_sets_a_new_password(client, alice, mailoutbox):
    response = client.post(reverse("account_reset_password"), {"email": "alice@example.com"})
    assert response.status_code == 302
    assert len(mailoutbox) == 1
    reset_path = re.search(
        r"http://testserver(/accounts/password/reset/key/\S+/)", mailoutbox[0].body
    )

    page = client.get(reset_path.group(1), follow=True)
    form_path = page.redirect_chain[-1][0] if page.redirect_chain else reset_path.group(1)
    new_password = "a-brand-new-wall-9931"
    response = client.post(form_path, {"password1": new_password, "password2": new_password})

    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password(new_password)


def test_password_change(alice, client_for):
    client = client_for(alice)
    new_password = "a-brand-new-wall-9931"

    response = client.post(
        reverse("account_change_password"),
        {"oldpassword": PASSWORD, "password1": new_password, "password2": new_password},
    )

    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.check_password(new_password)


def test_adding_an_email_address_sends_a_confirmation(alice, client_for, mailoutbox):
    client = client_for(alice)

    response = client.post(
        reverse("account_email"), {"action_add": "", "email": "alice.new@example.com"}
    )

    assert response.status_code == 302
    assert mailoutbox[-1].to == ["alice.new@example.com"]
    assert EmailAddress.objects.filter(user=alice, email="alice.new@example.com").exists()
