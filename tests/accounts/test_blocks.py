"""Blocking a player (issue #28): from their page (Block / Unblock), the settings page's list
(Unblock), and the API (`/api/blocks/`). Bad input is a 4xx that says what was wrong, and a
player's blocks are capped (ACCOUNTS_MAX_BLOCKS) so that a script cannot write rows without
end. What a block does to invitations and the lobby: tests/games/services/test_invite_rules.py."""

import pytest
from django.urls import reverse

from accounts.models import Block
from tests.support.factories import api_client_for, client_for

pytestmark = pytest.mark.django_db

BLOCKS = "/api/blocks/"


def test_block_list_and_unblock_through_the_api(bob, mallory, carol):
    client = api_client_for(bob)

    created = client.post(BLOCKS, {"username": "Mallory"}, format="json")
    assert created.status_code == 201
    assert created.json()["username"] == "mallory"
    client.post(BLOCKS, {"username": "carol"}, format="json")

    listed = client.get(BLOCKS).json()
    assert [b["username"] for b in listed] == ["carol", "mallory"]
    assert listed[1]["display_name"] == "mallory" and listed[1]["created_at"]
    # Nobody else sees bob's blocks, and mallory's list is her own.
    assert api_client_for(mallory).get(BLOCKS).json() == []

    assert client.delete(f"{BLOCKS}mallory/").status_code == 204
    assert [b["username"] for b in client.get(BLOCKS).json()] == ["carol"]


@pytest.mark.parametrize(
    ("body", "status", "code", "says"),
    [
        ({"username": "nobody"}, 404, "unknown_player", "There is no player called 'nobody'."),
        ({"username": "bob"}, 400, "block_self", "You cannot block yourself."),
        ({"username": "  "}, 400, None, "username"),
        ({}, 400, None, "username"),
        ({"username": "mallory"}, 409, "already_blocked", "You have already blocked mallory."),
    ],
)
def test_bad_blocks_are_refused_with_what_was_wrong(bob, mallory, body, status, code, says):
    client = api_client_for(bob)
    client.post(BLOCKS, {"username": "mallory"}, format="json")

    refused = client.post(BLOCKS, body, format="json")

    assert refused.status_code == status, refused.content
    assert refused.json().get("code") == code
    assert says in refused.json()["detail"]
    assert Block.objects.count() == 1


def test_unblocking_someone_not_blocked_is_404(bob, mallory):
    refused = api_client_for(bob).delete(f"{BLOCKS}mallory/")
    assert refused.status_code == 404
    assert refused.json() == {
        "detail": "You have not blocked 'mallory'.",
        "code": "not_blocked",
    }


def test_a_player_blocks_at_most_so_many(bob, make_user, settings):
    settings.ACCOUNTS_MAX_BLOCKS = 2
    client = api_client_for(bob)
    for name in ("p1", "p2", "p3"):
        make_user(name)
    assert client.post(BLOCKS, {"username": "p1"}, format="json").status_code == 201
    assert client.post(BLOCKS, {"username": "p2"}, format="json").status_code == 201

    refused = client.post(BLOCKS, {"username": "p3"}, format="json")

    assert refused.status_code == 409
    assert refused.json()["code"] == "too_many_blocks"
    assert "unblock one before you block another" in refused.json()["detail"]
    assert Block.objects.filter(blocker=bob).count() == 2


def test_block_and_unblock_from_the_players_page(bob, mallory):
    client = client_for(bob)
    page_url = reverse("accounts:player", args=["mallory"])
    page = client.get(page_url).content.decode()
    assert 'id="block-form"' in page and 'id="unblock-form"' not in page

    blocked = client.post(
        reverse("accounts:block_create"), {"username": "mallory", "next": page_url}, follow=True
    )

    assert blocked.redirect_chain[-1][0] == page_url
    page = blocked.content.decode()
    assert "You blocked mallory" in page
    assert 'id="unblock-form"' in page and 'id="block-form"' not in page
    assert Block.objects.filter(blocker=bob, blocked=mallory).exists()
    # Mallory's page shows nothing of it to her, nor a button on her own page.
    own = client_for(mallory).get(page_url).content.decode()
    assert 'id="block-form"' not in own and 'id="unblock-form"' not in own
    # The settings page lists her, with Unblock.
    settings_page = client.get(reverse("accounts:settings")).content.decode()
    assert 'id="blocked-players"' in settings_page and ">mallory</a>" in settings_page

    unblocked = client.post(reverse("accounts:block_delete"), {"username": "mallory"}, follow=True)

    assert unblocked.redirect_chain[-1][0] == reverse("accounts:settings")
    assert "You unblocked mallory." in unblocked.content.decode()
    assert "You have blocked nobody." in unblocked.content.decode()
    assert not Block.objects.exists()


def test_the_forms_refuse_with_a_message(bob):
    response = client_for(bob).post(
        reverse("accounts:block_create"), {"username": "bob"}, follow=True
    )
    assert "You cannot block yourself." in response.content.decode()
    assert not Block.objects.exists()
    assert client_for(bob).get(reverse("accounts:block_create")).status_code == 405


def test_the_schema_says_a_username_is_not_empty(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").json()
    username = schema["components"]["schemas"]["BlockInput"]["properties"]["username"]
    assert username["minLength"] == 1
