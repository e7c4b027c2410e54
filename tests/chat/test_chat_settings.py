"""The chat's setting on the settings page (issue #32: spectators read a finished game's chat "if
the players allowed it in their settings"): the same setting as the board's "Chat settings"."""

from __future__ import annotations

import datetime

import pytest

from chat.models import Privacy
from games.models import Game

pytestmark = pytest.mark.django_db

SETTINGS = "/settings/"
SET = "/settings/chat/"


def test_the_settings_page_offers_it_and_a_post_turns_it_on_and_off(alice, client_for):
    client = client_for(alice)
    page = client.get(SETTINGS).content.decode()
    assert 'id="chat-settings"' in page
    assert "Let spectators read my games' chat" in page
    assert 'action="/settings/chat/"' in page and "csrfmiddlewaretoken" in page

    answer = client.post(SET, {"spectators_may_read": "1"})

    assert answer.status_code == 302 and answer["Location"].endswith("/settings/")
    assert Privacy.objects.get(user=alice).spectators_may_read
    assert "Keep my games' chat from spectators" in client.get(SETTINGS).content.decode()
    client.post(SET, {"spectators_may_read": "0"})
    assert not Privacy.objects.get(user=alice).spectators_may_read


def test_in_korean(alice, client_for):
    client = client_for(alice)
    client.cookies["django_language"] = "ko"
    assert "채팅" in client.get(SETTINGS).content.decode()


def test_a_spectator_reads_once_both_players_allowed_it_on_their_settings_pages(
    start_game, alice, bob, carol, client_for, api_client_for
):
    game = start_game(alice, bob)
    api_client_for(alice).post(f"/api/games/{game.id}/chat/", {"text": "gg"}, format="json")
    Game.objects.filter(pk=game.pk).update(
        status=Game.Status.FINISHED, finished_at=datetime.datetime.now(tz=datetime.UTC)
    )
    watcher = api_client_for(carol)
    assert watcher.get(f"/api/games/{game.id}/chat/").status_code == 403

    for player in (alice, bob):
        client_for(player).post(SET, {"spectators_may_read": "1"})

    assert [m["text"] for m in watcher.get(f"/api/games/{game.id}/chat/").json()["messages"]] == [
        "gg"
    ]


def test_signing_in_and_a_post_are_needed(client, alice, client_for):
    assert client.post(SET, {"spectators_may_read": "1"}).status_code == 302  # to sign in
    assert client_for(alice).get(SET).status_code == 405
    assert not Privacy.objects.filter(user=alice).exists()
