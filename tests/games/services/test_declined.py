"""A declined invitation leaves its seat declined, not open: the creator is told (on their home
page, on "My games" and by email) and chooses: invite someone else, open the seat to the lobby,
or cancel the game. Only the creator may, only while the game waits for players."""

import re

import pytest
from django.core import mail
from django.urls import reverse

from accounts.models import Delivery
from games import services
from games.models import Game, Seat
from games.presenters import lists
from notifications.models import Notification
from tests.support.factories import invite_game
from tests.support.mail import sent

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("site_mail")]


def api(game, *parts):
    return "/api/games/" + "".join(f"{p}/" for p in (game.id, *parts))


@pytest.fixture
def declined(alice, bob, carol, committed):
    """alice invited bob and carol; bob declined (his seat is 1)."""
    game = invite_game(alice, bob, carol)
    mail.outbox.clear()
    committed(services.invitation_respond, game_id=game.id, user=bob, accept=False)
    return game


def test_a_declined_seat_is_neither_open_nor_in_the_lobby(declined, bob, make_user, api_client_for):
    dora = make_user("dora")
    seat = Seat.objects.get(game=declined, position=1)
    assert seat.user is None and seat.invitation == "declined" and seat.declined_by == bob
    assert not seat.is_open and seat.is_declined
    assert lists.open_games_for_lobby(user=dora) == []

    joined = api_client_for(dora).post(api(declined, "join"))
    assert joined.status_code == 409 and "no open seat" in joined.json()["detail"]
    view = api_client_for(dora).get(api(declined)).json()
    assert view["players"][1]["invitation"] == "declined" and not view["players"][1]["is_open"]
    assert view["players"][1]["display_name"] == "Invitation declined"


def test_the_creator_is_told_on_the_home_page_my_games_and_by_email(
    declined, alice, bob, carol, client_for
):
    for name in ("home", "games:my_games"):
        page = client_for(alice).get(reverse(name)).content.decode()
        assert "<strong>bob</strong> declined your invitation to seat 2" in page
        assert reverse("games:seat_invite", args=[declined.id, 1]) in page
        assert reverse("games:seat_open", args=[declined.id, 1]) in page
        assert reverse("games:cancel", args=[declined.id]) in page
        # The name box suggests players as a name is typed (static/games/player_search.js).
        assert 'name="username"' in page and 'list="player-suggestions"' in page
        assert '<datalist id="player-suggestions" data-api="/api/players/"' in page
    # Nobody else is told: not the one who declined, nor carol.
    for user in (bob, carol):
        assert (
            "declined your invitation" not in client_for(user).get(reverse("home")).content.decode()
        )
    # The board shows alice the same choices.
    board = client_for(alice).get(reverse("games:detail", args=[declined.id])).content.decode()
    assert "<strong>bob</strong> declined your invitation to seat 2." in board
    assert reverse("games:seat_invite", args=[declined.id, 1]) in board

    [message] = sent("invitation_declined")
    assert message.to == [alice.email]
    assert message.subject == "[Azul] bob declined your invitation"
    assert "bob declined your invitation to your game of Azul" in message.body
    assert "Also at the table: carol." in message.body
    assert f"https://azul.example/games/{declined.id}/" in message.body
    assert "invite someone else" in message.alternatives[0].content


def test_each_declined_invitation_is_its_own_email(declined, alice, carol, make_user, committed):
    committed(services.invitation_respond, game_id=declined.id, user=carol, accept=False)
    dora = make_user("dora")
    committed(services.seat_invite, game_id=declined.id, user=alice, position=1, username="dora")
    committed(services.invitation_respond, game_id=declined.id, user=dora, accept=False)

    subjects = sorted(m.subject for m in sent("invitation_declined", to=alice))
    assert subjects == [
        "[Azul] bob declined your invitation",
        "[Azul] carol declined your invitation",
        "[Azul] dora declined your invitation",
    ]


def test_the_email_follows_the_invitation_choice(alice, bob, committed):
    alice.profile.email_invitation = Delivery.NEVER
    alice.profile.save()
    game = invite_game(alice, bob)
    committed(services.invitation_respond, game_id=game.id, user=bob, accept=False)

    assert sent("invitation_declined") == []
    row = Notification.objects.get(kind="invitation_declined")
    assert row.status == "skipped" and row.recipient == alice


def test_inviting_someone_else_from_my_games(declined, alice, make_user, client_for, committed):
    dora = make_user("dora")
    my_games = reverse("games:my_games")
    with_callbacks = client_for(alice)
    response = with_callbacks.post(
        reverse("games:seat_invite", args=[declined.id, 1]),
        {"username": "dora", "next": my_games},
        follow=True,
    )
    assert response.redirect_chain[-1][0] == my_games
    page = response.content.decode()
    assert "You invited dora." in page
    assert "declined your invitation" not in page

    seat = Seat.objects.get(game=declined, position=1)
    assert seat.user == dora and seat.invitation == "pending" and seat.declined_by is None
    assert str(lists.invitations_for_user(user=dora)[0]["id"]) == str(declined.id)
    assert Notification.objects.filter(kind="invitation", recipient=dora).exists()
    # dora accepts, as does carol: the game starts.
    committed(services.invitation_respond, game_id=declined.id, user=dora, accept=True)
    game = services.invitation_respond(
        game_id=declined.id, user=declined.seats.get(position=2).user, accept=True
    )
    assert game.status == Game.Status.ACTIVE


def test_opening_the_seat_puts_the_game_in_the_lobby(declined, alice, make_user, client_for):
    dora = make_user("dora")
    response = client_for(alice).post(
        reverse("games:seat_open", args=[declined.id, 1]), follow=True
    )
    assert response.redirect_chain[-1][0] == reverse("games:detail", args=[declined.id])
    assert "Seat 2 is open" in response.content.decode()
    assert [str(g["id"]) for g in lists.open_games_for_lobby(user=dora)] == [str(declined.id)]
    services.game_join(game_id=declined.id, user=dora)
    assert Seat.objects.get(game=declined, position=1).user == dora


def test_cancelling_from_the_notice(declined, alice, client_for):
    # The notice's button asks first (the confirmation page), then its button cancels.
    client = client_for(alice)
    asked = client.post(reverse("games:cancel", args=[declined.id]))
    assert "Yes, cancel the game" in asked.content.decode()
    assert Game.objects.get(pk=declined.id).status == Game.Status.OPEN
    response = client.post(
        reverse("games:cancel", args=[declined.id]), {"confirm": "yes"}, follow=True
    )
    assert "The game was cancelled." in response.content.decode()
    assert Game.objects.get(pk=declined.id).status == Game.Status.ABORTED
    assert "declined your invitation" not in client_for(alice).get(reverse("home")).content.decode()


def test_a_pending_invitation_can_be_given_to_someone_else(alice, bob, make_user, api_client_for):
    dora = make_user("dora")
    game = invite_game(alice, bob)
    response = api_client_for(alice).post(
        api(game, "seats", 1, "invite"), {"username": "dora"}, format="json"
    )
    assert response.status_code == 200
    assert response.json()["players"][1]["username"] == "dora"
    assert response.json()["players"][1]["invitation"] == "pending"
    assert lists.invitations_for_user(user=bob) == []
    assert len(lists.invitations_for_user(user=dora)) == 1


@pytest.mark.parametrize(
    "who, position, body, status, words",
    [
        ("bob", 1, {"username": "dora"}, 403, "Only the player who created"),
        ("carol", 1, {"username": "dora"}, 403, "Only the player who created"),
        ("alice", 0, {"username": "dora"}, 409, "not waiting for an answer"),
        ("alice", 2, {"username": "dora"}, 409, "not waiting for an answer"),  # carol accepted
        ("alice", 3, {"username": "dora"}, 404, "no seat 4"),
        ("alice", "x", {"username": "dora"}, 404, "no seat"),
        ("alice", 1, {"username": "nobody"}, 400, "no player called"),
        ("alice", 1, {"username": "alice"}, 400, "cannot invite yourself"),
        ("alice", 1, {"username": "carol"}, 409, "already has a seat"),
        ("alice", 1, {}, 400, "username"),
    ],
)
def test_inviting_to_a_seat_is_refused_clearly(
    declined, carol, make_user, clients, who, position, body, status, words
):
    make_user("dora")
    services.invitation_respond(game_id=declined.id, user=carol, accept=True)
    response = clients[who].post(api(declined, "seats", position, "invite"), body, format="json")
    assert response.status_code == status, response.json()
    assert words in str(response.json())
    assert Seat.objects.get(game=declined, position=1).is_declined


@pytest.mark.parametrize("who, status", [("bob", 403), ("carol", 403)])
def test_only_the_creator_opens_a_seat(declined, clients, client_for, bob, who, status):
    response = clients[who].post(api(declined, "seats", 1, "open"))
    assert response.status_code == status
    assert response.json()["code"] == "invalid_action"
    # The page says so too, and changes nothing.
    page = client_for(bob).post(reverse("games:seat_open", args=[declined.id, 1]), follow=True)
    assert "Only the player who created this game" in page.content.decode()
    assert Seat.objects.get(game=declined, position=1).is_declined


def test_seats_of_a_started_or_cancelled_game_cannot_be_given(
    alice, bob, start_game, api_client_for
):
    game = start_game(alice, bob)
    response = api_client_for(alice).post(api(game, "seats", 1, "open"))
    assert response.status_code == 409 and "not waiting for players" in response.json()["detail"]

    waiting = invite_game(alice, bob)
    services.invitation_respond(game_id=waiting.id, user=bob, accept=False)
    services.game_cancel(game_id=waiting.id, user=alice)
    response = api_client_for(alice).post(
        api(waiting, "seats", 1, "invite"), {"username": "bob"}, format="json"
    )
    assert response.status_code == 409 and "cancelled" in response.json()["detail"]


def test_the_schema_lists_the_seat_endpoints(client):
    schema = client.get("/api/schema/").content.decode()
    for path in (
        "/api/games/{game_id}/seats/{position}/invite/",
        "/api/games/{game_id}/seats/{position}/open/",
        "/api/games/{game_id}/resign/",
        "/api/games/{game_id}/rematch/",
    ):
        assert path in schema


def test_unsubscribing_from_it_turns_off_the_invitation_emails_it_follows(declined, alice, client):
    from notifications import tokens

    [message] = sent("invitation_declined")
    # The email's own link (its signature is timestamped: one made now may differ by a second).
    [url] = re.findall(r"https://azul\.example/notifications/unsubscribe/[^/\s]+/", message.body)
    made_now = tokens.unsubscribe_url(user_id=alice.pk, kind="invitation_declined")
    assert made_now.rsplit(":", 2)[0] == url.rsplit(":", 2)[0]  # the same user and kind
    path = url.removeprefix("https://azul.example")
    asked = client.get(path).content.decode()
    assert "invitation declined" in asked
    assert "The same setting covers these emails too: invitation, game cancelled." in asked
    client.post(path)
    alice.profile.refresh_from_db()
    assert alice.profile.email_invitation == Delivery.NEVER
