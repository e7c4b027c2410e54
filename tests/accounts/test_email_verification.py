"""The "verify your email" step: its page sends the email again (within allauth's rate limit),
and following the link signs the new player in, in the browser they signed up in."""

import re

import pytest
import time_machine
from allauth.account.models import EmailAddress
from axes.models import AccessAttempt, AccessLog
from django.test import Client
from django.urls import reverse

from tests.support.factories import PASSWORD

pytestmark = pytest.mark.django_db

CONFIRM_LINK = re.compile(r"http://testserver(/accounts/confirm-email/[^/\s]+/)")
RESEND = reverse("accounts:verification_resend")
SENT_PAGE = reverse("account_email_verification_sent")


def sign_up(client, username="dora", email="dora@example.com"):
    return client.post(
        reverse("account_signup"),
        {"username": username, "email": email, "password1": PASSWORD, "password2": PASSWORD},
    )


def confirm_path(mail) -> str:
    return CONFIRM_LINK.search(mail.body).group(1)


def is_logged_in(client) -> bool:
    return "_auth_user_id" in client.session


def page_text(response) -> str:
    return response.content.decode()


def test_the_verification_page_names_the_address_and_offers_to_send_again(client, mailoutbox):
    response = sign_up(client)
    page = client.get(response.url)

    content = page_text(page)
    assert "<strong>dora@example.com</strong>" in content
    assert f'action="{RESEND}"' in content
    assert 'id="resend-verification"' in content


def test_resend_waits_for_the_cool_down_then_sends_a_second_email(client, mailoutbox):
    with time_machine.travel("2026-11-23 10:00:00+00:00", tick=False) as clock:
        sign_up(client)
        assert len(mailoutbox) == 1

        # At once: allauth's rate limit (one email per address per 3 minutes) holds it back.
        too_soon = client.post(RESEND, follow=True)
        assert too_soon.redirect_chain == [(SENT_PAGE, 302)]
        assert len(mailoutbox) == 1
        assert "less than 3 minutes ago" in page_text(too_soon)

        clock.shift(181)
        again = client.post(RESEND, follow=True)
        # The new link works (and so would the first: both stay valid until used or expired).
        # Followed at the test's own time: links expire after some days of the real clock.
        confirm = client.post(confirm_path(mailoutbox[1]))

    assert again.redirect_chain == [(SENT_PAGE, 302)]
    assert "Confirmation email sent to dora@example.com." in page_text(again)
    assert len(mailoutbox) == 2
    assert mailoutbox[1].to == ["dora@example.com"]
    assert confirm.status_code == 302
    assert EmailAddress.objects.get(email="dora@example.com").verified


def test_resend_for_an_address_that_has_an_account_looks_the_same_and_tells_its_owner(
    client, alice, mailoutbox, django_user_model
):
    # Sign-up with alice's address: the page cannot say "taken" (it would tell anyone which
    # addresses have accounts), so it behaves as for a new one, and alice hears of it again.
    with time_machine.travel("2026-11-23 10:00:00+00:00", tick=False) as clock:
        sign_up(client, username="mallory", email="alice@example.com")
        page = client.get(SENT_PAGE)
        assert 'id="resend-verification"' in page_text(page)
        clock.shift(181)
        again = client.post(RESEND, follow=True)

    assert "Confirmation email sent to alice@example.com." in page_text(again)
    assert [m.to for m in mailoutbox] == [["alice@example.com"], ["alice@example.com"]]
    assert "already" in mailoutbox[1].body
    assert not django_user_model.objects.filter(username="mallory").exists()


def test_resend_without_a_sign_up_in_this_browser_sends_to_the_login_page(client, mailoutbox):
    response = client.post(RESEND, follow=True)

    assert response.redirect_chain == [(reverse("account_login"), 302)]
    assert "Log in with your username and password" in page_text(response)
    assert mailoutbox == []
    # The page itself then says how to get a new link.
    page = client.get(SENT_PAGE)
    assert 'id="resend-verification"' not in page_text(page)
    assert reverse("account_login") in page_text(page)


def test_resend_only_answers_posts(client):
    assert client.get(RESEND).status_code == 405


def test_confirming_the_email_signs_the_new_player_in(client, mailoutbox, django_user_model):
    sign_up(client)
    assert not is_logged_in(client)

    page = client.get(confirm_path(mailoutbox[0]))
    assert page.status_code == 200
    response = client.post(confirm_path(mailoutbox[0]), follow=True)

    assert response.redirect_chain[-1] == (reverse("home"), 302)
    assert is_logged_in(client)
    dora = django_user_model.objects.get(username="dora")
    assert int(client.session["_auth_user_id"]) == dora.pk
    assert EmailAddress.objects.get(user=dora).verified
    # django-axes saw a successful login (and counts nothing against her).
    assert AccessLog.objects.filter(username="dora").exists()
    assert not AccessAttempt.objects.exists()
    # Signed in means the pages are hers.
    assert client.get(reverse("accounts:settings")).status_code == 200


def test_confirming_after_failed_logins_still_signs_in_and_clears_them(client, mailoutbox):
    sign_up(client)
    other = Client()
    for _ in range(2):
        other.post(reverse("account_login"), {"login": "dora", "password": "wrong-guess-123"})
    assert AccessAttempt.objects.filter(username="dora").exists()

    client.post(confirm_path(mailoutbox[0]))

    assert is_logged_in(client)
    # AXES_RESET_ON_SUCCESS: her successful login forgets the failed guesses.
    assert not AccessAttempt.objects.filter(username="dora").exists()


def test_confirming_in_another_browser_confirms_and_asks_to_log_in(client, mailoutbox):
    sign_up(client)
    elsewhere = Client()  # say, the phone that got the email

    response = elsewhere.post(confirm_path(mailoutbox[0]), follow=True)

    assert EmailAddress.objects.get(email="dora@example.com").verified
    assert not is_logged_in(elsewhere)
    assert response.redirect_chain[-1] == (reverse("account_login"), 302)
    assert "Your email address is confirmed: log in to start playing." in page_text(response)
    # There, she logs in with her password as usual.
    login = elsewhere.post(reverse("account_login"), {"login": "dora", "password": PASSWORD})
    assert login.status_code == 302
    assert is_logged_in(elsewhere)
    # The browser she signed up in is not signed in by someone else's click.
    assert not is_logged_in(client)


def test_confirming_after_the_sign_up_has_timed_out_confirms_and_asks_to_log_in(client, mailoutbox):
    with time_machine.travel("2026-11-23 10:00:00+00:00", tick=False) as clock:
        sign_up(client)
        clock.shift(16 * 60)  # past ACCOUNT_LOGIN_TIMEOUT (15 minutes)
        response = client.post(confirm_path(mailoutbox[0]), follow=True)

    assert EmailAddress.objects.get(email="dora@example.com").verified
    assert not is_logged_in(client)
    assert "log in to start playing" in page_text(response)


def test_resend_after_confirming_elsewhere_signs_in_here(client, mailoutbox):
    sign_up(client)
    Client().post(confirm_path(mailoutbox[0]))

    response = client.post(RESEND)

    assert response.status_code == 302
    assert is_logged_in(client)
    assert len(mailoutbox) == 1
