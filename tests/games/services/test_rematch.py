"""A rematch: a new game with the same players and settings, the one who asks as its creator and
the others invited; asking twice (or another player asking after) gives the same game."""

import pytest
from django.urls import reverse

from games import services
from games.models import Game, Seat
from notifications.models import Notification
from tests.support.mail import sent

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("site_mail")]


def api(game, *parts):
    return "/api/games/" + "".join(f"{p}/" for p in (game.id, *parts))


@pytest.fixture
def finished(alice, bob, committed):
    """A finished 3-player gray game, 5 days per move: alice (creator), bob, and a strong
    computer; both people resigned, so the computer won."""
    game = services.game_create(
        creator=alice,
        num_players=3,
        variant="gray",
        days_per_move=5,
        seats=[
            services.SeatSpec("invite", username="bob"),
            services.SeatSpec("computer", level="strong"),
        ],
    )
    committed(services.invitation_respond, game_id=game.id, user=bob, accept=True)
    committed(services.game_resign, game_id=game.id, user=alice)
    game = committed(services.game_resign, game_id=game.id, user=bob)
    assert game.status == Game.Status.FINISHED
    return game


def test_a_rematch_has_the_same_players_and_settings_once(
    finished, alice, bob, api_client_for, django_capture_on_commit_callbacks
):
    with django_capture_on_commit_callbacks(execute=True):
        response = api_client_for(bob).post(api(finished, "rematch"))
    assert response.status_code == 201
    rematch = response.json()
    assert rematch["id"] != str(finished.id) and rematch["status"] == "open"
    assert (rematch["variant"], rematch["num_players"], rematch["days_per_move"]) == ("gray", 3, 5)
    assert rematch["created_by"] == "bob"
    assert [
        (p["kind"], p["username"], p["bot_level"], p["invitation"]) for p in rematch["players"]
    ] == [
        ("human", "bob", None, "none"),
        ("human", "alice", None, "pending"),
        ("computer", None, "strong", "none"),
    ]
    assert Game.objects.get(pk=rematch["id"]).rematch_of_id == finished.id
    [invitation] = sent("invitation", to=alice)
    assert "bob invites you" in invitation.body

    # Asking again, or alice asking (she is invited to it): the same game, not a second one.
    again = api_client_for(bob).post(api(finished, "rematch"))
    assert again.status_code == 200 and again.json()["id"] == rematch["id"]
    hers = api_client_for(alice).post(api(finished, "rematch"))
    assert hers.status_code == 200 and hers.json()["id"] == rematch["id"]
    assert Game.objects.filter(rematch_of=finished).count() == 1
    assert Notification.objects.filter(kind="invitation", recipient=alice).count() == 1

    # Once cancelled, a new one may be asked for.
    services.game_cancel(game_id=rematch["id"], user=bob)
    fresh = api_client_for(alice).post(api(finished, "rematch"))
    assert fresh.status_code == 201 and fresh.json()["created_by"] == "alice"


def test_a_rematch_against_computers_only_starts_at_once(alice, committed, api_client_for):
    game = committed(
        services.game_create,
        creator=alice,
        num_players=2,
        variant="colored",
        days_per_move=1,
        seats=[services.SeatSpec("computer", level="greedy")],
    )
    committed(services.game_resign, game_id=game.id, user=alice)
    response = api_client_for(alice).post(api(game, "rematch"))
    assert response.status_code == 201 and response.json()["status"] == "active"
    assert response.json()["players"][1]["bot_level"] == "greedy"


def test_a_rematch_is_refused_clearly(finished, alice, bob, carol, start_game, api_client_for):
    stranger = api_client_for(carol).post(api(finished, "rematch"))
    assert stranger.status_code == 403 and stranger.json()["code"] == "not_a_player"
    active = start_game(alice, carol)
    early = api_client_for(alice).post(api(active, "rematch"))
    assert early.status_code == 409 and "Only a finished game" in early.json()["detail"]
    assert api_client_for(alice).post("/api/games/nope/rematch/").status_code == 404
    assert not Game.objects.filter(rematch_of__isnull=False).exists()


def test_the_rematch_button_then_a_link_to_it(finished, alice, bob, client_for):
    client = client_for(alice)
    page = client.get(reverse("games:detail", args=[finished.id])).content.decode()
    url = reverse("games:rematch", args=[finished.id])
    assert f'action="{url}"' in page

    response = client.post(url, follow=True)
    rematch = Game.objects.get(rematch_of=finished)
    assert response.redirect_chain[-1][0] == reverse("games:detail", args=[rematch.id])
    assert "Your rematch is created" in response.content.decode()
    # Pressed again: the same game.
    again = client.post(url, follow=True)
    assert again.redirect_chain[-1][0] == reverse("games:detail", args=[rematch.id])
    assert Game.objects.filter(rematch_of=finished).count() == 1

    # The finished game's board now links to the rematch, for alice and for bob (invited).
    for user in (alice, bob):
        board = client_for(user).get(reverse("games:detail", args=[finished.id])).content.decode()
        assert reverse("games:detail", args=[rematch.id]) in board
        assert f'action="{url}"' not in board
    assert Seat.objects.get(game=rematch, user=bob).invitation == "pending"


def test_a_rematch_against_the_computer_says_it_has_started(alice, client_for):
    """Nobody is invited to a rematch against the computer alone: it starts at once."""
    from tests.support.factories import against_computer
    from tests.support.play import finish

    finished = finish(against_computer(alice))

    response = client_for(alice).post(reverse("games:rematch", args=[finished.id]), follow=True)

    page = response.content.decode()
    assert "Your rematch against the computer has started." in page
    assert "the other players are invited" not in page
    assert Game.objects.get(rematch_of=finished).status == Game.Status.ACTIVE
