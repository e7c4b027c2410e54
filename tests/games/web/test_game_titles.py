"""A game is named by who plays it (its page's title, its board's heading, its replay), computers of
one level are told apart by number wherever seats are named, and the history's filters offer
"any" for every choice, so that a search by player alone finds games of any size."""

import re

import pytest
from django.urls import reverse

from games.presenters.names import game_title, seat_names
from games.selectors import game_get
from tests.support.factories import against_computer, finished_game
from tests.support.html import form_defaults
from tests.support.urls import board_url

pytestmark = pytest.mark.django_db

KO = {"HTTP_ACCEPT_LANGUAGE": "ko-KR,ko;q=0.9"}


def page_title(content: str) -> str:
    return re.search(r"<title>(.*?)</title>", content, re.S).group(1).strip()


def test_a_games_page_is_titled_by_its_players_and_computers_of_one_level_are_numbered(
    alice, client_for
):
    game = against_computer(alice, computers=3, level="random")
    names = "alice v Computer (random) 1 v Computer (random) 2 v Computer (random) 3"
    content = client_for(alice).get(board_url(game)).content.decode()

    assert page_title(content).endswith(f"{names}, round 1 · Azul")
    assert str(game.id)[:8] not in page_title(content)
    assert re.search(rf"<h1[^>]*>{re.escape(names)} · Colored wall</h1>", content)
    # The board carries it for the page's script, which keeps the tab's title up to date.
    assert re.search(rf'data-title="[^"]*{re.escape(names)}, round 1 · Azul"', content)
    # Each seat is named apart wherever it is named: its board, the moves' list.
    for number in (1, 2, 3):
        assert f"Computer (random) {number}" in content.split('<section class="log">')[0]

    replay = client_for(alice).get(reverse("games:replay", args=[game.id]))
    replay_title = re.sub(r"^\(\d+\) ", "", page_title(replay.content.decode()))  # games waiting
    assert replay_title.startswith(f"Replay of {names}, round 1 · move 0")


def test_mixed_levels_are_not_numbered_and_a_finished_game_says_so(alice, bob):
    game = against_computer(alice, computers=2, level="greedy")
    assert list(seat_names(game_get(game_id=game.id).seat_list).values()) == [
        "alice",
        "Computer (greedy) 1",
        "Computer (greedy) 2",
    ]
    finished = finished_game([(alice, 30, 1), (None, 20, 2), (bob, 10, 3)])
    names = list(seat_names(game_get(game_id=finished.id).seat_list).values())
    assert names == ["alice", "Computer (random)", "bob"]
    assert game_title(names, status="finished") == "alice v Computer (random) v bob, finished"


def test_titles_in_korean(alice, client_for):
    game = against_computer(alice, computers=2, level="random")
    content = client_for(alice).get(board_url(game), **KO).content.decode()
    assert "alice 대 컴퓨터 (무작위) 1 대 컴퓨터 (무작위) 2, 라운드 1 · Azul" in page_title(content)


def test_the_history_filters_offer_any_and_find_a_three_player_game(alice, bob, carol, client):
    three = finished_game([(alice, 40, 1), (bob, 30, 2), (carol, 20, 3)])
    two = finished_game([(alice, 40, 1), (bob, 30, 2)], days_ago=1)
    page = client.get(reverse("games:history")).content.decode()

    assert "---------" not in page
    defaults = form_defaults(page, "history-filters")
    assert defaults == {
        "player": "",
        "result": "",
        "variant": "",
        "players": "",
        "finished_after": "",
        "finished_before": "",
    }
    for label in ("Any result", "Any variant", "Any number of players"):
        assert f'<option value="" selected>{label}</option>' in page
    assert len(re.findall(r'<input type="date" name="finished_(?:after|before)"', page)) == 2

    # What the form sends when only the player is chosen: every size of game.
    found = client.get(reverse("games:history"), {**defaults, "player": "alice"})
    rows = found.content.decode()
    assert f"/games/{three.id}/replay/" in rows and f"/games/{two.id}/replay/" in rows
    only_three = client.get(reverse("games:history"), {**defaults, "players": "3"})
    assert f"/games/{two.id}/replay/" not in only_three.content.decode()
    assert f"/games/{three.id}/replay/" in only_three.content.decode()
    dated = client.get(
        reverse("games:history"), {**defaults, "finished_after": "2026-03-01"}
    ).content.decode()
    assert f"/games/{two.id}/replay/" not in dated and 'value="2026-03-01"' in dated

    korean = client.get(reverse("games:history"), **KO).content.decode()
    assert "모든 결과" in korean and "모든 인원" in korean and "모든 변형 규칙" in korean
