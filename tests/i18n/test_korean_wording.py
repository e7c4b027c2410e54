"""Korean that reads right (issue #29): no particle glued to an inserted name or site name (a
name can end in a vowel or a consonant, so "을(를)" or "(으)로" is always half wrong), no stray
space or full stop in the confirmation email's subject, and a contact address where the
password pages say to write to us."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from tests.support.factories import PASSWORD
from tests.support.html import text

pytestmark = pytest.mark.django_db

KO = {"HTTP_ACCEPT_LANGUAGE": "ko-KR,ko;q=0.9"}
HALF_PARTICLE = re.compile(r"[을를이가은는와과]\)|\([을를이가은는와과]|\(으\)로")


@pytest.fixture
def site_mail(settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    settings.SITE_NAME = "Azul"
    settings.CONTACT_EMAIL = "help@azul.example"


def test_the_korean_confirmation_email(site_mail, mailoutbox):
    client = Client()
    client.post(
        reverse("account_signup"),
        {
            "username": "dora",
            "email": "dora@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
        **KO,
    )

    [mail] = mailoutbox
    assert mail.subject == "[Azul] 이메일 주소를 확인해 주세요"
    assert not HALF_PARTICLE.search(mail.body), mail.body
    assert "Azul 서비스를 이용해 주셔서 감사합니다!" in mail.body


def test_the_english_confirmation_subject_is_unchanged(site_mail, mailoutbox):
    Client().post(
        reverse("account_signup"),
        {
            "username": "dora",
            "email": "dora@example.com",
            "password1": PASSWORD,
            "password2": PASSWORD,
        },
    )

    [mail] = mailoutbox
    assert mail.subject == "[Azul] Please Confirm Your Email Address"


def test_signed_in_as_a_name_in_korean(site_mail, make_user):
    from accounts.models import Profile

    Profile.objects.filter(user=make_user("dora")).update(language="ko")
    response = Client().post(
        reverse("account_login"), {"login": "dora", "password": PASSWORD}, follow=True, **KO
    )

    page = text(response.content.decode())
    assert "dora 님으로 로그인했습니다." in page
    assert not HALF_PARTICLE.search(page)


@pytest.mark.parametrize("name", ["account_reset_password", "account_reset_password_done"])
def test_the_password_pages_give_an_address_to_write_to(site_mail, name):
    for headers, words in (({}, "Write to us at"), (KO, "연락해 주세요")):
        page = Client().get(reverse(name), **headers).content.decode()
        assert 'href="mailto:help@azul.example"' in page, name
        assert words in text(page) or words.lower() in text(page)


def test_the_contact_setting_has_a_safe_default():
    from django.conf import settings

    assert "@" in settings.CONTACT_EMAIL
