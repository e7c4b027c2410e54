"""The player's language and vacation on the settings page (issue #29).

Language: the profile's language is used at every sign-in (a fresh browser signing in gets it,
whatever the browser asks for), the settings page shows and saves it, and the switcher saves it.
Vacation: the settings page shows the days left this year, and a vacation can be ended early,
which gives back the whole days not taken and moves the player's deadlines back."""

from __future__ import annotations

import datetime
from datetime import timedelta

import pytest
import time_machine
from django.conf import settings
from django.test import Client
from django.urls import reverse

from accounts.forms import ProfileForm
from accounts.models import Profile
from games import services as games_services
from games.models import Game
from tests.support.factories import PASSWORD
from tests.support.html import text
from tests.support.play import waiting_for

pytestmark = pytest.mark.django_db

EN = {"HTTP_ACCEPT_LANGUAGE": "en-US,en;q=0.9"}
KO = {"HTTP_ACCEPT_LANGUAGE": "ko-KR,ko;q=0.9"}
START = datetime.datetime(2027, 3, 10, 9, 0, tzinfo=datetime.UTC)


def settings_form(person, **changes) -> dict:
    """The settings form as the page posts it, with `changes`."""
    form = ProfileForm(instance=Profile.objects.get(user=person))
    data = {name: value for name, value in form.initial.items() if value not in (None, False)}
    data.update(email_digest="on", **changes)
    return {name: value for name, value in data.items() if value is not None}


def sign_in(client: Client, username: str, **headers):
    return client.post(
        reverse("account_login"),
        {"login": username, "password": PASSWORD},
        follow=True,
        **headers,
    )


# -- language -------------------------------------------------------------------------------------


def test_a_fresh_english_browser_signing_in_gets_the_saved_korean(alice):
    Profile.objects.filter(user=alice).update(language="ko")
    client = Client()
    assert '<html lang="en">' in client.get(reverse("home"), **EN).content.decode()

    response = sign_in(client, "alice", **EN)

    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ko"
    page = response.content.decode()
    assert '<html lang="ko">' in page
    # allauth's "signed in as", with no particle glued to the name.
    assert "alice 님으로 로그인했습니다." in text(page)
    assert '<html lang="ko">' in client.get(reverse("home"), **EN).content.decode()


def test_a_korean_browser_signing_in_gets_the_saved_english(alice):
    client = Client()
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "ko"

    response = sign_in(client, "alice", **KO)

    assert client.cookies[settings.LANGUAGE_COOKIE_NAME].value == "en"
    assert '<html lang="en">' in response.content.decode()


def test_the_settings_page_shows_and_saves_the_language(alice, client_for):
    client = client_for(alice)
    page = client.get(reverse("accounts:settings")).content.decode()
    assert 'name="language"' in page
    assert '<option value="en" selected>' in page

    response = client.post(
        reverse("accounts:settings"),
        settings_form(alice, language="ko"),
    )

    assert response.status_code == 302
    assert Profile.objects.get(user=alice).language == "ko"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "ko"
    after = client.get(reverse("accounts:settings")).content.decode()
    assert '<html lang="ko">' in after and "설정을 저장했습니다." in after
    assert '<option value="ko" selected>' in after


def test_settings_posted_without_a_language_keep_it(alice, client_for):
    Profile.objects.filter(user=alice).update(language="ko")

    response = client_for(alice).post(
        reverse("accounts:settings"),
        settings_form(alice, language=None),
    )

    assert response.status_code == 302
    assert Profile.objects.get(user=alice).language == "ko"
    assert settings.LANGUAGE_COOKIE_NAME not in response.cookies


# -- vacation -------------------------------------------------------------------------------------


def vacation_section(client, **headers) -> str:
    page = client.get(reverse("accounts:settings"), **headers).content.decode()
    start = page.index('id="vacation"')
    return text(page[start : page.index("</section>", start)])


def test_the_settings_page_shows_the_vacation_days_left_this_year(alice, client_for):
    with time_machine.travel(START, tick=False):
        client = client_for(alice)
        assert "You have 14 vacation days left this year." in vacation_section(client)
        client.post(reverse("games:vacation"), {"days": "5"})
        section = vacation_section(client)

    assert "You have 9 vacation days left this year." in section
    assert "End my vacation now" in section


def test_the_vacation_days_left_in_korean(alice, client_for):
    Profile.objects.filter(user=alice).update(vacation_days_used=13, vacation_year=START.year)

    with time_machine.travel(START, tick=False):
        section = vacation_section(client_for(alice), **KO)

    assert "올해 남은 휴가: 1일" in section


def test_ending_a_vacation_early_gives_back_the_days_not_taken(alice, bob, start_game, client_for):
    with time_machine.travel(START, tick=False) as clock:
        game = waiting_for(start_game(alice, bob), alice)
        deadline = Game.objects.get(pk=game.pk).turn_deadline
        client = client_for(alice)
        client.post(reverse("games:vacation"), {"days": "5"})
        assert Game.objects.get(pk=game.pk).turn_deadline == deadline + timedelta(days=5)

        # Back after 1 day and 3 hours: 2 days taken (a day begun counts), 3 given back.
        clock.shift(timedelta(days=1, hours=3))
        response = client.post(reverse("games:vacation_end"), follow=True)

        profile = Profile.objects.get(user=alice)
        assert not profile.on_vacation(START + timedelta(days=1, hours=3))
        assert profile.vacation_days_used == 2
        assert "3 unused days of vacation are yours again this year." in text(
            response.content.decode()
        )
        assert "You have 12 vacation days left this year." in vacation_section(client)
        # The clock was stopped for the time taken, and no longer.
        assert Game.objects.get(pk=game.pk).turn_deadline == deadline + timedelta(days=1, hours=3)


def test_ending_a_vacation_when_not_on_one_says_so(alice, client_for):
    response = client_for(alice).post(reverse("games:vacation_end"), follow=True)

    assert response.status_code == 200
    assert "You are not on vacation." in text(response.content.decode())


def test_ending_a_vacation_is_a_post(alice, client_for):
    assert client_for(alice).get(reverse("games:vacation_end")).status_code == 405


def test_the_service_refuses_to_end_no_vacation(alice):
    from games.errors import InvalidAction

    with pytest.raises(InvalidAction):
        games_services.vacation_end(user=alice)
