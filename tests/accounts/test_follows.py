"""Friends (issue #32): a player follows another, one way, as on lichess: from the player's
page, the settings page and the API. Not oneself, not a deleted player, not while either has
blocked the other (a block removes a follow both ways), at most ACCOUNTS_MAX_FOLLOWS. The
invite boxes' suggestions put the players one follows first."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from accounts.models import Follow
from accounts.services import block_create
from azul_site.account_deletion import account_delete
from tests.support.factories import PASSWORD, api_client_for, client_for

pytestmark = pytest.mark.django_db

FOLLOWING = reverse("accounts:api_following")


def follow_url(username: str) -> str:
    return reverse("accounts:api_follow", args=[username])


def test_follow_list_and_unfollow_through_the_api(alice, bob, carol):
    client = api_client_for(alice)
    assert client.get(FOLLOWING).json() == []

    first = client.put(follow_url("BOB"))
    again = client.put(follow_url("bob"))
    client.put(follow_url("carol"))

    assert first.status_code == 201 and again.status_code == 200
    assert first.json()["username"] == "bob"
    assert [f["username"] for f in client.get(FOLLOWING).json()] == ["carol", "bob"]
    assert Follow.objects.filter(follower=alice).count() == 2
    # One way: bob follows nobody, and is not told.
    assert api_client_for(bob).get(FOLLOWING).json() == []

    assert client.delete(follow_url("bob")).status_code == 204
    refused = client.delete(follow_url("bob"))
    assert refused.status_code == 404 and refused.json()["code"] == "not_following"
    assert [f["username"] for f in client.get(FOLLOWING).json()] == ["carol"]


@pytest.mark.parametrize(
    ("username", "status", "code"),
    [("alice", 400, "follow_self"), ("nobody", 404, "unknown_player")],
)
def test_bad_follows_are_refused_with_what_was_wrong(alice, username, status, code):
    refused = api_client_for(alice).put(follow_url(username))

    assert refused.status_code == status
    assert refused.json()["code"] == code
    assert not Follow.objects.exists()


def test_a_deleted_player_cannot_be_followed_and_their_follows_go(alice, bob, carol):
    api_client_for(alice).put(follow_url("bob"))
    api_client_for(bob).put(follow_url("carol"))
    old_name = bob.username

    account_delete(user=bob, password=PASSWORD)

    assert not Follow.objects.exists()
    assert api_client_for(alice).put(follow_url(old_name)).status_code == 404
    assert api_client_for(carol).get(FOLLOWING).json() == []


def test_blocking_ends_following_both_ways_and_refuses_it(alice, mallory):
    api_client_for(alice).put(follow_url("mallory"))
    api_client_for(mallory).put(follow_url("alice"))

    block_create(blocker=alice, username="mallory")

    assert not Follow.objects.exists()
    for person, other in ((mallory, "alice"), (alice, "mallory")):
        refused = api_client_for(person).put(follow_url(other))
        assert refused.status_code == 409
        assert refused.json()["code"] == "follow_blocked"
        # Without saying who blocked whom.
        assert "one of you has blocked the other" in refused.json()["detail"]
    assert not Follow.objects.exists()


def test_a_player_follows_at_most_so_many(alice, make_user, settings):
    settings.ACCOUNTS_MAX_FOLLOWS = 2
    for name in ("p1", "p2", "p3"):
        make_user(name)
    client = api_client_for(alice)
    assert client.put(follow_url("p1")).status_code == 201
    assert client.put(follow_url("p2")).status_code == 201

    refused = client.put(follow_url("p3"))

    assert refused.status_code == 409
    assert refused.json()["code"] == "too_many_follows"
    assert client.put(follow_url("p2")).status_code == 200  # following again is no new follow
    assert Follow.objects.filter(follower=alice).count() == 2


def test_needs_signing_in(alice):
    assert Client().get(FOLLOWING).status_code in (401, 403)
    assert Client().put(follow_url("alice")).status_code in (401, 403)


def test_follow_and_unfollow_from_the_players_page_and_the_settings_page(alice, bob):
    client = client_for(alice)
    page_url = reverse("accounts:player", args=["bob"])
    page = client.get(page_url).content.decode()
    assert 'id="follow-form"' in page and 'id="unfollow-form"' not in page

    followed = client.post(
        reverse("accounts:follow_create"), {"username": "bob", "next": page_url}, follow=True
    )

    assert followed.redirect_chain[-1][0] == page_url
    page = followed.content.decode()
    assert "You follow bob" in page
    assert 'id="unfollow-form"' in page and 'id="follow-form"' not in page
    own = client_for(bob).get(page_url).content.decode()
    assert 'id="follow-form"' not in own and 'id="unfollow-form"' not in own
    settings_page = client.get(reverse("accounts:settings")).content.decode()
    assert 'id="followed-players"' in settings_page and ">bob</a>" in settings_page

    unfollowed = client.post(reverse("accounts:follow_delete"), {"username": "bob"}, follow=True)

    assert "You no longer follow bob." in unfollowed.content.decode()
    assert "You follow nobody." in unfollowed.content.decode()
    assert not Follow.objects.exists()


def test_the_forms_refuse_with_a_message_and_a_blocked_player_has_no_follow_button(alice, mallory):
    client = client_for(alice)
    response = client.post(reverse("accounts:follow_create"), {"username": "alice"}, follow=True)
    assert "You cannot follow yourself." in response.content.decode()
    block_create(blocker=alice, username="mallory")
    page = client.get(reverse("accounts:player", args=["mallory"])).content.decode()
    assert 'id="follow-form"' not in page
    assert client.get(reverse("accounts:follow_create")).status_code == 405
    assert not Follow.objects.exists()


def test_the_settings_page_says_it_in_korean(alice):
    client = client_for(alice)
    client.cookies["django_language"] = "ko"
    assert "팔로우" in client.get(reverse("accounts:settings")).content.decode()


def test_the_invite_suggestions_put_the_players_one_follows_first(alice, make_user):
    for n in range(12):
        make_user(f"al{n:02d}")
    make_user("alz")  # past the first ten by name
    client = api_client_for(alice)
    client.put(follow_url("alz"))
    client.put(follow_url("al05"))

    found = client.get(reverse("accounts:api_players"), {"search": "al"}).json()

    assert [p["username"] for p in found[:2]] == ["al05", "alz"]
    assert [p["following"] for p in found[:3]] == [True, True, False]
    assert len(found) == 10


def test_the_following_list_and_its_urls_are_in_the_schema(alice):
    schema = client_for(alice).get("/api/schema/", {"format": "json"}).json()
    assert "get" in schema["paths"]["/api/following/"]
    assert {"put", "delete"} <= set(schema["paths"]["/api/following/{username}/"])


def test_the_data_download_lists_the_players_followed(alice, bob):
    api_client_for(alice).put(follow_url("bob"))
    data = client_for(alice).get(reverse("accounts:data_download")).json()
    assert [f["username"] for f in data["following"]] == ["bob"]
    assert client_for(bob).get(reverse("accounts:data_download")).json()["following"] == []
