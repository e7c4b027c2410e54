"""A finished game's page is public, like its replay (issue #29): a visitor who is not signed in
sees the finished board read-only, with its result; a game not finished still asks them to sign
in. The rating change in the result is labelled. And the board writes dates in Korean order."""

from __future__ import annotations

import datetime

import pytest
import time_machine
from django.test import Client
from django.urls import reverse

from accounts.models import Profile
from games.models import Seat
from tests.support.factories import invite_game
from tests.support.html import text
from tests.support.play import play_to_end

pytestmark = pytest.mark.django_db

KO = {"HTTP_ACCEPT_LANGUAGE": "ko-KR,ko;q=0.9"}


@pytest.fixture
def finished(start_game, alice, bob):
    game = play_to_end(start_game(alice, bob).id)
    Seat.objects.filter(game=game, position=0).update(rating_before=1500, rating_after=1512)
    Seat.objects.filter(game=game, position=1).update(rating_before=1490, rating_after=1478)
    game.save(update_fields=["updated_at"])  # a new version: the board is drawn afresh
    return game


def test_a_visitor_sees_a_finished_game_read_only(finished):
    response = Client().get(reverse("games:detail", args=[finished.id]))

    assert response.status_code == 200
    page = response.content.decode()
    assert "Game over" in page
    assert "Rating: 1500 → 1512 (+12)" in text(page)
    assert "Rating: 1490 → 1478 (-12)" in text(page)
    # Nothing to act on: no move, rematch, resign or cancel form.
    for action in ("rematch", "resign", "cancel"):
        assert reverse(f"games:{action}", args=[finished.id]) not in page
    assert "text-move-form" not in page


def test_a_visitor_cannot_post_to_a_finished_game(finished):
    response = Client().post(reverse("games:detail", args=[finished.id]), {"move": "x"})

    assert response.status_code == 302
    assert response.url.startswith(reverse("account_login"))


def test_a_game_in_progress_still_asks_a_visitor_to_sign_in(start_game, alice, bob):
    game = start_game(alice, bob)

    response = Client().get(reverse("games:detail", args=[game.id]))

    assert response.status_code == 302
    assert response.url.startswith(reverse("account_login"))


def test_a_game_waiting_for_players_still_asks_a_visitor_to_sign_in(alice, bob):
    game = invite_game(alice, bob)

    response = Client().get(reverse("games:detail", args=[game.id]))

    assert response.status_code == 302


def test_an_unknown_game_is_a_sign_in_for_a_visitor_and_a_404_for_a_player(alice, client_for):
    missing = "00000000-0000-4000-8000-000000000000"

    assert Client().get(reverse("games:detail", args=[missing])).status_code == 302
    assert client_for(alice).get(reverse("games:detail", args=[missing])).status_code == 404


def test_the_rating_change_is_labelled_in_korean(finished, bob, client_for):
    Profile.objects.filter(user=bob).update(language="ko")

    page = client_for(bob).get(reverse("games:detail", args=[finished.id]), **KO)

    assert "레이팅: 1490 → 1478 (-12)" in text(page.content.decode())


def test_the_board_writes_its_deadline_in_korean_order(start_game, alice, bob, client_for):
    # Wednesday 10 March 2027: a 3-day move is due on Saturday 13 March.
    with time_machine.travel(datetime.datetime(2027, 3, 10, 9, 0, tzinfo=datetime.UTC)):
        game = start_game(alice, bob)
        Profile.objects.filter(user__in=[alice, bob]).update(language="ko")
        korean = text(
            client_for(alice).get(reverse("games:detail", args=[game.id]), **KO).content.decode()
        )
        english = text(
            client_for(bob).get(reverse("games:detail", args=[game.id])).content.decode()
        )

    assert "3월 13일 (토) 09:00 UTC" in korean
    assert "Sat 13 Mar 09:00 UTC" in english


def test_a_rematch_invitation_page_says_it_is_a_rematch(finished, alice, bob, client_for):
    from games import services

    rematch, _ = services.game_rematch(game_id=finished.id, user=bob)
    Profile.objects.filter(user=alice).update(language="ko")
    old_url = reverse("games:detail", args=[finished.id])

    invitee = client_for(alice).get(reverse("games:detail", args=[rematch.id]), **KO)
    asker = client_for(bob).get(reverse("games:detail", args=[rematch.id]))

    assert "bob 님이 함께 했던 게임의 재대결을 신청했습니다." in text(invitee.content.decode())
    assert f'href="{old_url}"' in invitee.content.decode()
    assert "You asked for a rematch of this game." in text(asker.content.decode())


def test_a_rematch_invitation_is_marked_in_my_games(finished, alice, bob, client_for):
    from games import services

    rematch, _ = services.game_rematch(game_id=finished.id, user=bob)
    english = text(client_for(alice).get(reverse("games:my_games")).content.decode())
    Profile.objects.filter(user=alice).update(language="ko")
    korean = text(client_for(alice).get(reverse("games:my_games"), **KO).content.decode())

    assert "bob asks for a rematch" in english
    assert "invites you to a 2-player game" not in english
    assert "bob 님의 재대결 신청" in korean
    assert rematch.rematch_of_id == finished.id
