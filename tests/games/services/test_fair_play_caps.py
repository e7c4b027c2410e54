"""Fair play (issue #28): what one player may have at once. Games with a computer seat, games of
theirs waiting in the lobby and games against the `master` computer are capped per player: past
a cap, a 409 that says which limit and how to free a place (the API and the new-game form alike),
nothing written; and a hostile second account that fills its own places, or invites another
player to games, never stops that player from creating, joining or accepting."""

import pytest
from django.urls import reverse

from games import services
from games.models import Game
from tests.support.factories import api_client_for, client_for, invite_game
from tests.support.urls import games_url

pytestmark = pytest.mark.django_db

COMPUTER = {"kind": "computer", "level": "random"}
OPEN = {"kind": "open"}


@pytest.fixture(autouse=True)
def small_caps(settings):
    settings.GAMES_MAX_COMPUTER_GAMES = 2
    settings.GAMES_MAX_LOBBY_GAMES = 2
    settings.GAMES_MAX_MASTER_GAMES = 1


def create(person, *seats) -> object:
    return api_client_for(person).post(
        games_url(), {"players": len(seats) + 1, "seats": list(seats)}, format="json"
    )


def test_the_defaults_are_the_documented_ones():
    from azul_site import settings as site

    assert (
        site.GAMES_MAX_COMPUTER_GAMES,
        site.GAMES_MAX_LOBBY_GAMES,
        site.GAMES_MAX_MASTER_GAMES,
        site.LIVE_MAX_WAITS_PER_PLAYER,
    ) == (10, 5, 2, 20)


def test_games_with_computers_are_capped_per_player_and_a_resignation_frees_a_place(alice, bob):
    for _ in range(2):
        assert create(alice, COMPUTER).status_code == 201
    games = Game.objects.count()

    refused = create(alice, COMPUTER)

    assert refused.status_code == 409
    body = refused.json()
    assert body["code"] == "limit_reached"
    assert "2 unfinished games with computer players" in body["detail"]
    assert "finish or resign one" in body["detail"]
    assert Game.objects.count() == games  # nothing written
    # The hostile account's games are its own: another player creates as usual.
    assert create(bob, COMPUTER).status_code == 201
    # A game with no computer seat is not capped.
    assert create(alice, {"kind": "invite", "username": "bob"}).status_code == 201
    # Resigning one frees its place.
    mine = Game.objects.filter(created_by=alice, status=Game.Status.ACTIVE).first()
    services.game_resign(game_id=mine.id, user=alice)
    assert create(alice, COMPUTER).status_code == 201


def test_invitations_from_another_account_do_not_fill_a_players_places(alice, bob, carol):
    """carol invites alice to games with computers; until alice accepts, they are not hers."""
    for _ in range(2):
        assert create(carol, {"kind": "invite", "username": "alice"}, COMPUTER).status_code == 201
    assert create(alice, COMPUTER).status_code == 201
    assert create(alice, COMPUTER).status_code == 201
    # Accepting one more would pass her cap: refused, the invitation still waiting for her.
    invited = Game.objects.filter(created_by=carol).first()
    answer = api_client_for(alice).post(
        games_url(invited.id, "invitation"), {"accept": True}, format="json"
    )
    assert answer.status_code == 409 and answer.json()["code"] == "limit_reached"
    assert invited.seats.get(user=alice).invitation == "pending"


def test_joining_a_game_with_computers_counts_too(alice, bob, carol):
    for _ in range(2):
        assert create(alice, COMPUTER).status_code == 201
    game = create(carol, OPEN, COMPUTER).json()

    refused = api_client_for(alice).post(games_url(game["id"], "join"))

    assert refused.status_code == 409 and refused.json()["code"] == "limit_reached"
    assert "computer players" in refused.json()["detail"]
    assert api_client_for(bob).post(games_url(game["id"], "join")).status_code == 200


def test_master_games_are_capped_per_player(alice, bob, carol):
    master = {"kind": "computer", "level": "master"}
    invite = {"kind": "invite", "username": "carol"}
    assert create(alice, invite, master).status_code == 201  # waits for carol: no move yet

    refused = create(alice, invite, master)

    assert refused.status_code == 409
    assert refused.json()["code"] == "limit_reached"
    assert "1 unfinished games against the master computer" in refused.json()["detail"]
    assert create(bob, invite, master).status_code == 201
    # Cancelling it frees the place.
    mine = Game.objects.get(created_by=alice)
    services.game_cancel(game_id=mine.id, user=alice)
    assert create(alice, invite, master).status_code == 201


def test_games_waiting_in_the_lobby_are_capped_per_creator(alice, bob, carol):
    for _ in range(2):
        assert create(alice, OPEN).status_code == 201

    refused = create(alice, OPEN)

    assert refused.status_code == 409
    assert refused.json()["code"] == "limit_reached"
    assert "2 games waiting for players in the lobby" in refused.json()["detail"]
    assert "cancel one of them" in refused.json()["detail"]
    # Another player's lobby is untouched, and the lobby lists both of hers and bob's.
    assert create(bob, OPEN).status_code == 201
    lobby = api_client_for(carol).get("/api/lobby/").json()
    assert lobby["count"] == 3
    # A game of hers that someone joined leaves the lobby and frees its place.
    first = Game.objects.filter(created_by=alice).first()
    services.game_join(game_id=first.id, user=carol)
    assert create(alice, OPEN).status_code == 201


def test_opening_a_declined_seat_to_the_lobby_counts_too(alice, bob, carol):
    for _ in range(2):
        assert create(alice, OPEN).status_code == 201
    game = invite_game(alice, bob)
    services.invitation_respond(game_id=game.id, user=bob, accept=False)

    refused = api_client_for(alice).post(games_url(game.id, "seats", 1, "open"))

    assert refused.status_code == 409 and refused.json()["code"] == "limit_reached"
    assert game.seats.get(position=1).invitation == "declined"  # untouched


def test_the_new_game_form_shows_the_same_message(alice):
    for _ in range(2):
        assert create(alice, COMPUTER).status_code == 201
    games = Game.objects.count()

    response = client_for(alice).post(
        reverse("games:new"),
        {
            "num_players": "2",
            "variant": "colored",
            "days_per_move": "3",
            "seat2_kind": "computer:random",
            "seat2_username": "",
        },
    )

    assert response.status_code == 200
    assert "2 unfinished games with computer players" in response.content.decode()
    assert Game.objects.count() == games


def test_the_join_button_shows_the_same_message(alice, carol):
    for _ in range(2):
        assert create(alice, COMPUTER).status_code == 201
    game = create(carol, OPEN, COMPUTER).json()

    response = client_for(alice).post(reverse("games:join", args=[game["id"]]), follow=True)

    assert "2 unfinished games with computer players" in response.content.decode()
    assert Game.objects.get(pk=game["id"]).seats.filter(user=alice).count() == 0
