"""A game waiting for players, as its creator and its invitees see it (issue #29): an unanswered
invitation waits for the invitee (not for the creator's choice); one cancel button, with a
confirmation step that needs no script; a cancelled game no longer says anyone is invited; and
the creator is told when an invitee turned invitation emails off. In English and Korean."""

from __future__ import annotations

import pytest
from django.urls import reverse

from accounts.models import Profile
from games.models import Game
from tests.support.factories import invite_game
from tests.support.html import text
from tests.support.urls import games_url

pytestmark = pytest.mark.django_db

KO = {"HTTP_ACCEPT_LANGUAGE": "ko-KR,ko;q=0.9"}


def board(client, game, **headers) -> str:
    response = client.get(reverse("games:detail", args=[game.id]), **headers)
    assert response.status_code == 200
    return response.content.decode()


def test_an_unanswered_invitation_waits_for_the_invitee_not_for_the_creator(
    alice, bob, carol, client_for
):
    game = invite_game(alice, bob, carol)
    page = board(client_for(alice), game)

    assert "Seats waiting for your choice" not in page
    assert "Waiting for an answer" in page
    assert "has not answered your invitation yet." in text(page)
    # The creator may still give the unanswered seat to someone else.
    assert reverse("games:seat_invite", args=[game.id, 1]) in page


def test_a_declined_seat_waits_for_the_creators_choice(alice, bob, carol, client_for):
    game = invite_game(alice, bob, carol)
    client_for(bob).post(reverse("games:invitation", args=[game.id]), {"accept": "0"})
    page = board(client_for(alice), game)

    assert "Seats waiting for your choice" in page
    assert "declined your invitation to seat 2." in text(page)
    # carol has not answered yet: her seat is under the other heading.
    assert "Waiting for an answer" in page


def test_one_cancel_button_and_a_confirmation_before_the_game_is_cancelled(alice, bob, client_for):
    game = invite_game(alice, bob)
    client = client_for(alice)
    page = board(client, game)
    cancel_url = reverse("games:cancel", args=[game.id])

    assert page.count(f'action="{cancel_url}"') == 1
    assert "Cancel game<" not in page and ">Cancel the game<" in page

    # The button posts without `confirm`: the confirmation page, and nothing is cancelled yet.
    asked = client.post(cancel_url)
    assert asked.status_code == 200
    assert "Yes, cancel the game" in asked.content.decode()
    assert 'name="confirm" value="yes"' in asked.content.decode()
    assert client.get(cancel_url).status_code == 200
    assert Game.objects.get(pk=game.pk).status == "open"

    done = client.post(cancel_url, {"confirm": "yes"}, follow=True)
    assert "The game was cancelled." in done.content.decode()
    assert Game.objects.get(pk=game.pk).status == "aborted"


def test_only_the_creator_gets_the_confirmation_page(alice, bob, client_for):
    game = invite_game(alice, bob)

    response = client_for(bob).get(reverse("games:cancel", args=[game.id]), follow=True)

    assert "You cannot cancel this game" in response.content.decode()
    assert "Yes, cancel the game" not in response.content.decode()
    assert Game.objects.get(pk=game.pk).status == "open"


def test_a_cancelled_game_no_longer_says_who_is_invited(alice, bob, client_for):
    game = invite_game(alice, bob)
    client = client_for(alice)
    assert "(invited, not answered yet)" in board(client, game)

    client.post(reverse("games:cancel", args=[game.id]), {"confirm": "yes"})

    page = board(client, game)
    assert "This game was cancelled." in page
    assert "(invited, not answered yet)" not in page


def test_the_confirmation_in_korean(alice, bob, client_for):
    Profile.objects.filter(user=alice).update(language="ko")
    game = invite_game(alice, bob)
    client = client_for(alice)

    page = board(client, game, **KO)
    asked = client.post(reverse("games:cancel", args=[game.id]), **KO).content.decode()

    assert "답을 기다리는 자리" in page and "내가 정해야 할 자리" not in page
    assert "게임 취소하기" in page
    assert "네, 게임을 취소합니다" in asked


# -- an invitee who turned invitation emails off --------------------------------------------------


def emails_off(person) -> None:
    Profile.objects.filter(user=person).update(email_invitation="never")


NOT_EMAILED = "does not get invitation emails; they will see the invitation when they next visit."


def test_the_new_game_page_says_when_an_invitee_gets_no_invitation_email(alice, bob, client_for):
    emails_off(bob)
    response = client_for(alice).post(
        reverse("games:new"),
        {
            "num_players": 2,
            "variant": "colored",
            "days_per_move": 3,
            "seat2_kind": "invite",
            "seat2_username": "bob",
        },
        follow=True,
    )

    assert f"bob {NOT_EMAILED}" in text(response.content.decode())


def test_no_such_word_for_an_invitee_who_gets_the_emails(alice, bob, client_for):
    response = client_for(alice).post(
        reverse("games:new"),
        {
            "num_players": 2,
            "variant": "colored",
            "days_per_move": 3,
            "seat2_kind": "invite",
            "seat2_username": "bob",
        },
        follow=True,
    )

    assert NOT_EMAILED not in text(response.content.decode())


def test_giving_a_seat_to_a_player_without_invitation_emails_says_so(alice, bob, carol, client_for):
    game = invite_game(alice, bob)
    emails_off(carol)
    Profile.objects.filter(user=alice).update(language="ko")

    response = client_for(alice).post(
        reverse("games:seat_invite", args=[game.id, 1]), {"username": "carol"}, follow=True, **KO
    )

    assert "carol 님은 초대 이메일을 받지 않습니다." in text(response.content.decode())


def test_the_api_names_the_invitees_who_get_no_invitation_email(
    alice, bob, carol, dave, api_client_for
):
    emails_off(bob)
    client = api_client_for(alice)
    created = client.post(
        games_url(),
        {
            "players": 3,
            "seats": [
                {"kind": "invite", "username": "bob"},
                {"kind": "invite", "username": "carol"},
            ],
        },
        format="json",
    )
    assert created.status_code == 201
    assert created.json()["invitees_not_emailed"] == ["bob"]

    emails_off(dave)
    given = client.post(
        games_url(created.json()["id"], "seats", 1, "invite"),
        {"username": "dave"},
        format="json",
    )
    assert given.status_code == 200, given.json()
    # Only the player just invited: bob's seat went to dave.
    assert given.json()["invitees_not_emailed"] == ["dave"]
