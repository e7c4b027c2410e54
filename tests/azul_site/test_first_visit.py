"""A new player's home page greets them (not "Welcome back") and points to a first game against
the computer and to the rules; a player who has had a game is welcomed back."""

import pytest
from django.urls import reverse

from tests.support.play import finish

pytestmark = pytest.mark.django_db


def test_a_new_account_is_welcomed_and_shown_where_to_start(make_user, client_for):
    dora = make_user("dora")
    page = client_for(dora).get(reverse("home")).content.decode()

    assert "Welcome to Azul, dora!" in page
    assert "Welcome back" not in page
    assert f'<a class="button" href="{reverse("games:new")}">Play against the computer</a>' in page
    assert f'href="{reverse("rules")}">Read the rules</a>' in page


@pytest.mark.parametrize("stage", ["invited", "playing", "finished"])
def test_a_player_with_a_game_is_welcomed_back(stage, alice, bob, start_game, client_for):
    from games import services

    if stage == "invited":
        services.game_create(
            creator=alice,
            num_players=2,
            variant="colored",
            days_per_move=3,
            seats=[services.SeatSpec(kind="invite", username=bob.username)],
        )
    else:
        game = start_game(alice, bob)
        if stage == "finished":
            finish(game)
    page = client_for(bob).get(reverse("home")).content.decode()

    assert "Welcome back, bob." in page
    assert "Welcome to Azul" not in page


def test_the_greeting_is_in_korean_too(make_user, client_for):
    dora = make_user("dora")
    page = client_for(dora).get(reverse("home"), HTTP_ACCEPT_LANGUAGE="ko").content.decode()

    assert "Welcome to Azul" not in page
    assert "dora" in page and "Azul에 오신 것을 환영합니다" in page
