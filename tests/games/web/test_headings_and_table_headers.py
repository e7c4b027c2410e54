"""Every list page opens with a level-one heading, and no table header is empty (issue #34): a
screen reader's player jumps by headings and hears each column's name."""

import re

import pytest
from django.urls import reverse

from tests.support.play import finish

pytestmark = pytest.mark.django_db


def test_my_games_has_a_level_one_heading(alice, client_for):
    for language, heading in (("en", "My games"), ("ko", "내 게임")):
        page = client_for(alice).get(reverse("games:my_games"), HTTP_ACCEPT_LANGUAGE=language)
        assert re.findall(r"<h1>([^<]*)</h1>", page.content.decode()) == [heading]


def test_every_column_of_the_finished_games_has_a_name(alice, bob, client_for, start_game):
    finish(start_game(alice, bob))
    for language, name in (("en", "Replay"), ("ko", "다시 보기")):
        page = client_for(alice).get(reverse("games:history"), HTTP_ACCEPT_LANGUAGE=language)
        headers = re.findall(r"<th scope=\"col\">(.*?)</th>", page.content.decode())
        assert len(headers) == 4
        assert all(re.sub(r"<[^>]+>", "", header).strip() for header in headers), headers
        assert name in headers[-1]
