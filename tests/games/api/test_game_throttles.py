"""Fair play (issue #28): creating, joining and rematching games, and inviting to a seat, are
throttled per player, on the API (DRF scoped throttles) and on the HTML forms with the same
count: past the rate, a 429 (the form: its message) that says which limit and when to try again;
another player is not slowed."""

import pytest
import time_machine
from django.urls import reverse

from games.models import Game
from games.throttles import GameThrottle
from tests.support.factories import api_client_for, client_for
from tests.support.urls import games_url

pytestmark = pytest.mark.django_db

INVITE_BOB = {"players": 2, "seats": [{"kind": "invite", "username": "bob"}]}


@pytest.fixture(autouse=True)
def two_an_hour(monkeypatch):
    monkeypatch.setattr(
        GameThrottle,
        "THROTTLE_RATES",
        {
            "game_create": "2/hour",
            "game_join": "2/hour",
            "game_rematch": "2/hour",
            "game_invite": "2/hour",
        },
    )


def test_the_defaults_are_the_documented_ones():
    from django.conf import settings

    rates = settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]
    assert (rates["game_create"], rates["game_join"], rates["game_rematch"]) == (
        "30/hour",
        "60/hour",
        "30/hour",
    )
    assert rates["game_invite"] == "30/hour"


def test_creating_past_the_rate_is_429_with_which_limit_and_when(alice, bob, carol):
    with time_machine.travel("2026-11-22 10:00:00", tick=False):
        client = api_client_for(alice)
        for _ in range(2):
            assert client.post(games_url(), INVITE_BOB, format="json").status_code == 201

        refused = client.post(games_url(), INVITE_BOB, format="json")

        assert refused.status_code == 429
        assert refused.json()["code"] == "throttled"
        assert "created as many games as you may" in refused.json()["detail"]
        assert "try again in 60 minutes" in refused.json()["detail"]
        assert refused["Retry-After"] == "3600"
        assert Game.objects.filter(created_by=alice).count() == 2
        # Reading her games is not a creation; another player creates as usual.
        assert client.get(games_url()).status_code == 200
        invite_alice = {"players": 2, "seats": [{"kind": "invite", "username": "alice"}]}
        assert (
            api_client_for(carol).post(games_url(), invite_alice, format="json").status_code == 201
        )
        # The new-game form counts with the API: no way around the limit.
        page = client_for(alice).post(
            reverse("games:new"),
            {
                "num_players": "2",
                "variant": "colored",
                "days_per_move": "3",
                "seat2_kind": "invite",
                "seat2_username": "bob",
            },
        )
        assert page.status_code == 200
        assert "created as many games as you may" in page.content.decode()
        assert Game.objects.filter(created_by=alice).count() == 2
    with time_machine.travel("2026-11-22 11:00:01", tick=False):
        assert client.post(games_url(), INVITE_BOB, format="json").status_code == 201


def test_the_form_counts_for_the_api_too(alice, bob):
    form = {
        "num_players": "2",
        "variant": "colored",
        "days_per_move": "3",
        "seat2_kind": "invite",
        "seat2_username": "bob",
    }
    with time_machine.travel("2026-11-22 10:00:00", tick=False):
        for _ in range(2):
            assert client_for(alice).post(reverse("games:new"), form).status_code == 302
        refused = api_client_for(alice).post(games_url(), INVITE_BOB, format="json")
        assert refused.status_code == 429


def test_joining_past_the_rate_is_429_on_the_api_and_the_lobby(alice, bob, carol, dave):
    open_seat = {"players": 2, "seats": [{"kind": "open"}]}
    games = [
        api_client_for(creator).post(games_url(), open_seat, format="json").json()["id"]
        for creator in (alice, bob, carol, alice)
    ]
    with time_machine.travel("2026-11-22 10:00:00", tick=False):
        client = api_client_for(dave)
        assert client.post(games_url(games[0], "join")).status_code == 200
        assert client.post(games_url(games[1], "join")).status_code == 200

        refused = client.post(games_url(games[2], "join"))

        assert refused.status_code == 429
        assert "joined as many games as you may" in refused.json()["detail"]
        page = client_for(dave).post(reverse("games:join", args=[games[2]]), follow=True)
        assert "joined as many games as you may" in page.content.decode()
        assert Game.objects.get(pk=games[2]).status == Game.Status.OPEN
        # Another player joins as usual.
        assert api_client_for(bob).post(games_url(games[3], "join")).status_code == 200


def test_rematches_past_the_rate_are_429(alice, bob, finished_game):
    games = [finished_game([(alice, 50, 1), (bob, 40, 2)]) for _ in range(3)]
    with time_machine.travel("2026-11-22 10:00:00", tick=False):
        client = api_client_for(alice)
        assert client.post(games_url(games[0].id, "rematch")).status_code == 201
        assert client.post(games_url(games[1].id, "rematch")).status_code == 201

        refused = client.post(games_url(games[2].id, "rematch"))

        assert refused.status_code == 429
        assert "asked for as many rematches as you may" in refused.json()["detail"]
        page = client_for(alice).post(reverse("games:rematch", args=[games[2].id]), follow=True)
        assert "asked for as many rematches as you may" in page.content.decode()
        # bob's own allowance is whole.
        assert api_client_for(bob).post(games_url(games[2].id, "rematch")).status_code == 201


def test_seat_invitations_past_the_rate_are_429_on_the_api_and_the_form(
    alice, bob, carol, dave, make_user
):
    """Giving a seat to one player after another mails each of them: counted like a creation."""
    mallory = make_user("mallory")
    game = api_client_for(mallory).post(games_url(), INVITE_BOB, format="json").json()["id"]
    with time_machine.travel("2026-11-22 10:00:00", tick=False):
        client = api_client_for(mallory)
        for name in ("carol", "dave"):
            given = client.post(
                games_url(game, "seats", 1, "invite"), {"username": name}, format="json"
            )
            assert given.status_code == 200, given.content

        refused = client.post(
            games_url(game, "seats", 1, "invite"), {"username": "alice"}, format="json"
        )

        assert refused.status_code == 429
        assert "invited as many players to seats as you may" in refused.json()["detail"]
        page = client_for(mallory).post(
            reverse("games:seat_invite", args=[game, 1]), {"username": "alice"}, follow=True
        )
        assert "invited as many players to seats as you may" in page.content.decode()
        assert Game.objects.get(pk=game).seats.get(position=1).user == dave
