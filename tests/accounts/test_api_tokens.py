import re

import pytest
from django.urls import reverse
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

pytestmark = pytest.mark.django_db

ME = "/api/me/"


def create_token(client) -> str:
    response = client.post(reverse("accounts:token_create"))
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    return re.search(r'id="new-token">([0-9a-f]{40})<', response.content.decode()).group(1)


def api_with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_created_token_authenticates_api_requests(alice, client_for):
    alice.profile.display_name = "Alice the Tiler"
    alice.profile.save()

    key = create_token(client_for(alice))
    response = api_with_token(key).get(ME)

    assert response.status_code == 200
    assert response.json() == {
        "username": "alice",
        "display_name": "Alice the Tiler",
        "confirm_moves": "auto",
    }


def test_token_key_is_shown_once(alice, client_for):
    client = client_for(alice)
    key = create_token(client)

    page = client.get(reverse("accounts:settings")).content.decode()

    assert key not in page
    assert "You have a token" in page


def test_replacing_a_token_invalidates_the_old_one(alice, client_for):
    client = client_for(alice)
    old_key = create_token(client)

    new_key = create_token(client)

    assert new_key != old_key
    assert api_with_token(old_key).get(ME).status_code == 401
    assert api_with_token(new_key).get(ME).status_code == 200


def test_revoked_token_no_longer_authenticates(alice, client_for):
    client = client_for(alice)
    key = create_token(client)

    response = client.post(reverse("accounts:token_revoke"), follow=True)

    assert "Your API token was revoked" in response.content.decode()
    assert not Token.objects.filter(user=alice).exists()
    assert api_with_token(key).get(ME).status_code == 401


def test_token_pages_require_login_and_post(alice, client, client_for):
    assert client.post(reverse("accounts:token_create")).status_code == 302
    assert client_for(alice).get(reverse("accounts:token_create")).status_code == 405
    assert not Token.objects.exists()


def test_api_refuses_anonymous_requests():
    response = APIClient().get(ME)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"


def test_api_accepts_the_session_of_a_logged_in_player(bob, client_for):
    response = client_for(bob).get(ME)

    assert response.status_code == 200
    assert response.json()["username"] == "bob"


def test_api_client_fixture_acts_as_the_user(carol, api_client_for):
    assert api_client_for(carol).get(ME).json() == {
        "username": "carol",
        "display_name": "",
        "confirm_moves": "auto",
    }
