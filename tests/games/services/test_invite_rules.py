"""Who may invite whom (issue #28, "No harassment mailer"): a player who declined an invitation
cannot be invited again by the same player for INVITATION_DECLINE_COOLDOWN_DAYS (a new game, a
seat, a rematch: 409 `declined_recently`, saying until when); and while either of two players has
blocked the other, neither can invite the other, ask for a rematch, or meet the other in the
lobby. Mallory is the hostile account; bob is the one she pesters."""

import datetime
from datetime import timedelta

import pytest
import time_machine
from django.urls import reverse

from accounts.services import block_create, block_delete
from games import services
from games.models import Game, InvitationDecline, Seat
from games.presenters import lists
from tests.support.factories import api_client_for, client_for, invite_game
from tests.support.urls import api_url, games_url

pytestmark = pytest.mark.django_db

START = datetime.datetime(2027, 6, 1, 9, 0, tzinfo=datetime.UTC)
INVITE_BOB = {"players": 2, "seats": [{"kind": "invite", "username": "bob"}]}
INVITE_MALLORY = {"players": 2, "seats": [{"kind": "invite", "username": "mallory"}]}
NEW_GAME_FORM = {
    "num_players": "2",
    "variant": "colored",
    "days_per_move": "3",
    "seat2_kind": "invite",
    "seat2_username": "bob",
}


@pytest.fixture
def clock():
    with time_machine.travel(START, tick=False) as traveller:
        yield traveller


def open_game(creator, *invited):
    """A two-seat-or-more game of `creator`'s with one seat open in the lobby."""
    seats = [services.SeatSpec(kind="invite", username=u.username) for u in invited]
    return services.game_create(
        creator=creator,
        num_players=2 + len(invited),
        variant="colored",
        days_per_move=3,
        seats=[*seats, services.SeatSpec(kind="open")],
    )


def seat_invite_url(game, position):
    return api_url("games", game.id, "seats", position, "invite")


# -- the decline cool-down -----------------------------------------------------------------------


@pytest.fixture
def declined(mallory, bob, clock):
    """mallory invited bob, who declined (on START)."""
    game = invite_game(mallory, bob)
    services.invitation_respond(game_id=game.id, user=bob, accept=False)
    return game


def test_a_decline_is_remembered_beyond_its_seat(declined, mallory, bob, carol):
    services.seat_invite(game_id=declined.id, user=mallory, position=1, username="carol")

    assert Seat.objects.get(game=declined, position=1).declined_by is None
    [decline] = InvitationDecline.objects.all()
    assert (decline.invitee, decline.inviter, decline.game) == (bob, mallory, declined)


def test_who_declined_cannot_be_invited_again_by_the_same_player_for_a_week(
    declined, mallory, bob, carol, clock
):
    client = api_client_for(mallory)
    games_before = Game.objects.count()

    created = client.post(games_url(), INVITE_BOB, format="json")
    seat = client.post(seat_invite_url(declined, 1), {"username": "bob"}, format="json")

    for refused in (created, seat):
        assert refused.status_code == 409, refused.content
        body = refused.json()
        assert body["code"] == "declined_recently"
        assert "bob declined an invitation of yours lately" in body["detail"]
        assert "you can invite them again from 8 Jun 2027" in body["detail"]
        assert datetime.datetime.fromisoformat(body["until"]) == START + timedelta(days=7)
    assert Game.objects.count() == games_before
    assert Seat.objects.get(game=declined, position=1).invitation == "declined"

    # The new-game form says so.
    page = client_for(mallory).post(reverse("games:new"), NEW_GAME_FORM)
    assert page.status_code == 200
    assert "bob declined an invitation of yours lately" in page.content.decode()
    # Another player invites bob as usual, and bob invites mallory if he likes.
    assert api_client_for(carol).post(games_url(), INVITE_BOB, format="json").status_code == 201
    assert api_client_for(bob).post(games_url(), INVITE_MALLORY, format="json").status_code == 201

    clock.shift(timedelta(days=7, seconds=1))
    assert client.post(games_url(), INVITE_BOB, format="json").status_code == 201


def test_no_rematch_of_a_player_who_declined_lately(mallory, bob, clock, finished_game):
    old = finished_game([(mallory, 50, 1), (bob, 40, 2)])
    game = invite_game(mallory, bob)
    services.invitation_respond(game_id=game.id, user=bob, accept=False)

    refused = api_client_for(mallory).post(api_url("games", old.id, "rematch"))

    assert refused.status_code == 409
    assert refused.json()["code"] == "declined_recently"
    assert not Game.objects.filter(rematch_of=old).exists()
    # Bob, who declined, may still ask mallory for one.
    assert api_client_for(bob).post(api_url("games", old.id, "rematch")).status_code == 201


def test_the_cool_down_is_a_setting(declined, mallory, clock, settings):
    settings.INVITATION_DECLINE_COOLDOWN_DAYS = 1
    client = api_client_for(mallory)
    assert client.post(games_url(), INVITE_BOB, format="json").status_code == 409
    clock.shift(timedelta(days=1, seconds=1))
    assert client.post(games_url(), INVITE_BOB, format="json").status_code == 201


# -- blocking ------------------------------------------------------------------------------------


@pytest.mark.parametrize("blocker", ["bob", "mallory"])
def test_neither_can_invite_the_other_and_the_refusal_does_not_say_who_blocked(
    mallory, bob, carol, blocker, finished_game
):
    old = finished_game([(mallory, 50, 1), (bob, 40, 2)])
    pending = invite_game(mallory, bob)
    waiting = invite_game(bob, mallory)
    people = {"bob": bob, "mallory": mallory}
    block_create(blocker=people[blocker], username="mallory" if blocker == "bob" else "bob")
    games_before = Game.objects.count()

    for inviter, body in ((mallory, INVITE_BOB), (bob, INVITE_MALLORY)):
        client = api_client_for(inviter)
        created = client.post(games_url(), body, format="json")
        rematch = client.post(api_url("games", old.id, "rematch"))
        for refused in (created, rematch):
            assert refused.status_code == 409, refused.content
            assert refused.json()["code"] == "cannot_invite"
            assert refused.json()["detail"] == "You cannot invite this player."
    # Into a seat (one whose invitation is not answered yet).
    given = api_client_for(mallory).post(
        seat_invite_url(pending, 1), {"username": "carol"}, format="json"
    )
    assert given.status_code == 200
    seat = api_client_for(mallory).post(
        seat_invite_url(pending, 1), {"username": "bob"}, format="json"
    )
    assert seat.status_code == 409 and seat.json()["code"] == "cannot_invite"
    assert Game.objects.count() == games_before
    # The games made before the block are left as they are.
    assert Seat.objects.get(game=waiting, user=mallory).invitation == "pending"


def test_the_lobby_keeps_them_apart_and_joining_is_refused(mallory, bob, carol):
    hers = open_game(mallory)
    with_her = open_game(carol, mallory)  # mallory invited to carol's game
    others = open_game(carol)
    block_create(blocker=bob, username="mallory")

    assert [g["id"] for g in lists.open_games_for_lobby(user=bob)] == [others.id]
    lobby = api_client_for(bob).get(api_url("lobby")).json()
    assert [g["id"] for g in lobby["results"]] == [str(others.id)]
    # Mallory does not see bob's games either.
    bobs = open_game(bob)
    assert bobs.id not in [g["id"] for g in lists.open_games_for_lobby(user=mallory)]
    assert bobs.id in [g["id"] for g in lists.open_games_for_lobby(user=carol)]

    for game in (hers, with_her):
        joined = api_client_for(bob).post(api_url("games", game.id, "join"))
        assert joined.status_code == 409
        assert joined.json()["code"] == "cannot_join"
        assert "mallory" not in joined.json()["detail"]
    assert not Seat.objects.filter(game__in=[hers, with_her], user=bob).exists()
    page = client_for(mallory).post(reverse("games:join", args=[bobs.id]), follow=True)
    assert "You cannot join this game." in page.content.decode()
    assert not Seat.objects.filter(game=bobs, user=mallory).exists()

    # Unblocked, all is as before.
    block_delete(blocker=bob, username="mallory")
    assert api_client_for(bob).post(api_url("games", hers.id, "join")).status_code == 200
