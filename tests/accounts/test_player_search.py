"""`GET /api/players/?search=<prefix>`: the players the new-game form suggests as a name is typed.

Up to 10 active players whose username or display name starts with the prefix, any letter case,
by username, never the caller; a prefix of fewer than 2 characters (or more than a username's
150) is refused with 400 and the reason. Each name is looked up along its own prefix index."""

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from rest_framework.test import APIClient

from accounts import selectors
from accounts.confusables import skeleton
from accounts.models import Profile

pytestmark = pytest.mark.django_db

URL = reverse("accounts:api_players")


def search(client, prefix):
    return client.get(URL, {"search": prefix})


def named(make_user, username, display_name=""):
    user = make_user(username)
    if display_name:
        Profile.objects.filter(user=user).update(display_name=display_name)
    return user


def test_finds_players_by_the_start_of_their_username_or_display_name(
    alice, make_user, api_client_for
):
    named(make_user, "bob", "Robert")
    named(make_user, "Bobby")
    named(make_user, "roberta")
    named(make_user, "zed", "Bo Diddley")
    named(make_user, "carol", "Bob's sister")
    client = api_client_for(alice)

    response = search(client, "bO")

    assert response.status_code == 200
    assert response.json() == [
        {"username": "bob", "display_name": "Robert", "following": False},
        {"username": "Bobby", "display_name": "Bobby", "following": False},
        {"username": "carol", "display_name": "Bob's sister", "following": False},
        {"username": "zed", "display_name": "Bo Diddley", "following": False},
    ]
    by_name = [p["username"] for p in search(client, "rob").json()]
    assert by_name == ["bob", "roberta"]  # Robert by display name, roberta by username


def test_leaves_out_the_caller_and_inactive_players(alice, make_user, api_client_for):
    named(make_user, "alicia")
    gone = named(make_user, "alison")
    gone.is_active = False
    gone.save()

    found = search(api_client_for(alice), "ali").json()

    assert [p["username"] for p in found] == ["alicia"]


def test_answers_ten_players_at_most_by_username(alice, make_user, api_client_for):
    for n in range(12, 0, -1):
        named(make_user, f"player{n:02d}")

    found = search(api_client_for(alice), "PLAYER").json()

    assert [p["username"] for p in found] == [f"player{n:02d}" for n in range(1, 11)]


def test_like_wildcards_in_the_prefix_are_plain_characters(alice, make_user, api_client_for):
    named(make_user, "bob")
    named(make_user, "b_b")

    assert [p["username"] for p in search(api_client_for(alice), "b_").json()] == ["b_b"]
    assert search(api_client_for(alice), "b%").json() == []


@pytest.mark.parametrize(
    ("params", "message"),
    [
        ({"search": "a"}, "Type at least 2 characters of the name."),
        ({"search": "  a "}, "Type at least 2 characters of the name."),
        ({"search": ""}, "Give the start of a name to search for"),
        ({}, "Give the start of a name to search for"),
        ({"search": "x" * 151}, "A name has at most 150 characters."),
    ],
)
def test_a_prefix_too_short_or_too_long_is_refused_with_the_reason(
    alice, api_client_for, params, message
):
    response = api_client_for(alice).get(URL, params)

    assert response.status_code == 400
    assert message in response.json()["detail"]


def test_needs_signing_in(alice):
    assert APIClient().get(URL, {"search": "al"}).status_code == 401


def test_session_sign_in_is_enough_for_the_page_script(alice, bob, client_for):
    response = client_for(alice).get(URL, {"search": "bo"}, HTTP_ACCEPT="application/json")

    assert response.status_code == 200
    assert response.json() == [{"username": "bob", "display_name": "bob", "following": False}]


def test_is_in_the_openapi_schema(alice, client_for):
    schema = client_for(alice).get("/api/schema/", {"format": "json"}).json()

    operation = schema["paths"]["/api/players/"]["get"]
    assert operation["operationId"] == "players_search"
    assert [(p["name"], p["required"]) for p in operation["parameters"]] == [("search", True)]
    # As long as the API takes (Schemathesis found `?search=` valid by the schema, refused).
    search = operation["parameters"][0]["schema"]
    assert (search["minLength"], search["maxLength"]) == (2, 150)
    assert {"200", "400"} <= set(operation["responses"])
    item = operation["responses"]["200"]["content"]["application/json"]["schema"]["items"]
    component = item["$ref"].rsplit("/", 1)[1]
    assert set(schema["components"]["schemas"][component]["properties"]) == {
        "username",
        "display_name",
        "following",
    }


def test_three_queries_whatever_the_number_of_players(alice, make_user):
    for n in range(15):
        named(make_user, f"al{n}", f"Alan {n}")

    with CaptureQueriesContext(connection) as queries:
        found = selectors.players_search(prefix="al", exclude=alice)

    assert len(found) == 10
    assert len(queries) == 3  # by username, by display name, among the players followed


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's plans")
def test_both_lookups_read_their_prefix_index(alice):
    """Among 3,000 players, a prefix's few are found along `UPPER(col) text_pattern_ops`
    (accounts migration 0007), not by reading every row, whatever the database's collation."""
    User = get_user_model()
    # bulk_create skips `User.save`, which sets the skeleton that no two may share.
    users = User.objects.bulk_create(
        User(
            username=f"player{n:05d}",
            username_skeleton=skeleton(f"player{n:05d}"),
            email=f"p{n}@example.com",
        )
        for n in range(3000)
    )
    Profile.objects.bulk_create(
        Profile(user=user, display_name=f"Name {n:05d}") for n, user in enumerate(users)
    )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE accounts_user")
        cursor.execute("ANALYZE accounts_profile")
    players = User.objects.filter(is_active=True).exclude(pk=alice.pk)

    by_username = players.filter(username__istartswith="player0012").explain()
    by_name = players.filter(profile__display_name__istartswith="name 0012").explain()

    assert "user_username_prefix_idx" in by_username, by_username
    assert "profile_name_prefix_idx" in by_name, by_name
    assert [p["username"] for p in selectors.players_search(prefix="Player0012")] == [
        f"player{n:05d}" for n in range(120, 130)
    ]
