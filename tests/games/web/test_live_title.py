"""What keeps an open tab's title and header true (issue #29, "A tab left open"): the board says
"Your turn" in its title, and the board partial the page's script swaps in carries that title
(`data-title`); every page's script asks `/api/games/waiting/` for the count of games waiting."""

import re

import pytest
from django.urls import reverse
from rest_framework.throttling import ScopedRateThrottle

from tests.support.play import play_forward, waiting_for
from tests.support.urls import board_url

pytestmark = pytest.mark.django_db

WAITING = "/api/games/waiting/"


def title_of(page: str) -> str:
    return re.search(r"<title>(.*?)</title>", page, re.S).group(1)


def data_title(html: str) -> str:
    return re.search(r'<div id="game"[^>]*\sdata-title="([^"]*)"', html).group(1)


def test_the_board_title_says_whose_turn_it_is(alice, bob, start_game, client_for):
    game = waiting_for(start_game(alice, bob), alice)
    alice_page = client_for(alice).get(board_url(game)).content.decode()
    bob_page = client_for(bob).get(board_url(game)).content.decode()

    # The game's own title (who plays it) is another matter: the same on both pages.
    game_title = title_of(bob_page)
    assert game_title.endswith(" · Azul") and "Your turn" not in game_title
    assert data_title(bob_page) == game_title
    assert data_title(alice_page) == f"Your turn · {game_title}"
    assert title_of(alice_page) == f"(1) Your turn · {game_title}"


def test_the_swapped_board_carries_the_new_title(alice, bob, start_game, client_for):
    game = waiting_for(start_game(alice, bob), alice)
    client = client_for(alice)
    partial = reverse("games:board", args=[game.id])
    assert data_title(client.get(partial).content.decode()).startswith("Your turn · ")

    play_forward(game, moves=1)

    assert not data_title(client.get(partial).content.decode()).startswith("Your turn")


def test_the_board_title_in_korean(alice, bob, start_game, client_for):
    game = waiting_for(start_game(alice, bob), alice)
    alice.profile.language = "ko"
    alice.profile.save()
    page = (
        client_for(alice)
        .get(board_url(game), HTTP_ACCEPT_LANGUAGE="ko-KR,ko;q=0.9")
        .content.decode()
    )

    assert data_title(page).startswith("내 차례 · ")


def test_the_count_of_games_waiting(alice, bob, start_game, client_for):
    client = client_for(alice)
    game = waiting_for(start_game(alice, bob), bob)
    assert client.get(WAITING).json() == {"games_waiting": 0, "invitations_waiting": 0}

    waiting_for(game, alice)
    waiting_for(start_game(bob, alice), alice)
    response = client.get(WAITING)

    assert response.json() == {"games_waiting": 2, "invitations_waiting": 0}
    assert "no-cache" in response["Cache-Control"] and "private" in response["Cache-Control"]


def test_the_count_needs_signing_in(client):
    assert client.get(WAITING, HTTP_ACCEPT="application/json").status_code in (401, 403)


def test_the_count_is_throttled_per_player(alice, bob, client_for, monkeypatch):
    monkeypatch.setitem(ScopedRateThrottle.THROTTLE_RATES, "games_waiting", "2/minute")
    client = client_for(alice)

    assert [client.get(WAITING).status_code for _ in range(3)] == [200, 200, 429]
    assert client.get(WAITING)["Retry-After"]
    assert client_for(bob).get(WAITING).status_code == 200


def test_every_page_of_a_player_loads_the_count_script(alice, client_for, client):
    page = client_for(alice).get(reverse("home")).content.decode()

    assert f'data-api="{WAITING}"' in page
    assert "games/waiting.js" not in client.get(reverse("home")).content.decode()
