"""A player downloads their own data as JSON (issue #30): their account, profile, email
addresses, games with their own moves, ratings, blocks and notification preferences; nothing
hidden of the games, nothing of other players beyond what the games' pages show."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from accounts.services import block_create, profile_update
from azul_site.account_pages import DataDownloadThrottle
from games.models import LogEntry, Seat
from tests.support.factories import client_for, invite_game
from tests.support.play import play_forward

pytestmark = pytest.mark.django_db

URL = "/settings/data/"


def download(person) -> dict:
    response = client_for(person).get(URL)
    assert response.status_code == 200, response.content
    assert response["Content-Type"] == "application/json"
    assert response["Content-Disposition"].startswith("attachment; filename=")
    assert response["Cache-Control"] == "no-store"
    return json.loads(response.content)


@pytest.fixture
def alices_world(alice, bob, carol, start_game, finished_colored):
    profile_update(user=alice, display_name="Alice L.", email_your_turn="digest")
    profile_update(user=bob, display_name="Bob B.")
    active = play_forward(start_game(alice, bob), moves=5)
    invited = invite_game(carol, alice)
    block_create(blocker=alice, username="carol")
    block_create(blocker=carol, username="bob")  # carol's, not alice's
    return {"finished": finished_colored, "active": active, "invited": invited}


def test_the_download_holds_the_players_own_data(alice, alices_world):
    data = download(alice)

    assert data["account"]["username"] == "alice"
    assert data["account"]["email"] == "alice@example.com"
    assert data["account"]["name"] == "Alice L."
    assert data["profile"]["display_name"] == "Alice L."
    assert data["notification_preferences"]["email_your_turn"] == "digest"
    assert data["email_addresses"] == [
        {"email": "alice@example.com", "verified": True, "primary": True}
    ]
    assert [b["username"] for b in data["blocks"]] == ["carol"]
    games = {g["id"]: g for g in data["games"]}
    assert set(games) == {str(g.id) for g in alices_world.values()}
    finished = games[str(alices_world["finished"].id)]
    assert finished["status"] == "finished"
    assert {s["name"] for s in finished["seats"]} == {"Alice L.", "Bob B."}
    assert all(s["final_score"] is not None and s["place"] for s in finished["seats"])
    assert data["ratings"]["rating"] is not None
    assert data["ratings"]["records"]
    # Every move of hers, and only hers, as the log has them.
    for key in ("finished", "active"):
        game = alices_world[key]
        position = Seat.objects.get(game=game, user=alice).position
        mine = list(
            LogEntry.objects.filter(game=game, kind="move", player=position)
            .order_by("number")
            .values_list("number", "data__move")
        )
        listed = [(m["ply"], m["move"]) for m in games[str(game.id)]["your_moves"]]
        assert listed == mine and mine
    assert games[str(alices_world["invited"].id)]["invitation"] == "pending"


def test_nothing_hidden_nor_of_others_beyond_the_games_pages(alice, bob, alices_world):
    text = json.dumps(download(alice))

    for hidden in ("deal_seed", "seed", "contribution", "bag", "tiles", '"digest":'):
        assert hidden not in text, hidden
    for game in alices_world.values():
        game.refresh_from_db()
        if game.deal_seed:
            assert game.deal_seed not in text
    assert "bob@example.com" not in text
    assert "carol@example.com" not in text
    # carol's block of bob is hers, not alice's.
    data = json.loads(text)
    assert all(b["username"] != "bob" for b in data["blocks"])


def test_each_player_downloads_only_their_own(alice, bob, alices_world):
    bobs = download(bob)

    assert bobs["account"]["username"] == "bob"
    assert "alice@example.com" not in json.dumps(bobs)
    assert bobs["blocks"] == []
    # The address names no one: there is no way to ask for another player's data.
    assert client_for(bob).get(URL + "?user=alice").json()["account"]["username"] == "bob"


def test_signing_in_is_needed():
    response = Client().get(URL)
    assert response.status_code == 302 and "/accounts/login/" in response["Location"]


def test_downloads_are_limited_per_player(alice, bob, monkeypatch):
    monkeypatch.setattr(DataDownloadThrottle, "rate", "2/day", raising=False)
    client = client_for(alice)
    assert client.get(URL).status_code == 200
    assert client.get(URL).status_code == 200

    refused = client.get(URL)

    assert refused.status_code == 429
    assert "as often as you may" in refused.content.decode()
    assert int(refused["Retry-After"]) > 0
    assert client_for(bob).get(URL).status_code == 200  # counted per player


def test_the_download_holds_the_players_devices_and_webhooks_but_not_their_keys(alice, bob):
    from notifications.models import PushSubscription, Webhook
    from notifications.services import channel_choices_set

    PushSubscription.objects.create(
        user=alice, name="Phone", endpoint="https://push.example/a1", p256dh="KEY", auth="AUTH"
    )
    PushSubscription.objects.create(
        user=bob, name="Bob's", endpoint="https://push.example/b1", p256dh="k", auth="a"
    )
    Webhook.objects.create(
        user=alice, name="Discord", url="https://hooks.example/x", style="discord", secret="SIGN"
    )
    channel_choices_set(user_id=alice.pk, channel="push", choices=["your_turn", "chat"])

    data = download(alice)
    channels = data["notification_channels"]

    assert channels["channel_choices"]["push"] == ["chat", "your_turn"]
    assert [d["name"] for d in channels["push_devices"]] == ["Phone"]
    assert [(w["name"], w["url"], w["style"]) for w in channels["webhooks"]] == [
        ("Discord", "https://hooks.example/x", "discord")
    ]
    text = json.dumps(data)
    assert "KEY" not in text and "AUTH" not in text and "SIGN" not in text
    assert "push.example" not in text  # an endpoint is the push service's secret address
