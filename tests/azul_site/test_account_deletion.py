"""A player deletes their account (issue #30): with their password, from the settings page.
Their personal data goes; their games are left the way any player leaves them; finished games
keep a "deleted player" seat, so that the others' history, replays and ratings stay whole; and
nobody can sign in as them, use their tokens, or sign up with their name."""

from __future__ import annotations

import pytest
from allauth.account.models import EmailAddress
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from accounts.models import ApiToken, Block, Profile, User
from accounts.services import block_create, profile_update, token_create
from analysis.models import Analysis
from games import services
from games.models import Game, InvitationDecline, Seat
from notifications import outbox
from notifications.models import Notification
from ratings.models import PlayerRecord, Rating
from tests.support.factories import PASSWORD, client_for, invite_game
from tests.support.mail import sent

pytestmark = pytest.mark.django_db

DELETE_URL = "/settings/delete/"


def delete(person, password: str = PASSWORD, client: Client | None = None):
    client = client or client_for(person)
    return client, client.post(DELETE_URL, {"password": password})


def fresh(user) -> User:
    return User.objects.get(pk=user.pk)


def test_the_settings_page_links_to_the_page_that_says_what_deleting_does(alice):
    client = client_for(alice)
    settings_page = client.get("/settings/").content.decode()
    assert reverse("accounts:delete_account") in settings_page
    assert reverse("accounts:data_download") in settings_page

    page = client.get(DELETE_URL)

    assert page.status_code == 200
    text = page.content.decode()
    assert "Games in progress are resigned" in text
    assert "deleted player" in text
    assert 'name="password"' in text


def test_the_page_says_it_in_korean(alice):
    client = client_for(alice)
    client.cookies["django_language"] = "ko"

    text = client.get(DELETE_URL).content.decode()

    assert "탈퇴한 플레이어" in text


def test_the_wrong_password_deletes_nothing(alice, bob, start_game):
    game = start_game(alice, bob)
    client, response = delete(alice, password="not-my-password")

    assert response.status_code == 400
    assert "That is not your password" in response.content.decode()
    alice = fresh(alice)
    assert alice.username == "alice" and alice.is_active and alice.deleted_at is None
    assert Game.objects.get(pk=game.pk).status == Game.Status.ACTIVE
    assert client.get("/settings/").status_code == 200  # still signed in


def test_deleting_needs_signing_in_and_a_post():
    response = Client().post(DELETE_URL, {"password": PASSWORD})
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_games_in_every_state_are_left_as_any_player_leaves_them(
    alice, bob, carol, dave, start_game, finished_colored
):
    # Waiting for players, created by alice (bob invited): cancelled.
    mine = invite_game(alice, bob)
    # Waiting for players, alice invited by carol: the invitation declined.
    invited = invite_game(carol, alice)
    # Waiting for players, alice accepted carol's invitation, dave has not answered yet: the
    # seat goes back to carol to decide, as after a declined invitation.
    accepted = invite_game(carol, alice, dave)
    services.invitation_respond(game_id=accepted.id, user=alice, accept=True)
    # Waiting in the lobby, alice joined dave's open seat: the seat is open again.
    lobby = services.game_create(
        creator=dave,
        num_players=3,
        variant="colored",
        days_per_move=3,
        seats=[services.SeatSpec(kind="open"), services.SeatSpec(kind="invite", username="bob")],
    )
    services.game_join(game_id=lobby.id, user=alice)
    # In progress, two players: resigned, and played out at once (bob wins).
    duel = start_game(bob, alice)
    # In progress, three players: resigned; the others play on against the computer.
    trio = start_game(carol, alice, bob)
    finished_scores = list(
        Seat.objects.filter(game=finished_colored).values_list("position", "final_score", "place")
    )

    _, response = delete(alice)

    assert response.status_code == 302 and response["Location"] == "/"
    assert Game.objects.get(pk=mine.pk).status == Game.Status.ABORTED
    seat = Seat.objects.get(game=invited, position=1)
    assert seat.user is None and seat.invitation == Seat.Invitation.DECLINED
    assert Game.objects.get(pk=invited.pk).status == Game.Status.OPEN
    seat = Seat.objects.get(game=accepted, position=1)
    assert seat.user is None and seat.invitation == Seat.Invitation.DECLINED
    assert seat.deal_contribution == ""
    seat = Seat.objects.get(game=lobby, position=1)
    assert seat.user is None and seat.is_open
    duel = Game.objects.get(pk=duel.pk)
    assert duel.status == Game.Status.FINISHED
    seats = {s.user_id: s for s in Seat.objects.filter(game=duel)}
    assert seats[bob.pk].place == 1
    assert seats[alice.pk].resigned_at is not None and seats[alice.pk].place == 2
    trio_seat = Seat.objects.get(game=trio, user=alice)
    assert Game.objects.get(pk=trio.pk).status == Game.Status.ACTIVE
    assert trio_seat.resigned_at is not None and trio_seat.autoplay
    # The creators and the other players were told, naming "deleted player".
    told = Notification.objects.filter(recipient=carol, kind="invitation_declined")
    assert told.count() == 2
    assert all(n.context["name"] == "deleted player" for n in told)
    resigned = Notification.objects.get(recipient=bob, game=trio, kind="resigned")
    assert resigned.context["name"] == "deleted player"
    # The finished game is as it was, its seat still alice's row.
    assert (
        list(
            Seat.objects.filter(game=finished_colored).values_list(
                "position", "final_score", "place"
            )
        )
        == finished_scores
    )
    assert Seat.objects.filter(game=finished_colored, user=alice).exists()
    # Nothing of alice is left unfinished.
    assert not Seat.objects.filter(
        user=alice, game__status__in=["open", "active"], resigned_at__isnull=True
    ).exists()


def test_personal_data_goes(alice, bob, carol, finished_colored):
    profile_update(user=alice, display_name="Alice L.", time_zone="Asia/Seoul", language="ko")
    block_create(blocker=alice, username="bob")
    block_create(blocker=carol, username="alice")
    token_create(user=alice, name="script")
    Analysis.objects.create(game=finished_colored, requested_by=alice)
    InvitationDecline.objects.create(invitee=alice, inviter=carol, game=finished_colored)
    Notification.objects.create(recipient=alice, kind="your_turn", game=finished_colored, ply=1)

    delete(alice)

    alice = fresh(alice)
    assert alice.deleted_at is not None and not alice.is_active
    assert alice.username.startswith("~deleted-")
    assert not alice.has_usable_password()
    assert (alice.email, alice.first_name, alice.last_name) == ("", "", "")
    assert not EmailAddress.objects.filter(user=alice).exists()
    profile = Profile.objects.get(user=alice)
    assert (profile.display_name, profile.time_zone) == ("", "UTC")
    assert not profile.email_digest
    assert not Block.objects.filter(blocker=alice).exists()
    assert not Block.objects.filter(blocked=alice).exists()
    assert not ApiToken.objects.filter(user=alice).exists()
    assert not Notification.objects.filter(recipient=alice).exists()
    assert not InvitationDecline.objects.filter(invitee=alice).exists()
    analysis = Analysis.objects.get(game=finished_colored)
    assert analysis.requested_by is None


def test_others_history_and_ratings_stay_whole_and_show_a_deleted_player(
    alice, bob, finished_colored, api_client_for
):
    bob_rating = Rating.objects.filter(user=bob).values_list("mu", "sigma", "rating").first()
    seats_before = list(
        Seat.objects.filter(game=finished_colored).values_list(
            "user_id", "final_score", "place", "rating_before", "rating_after"
        )
    )
    assert PlayerRecord.objects.filter(user=alice).exists()  # it was rated

    delete(alice)

    assert Rating.objects.filter(user=bob).values_list("mu", "sigma", "rating").first() == (
        bob_rating
    )
    assert (
        list(
            Seat.objects.filter(game=finished_colored).values_list(
                "user_id", "final_score", "place", "rating_before", "rating_after"
            )
        )
        == seats_before
    )
    # Shown as "deleted player" on the game's page, its replay, its export, the API, the
    # history and bob's page; no link to a player page.
    viewer = client_for(bob)
    for url in (
        f"/games/{finished_colored.id}/",
        f"/games/{finished_colored.id}/replay/",
        "/history/",
        "/players/bob/",
    ):
        page = viewer.get(url)
        assert page.status_code == 200, url
        text = page.content.decode()
        assert "deleted player" in text, url
        assert "~deleted-" not in text, url
        assert ">alice<" not in text, url
    export = APIClient().get(f"/api/games/{finished_colored.id}/export/").json()
    assert [p["name"] for p in export["players"]] == ["bob", "deleted player"] or [
        p["name"] for p in export["players"]
    ] == ["deleted player", "bob"]
    assert None in [p["username"] for p in export["players"]]
    view = api_client_for(bob).get(f"/api/games/{finished_colored.id}/").json()
    names = {p["display_name"]: p["username"] for p in view["players"]}
    assert names == {"bob": "bob", "deleted player": None}
    assert "~deleted-" not in str(view)
    assert view["created_by"] is None  # alice made the game


def test_a_deleted_player_is_on_no_leaderboard_and_has_no_page(
    alice, bob, finished_colored, settings
):
    settings.RATINGS_MIN_GAMES = 1
    settings.RATINGS_MIN_OPPONENTS = 1
    board = Client().get("/leaderboard/").content.decode()
    assert "/players/alice/" in board

    delete(alice)

    board = Client().get("/leaderboard/").content.decode()
    assert "/players/alice/" not in board and "deleted player" not in board
    assert "/players/bob/" in board
    assert Client().get("/players/alice/").status_code == 404
    assert Client().get(f"/players/{fresh(alice).username}/").status_code == 404


def test_the_deleted_account_cannot_sign_in_nor_use_its_sessions_or_tokens(alice):
    _, key = token_create(user=alice, name="script")
    token_client = APIClient()
    token_client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    assert token_client.get("/api/me/").status_code == 200
    elsewhere = client_for(alice)  # another browser, signed in

    client, response = delete(alice)

    assert response.status_code == 302
    assert client.get("/settings/").status_code == 302  # signed out here
    assert elsewhere.get("/settings/").status_code == 302  # and everywhere
    assert token_client.get("/api/me/").status_code == 401
    for login in ("alice", "alice@example.com"):
        signing_in = Client()
        signing_in.post("/accounts/login/", {"login": login, "password": PASSWORD})
        assert signing_in.get("/settings/").status_code == 302, login


@pytest.mark.parametrize("name", ["alice", "Alice", "\u0430lice"])
def test_the_name_cannot_be_registered_again(alice, name):
    delete(alice)

    response = Client().post(
        "/accounts/signup/",
        {
            "username": name,
            "email": "new@example.com",
            "password1": "another-long-pass-93",
            "password2": "another-long-pass-93",
        },
    )

    assert response.status_code == 200  # the form again, with the error
    assert "looks too much like the username of another player" in response.content.decode()
    assert not User.objects.filter(email="new@example.com").exists()


def test_the_address_is_free_again(alice):
    """Only the name stays reserved: the email address may sign up anew."""
    delete(alice)

    response = Client().post(
        "/accounts/signup/",
        {
            "username": "newcomer",
            "email": "alice@example.com",
            "password1": "another-long-pass-93",
            "password2": "another-long-pass-93",
        },
    )

    assert response.status_code == 302
    assert User.objects.filter(username="newcomer").exists()


def test_an_email_to_another_player_names_the_deleted_player(
    alice, bob, carol, start_game, site_mail, django_capture_on_commit_callbacks
):
    trio = start_game(carol, alice, bob)
    with django_capture_on_commit_callbacks(execute=True):
        delete(alice)
    row = Notification.objects.get(recipient=bob, game=trio, kind="resigned")
    Notification.objects.filter(pk=row.pk).update(send_after=row.created_at)

    outbox.notification_send(notification_id=row.pk)

    [message] = [m for m in sent("resigned") if m.to == ["bob@example.com"]]
    assert "deleted player" in message.subject + message.body
    assert "~deleted-" not in message.subject + message.body
    assert "alice" not in message.subject + message.body


def test_deleting_twice_is_harmless(alice):
    client, _ = delete(alice)
    assert client.post(DELETE_URL, {"password": PASSWORD}).status_code == 302  # to sign in


def test_a_rematch_opens_the_deleted_players_seat_to_the_lobby(alice, bob, finished_colored):
    delete(alice)

    rematch, created = services.game_rematch(game_id=finished_colored.id, user=bob)

    assert created
    others = [s for s in rematch.seat_list if s.user_id != bob.pk]
    assert len(others) == 1 and others[0].is_open
