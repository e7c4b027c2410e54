"""API tokens: made and revoked on the settings page, kept as a digest, shown once, ended by an
expiry or a new password, and read from `Authorization: Token <key>` by the API."""

import datetime as dt
import importlib
import re

import pytest
import time_machine
from django.contrib.auth.hashers import MD5PasswordHasher
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts import services
from accounts.models import ApiToken
from tests.support.factories import PASSWORD

pytestmark = pytest.mark.django_db

ME = "/api/me/"
NEW_PASSWORD = "a-brand-new-wall-9931"


def create_token(client, name: str = "my bot", expires_in: str = "90") -> str:
    response = client.post(
        reverse("accounts:token_create"), {"name": name, "expires_in": expires_in}
    )
    assert response.status_code == 200
    assert response["Cache-Control"] == "no-store"
    shown = re.search(r'id="new-token">([\w-]{40})<', response.content.decode())
    assert shown
    return shown.group(1)


def api_with_token(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def settings_html(client) -> str:
    return client.get(reverse("accounts:settings")).content.decode()


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
        "theme": "auto",
        "next_game_after_move": False,
    }


def test_only_a_digest_of_the_key_is_stored(alice, client_for):
    key = create_token(client_for(alice))

    token = ApiToken.objects.get(user=alice)
    assert token.prefix == key[:8]
    assert token.digest == ApiToken.digest_of(key) != key
    # No column of any row of the tokens' or the sessions' tables holds the key.
    with connection.cursor() as cursor:
        for table in (ApiToken._meta.db_table, "django_session"):
            cursor.execute(f"SELECT * FROM {table}")  # noqa: S608 - our own table names
            assert key not in repr(cursor.fetchall())


def test_token_key_is_shown_once(alice, client_for):
    client = client_for(alice)
    key = create_token(client, name="home server")

    page = settings_html(client)

    assert key not in page
    assert "home server" in page
    assert f">{key[:8]}…</code>" in page


def test_a_player_keeps_several_tokens_and_revokes_one(alice, client_for):
    client = client_for(alice)
    kept, revoked = create_token(client, name="kept"), create_token(client, name="revoked")
    token = ApiToken.objects.get(user=alice, name="revoked")

    response = client.post(reverse("accounts:token_revoke"), {"token": token.pk}, follow=True)

    assert "The API token was revoked" in response.content.decode()
    assert list(ApiToken.objects.filter(user=alice).values_list("name", flat=True)) == ["kept"]
    assert api_with_token(revoked).get(ME).status_code == 401
    assert api_with_token(kept).get(ME).status_code == 200


def test_another_player_can_neither_see_nor_revoke_my_tokens(alice, bob, client_for):
    key = create_token(client_for(alice), name="alice's bot")
    token = ApiToken.objects.get(user=alice)
    hostile = client_for(bob)

    page = settings_html(hostile)
    response = hostile.post(reverse("accounts:token_revoke"), {"token": token.pk}, follow=True)

    assert "alice's bot" not in page and token.prefix not in page
    assert "You have no such token" in response.content.decode()
    assert ApiToken.objects.filter(pk=token.pk).exists()
    assert api_with_token(key).get(ME).json()["username"] == "alice"


@pytest.mark.parametrize("token_id", ["", "abc", "1.5", "\x00", str(10**30), "-1"])
def test_revoking_nonsense_is_refused_without_a_500(alice, client_for, token_id):
    create_token(client_for(alice))

    response = client_for(alice).post(reverse("accounts:token_revoke"), {"token": token_id})

    assert response.status_code in (302, 400)  # a NUL is refused before the view
    assert ApiToken.objects.filter(user=alice).count() == 1


def test_a_player_may_hold_a_limited_number_of_tokens(alice, client_for):
    client = client_for(alice)
    # All but the last through the service the page calls (each page costs a render); the last
    # one the limit allows through the page, as the one past it.
    for i in range(services.API_TOKENS_MAX - 1):
        services.token_create(user=alice, name=f"bot {i}")
    create_token(client, name=f"bot {services.API_TOKENS_MAX - 1}")

    response = client.post(
        reverse("accounts:token_create"), {"name": "one more", "expires_in": "90"}
    )

    assert response.status_code == 409
    assert "revoke one before you create another" in response.content.decode()
    assert ApiToken.objects.filter(user=alice).count() == services.API_TOKENS_MAX
    with pytest.raises(services.TokenError) as raised:
        services.token_create(user=alice)
    assert raised.value.code == "too_many_tokens"


@pytest.mark.parametrize(
    "data",
    [
        {"name": "x" * 61, "expires_in": "90"},
        {"name": "bot\x00", "expires_in": "90"},
        {"name": "bot", "expires_in": "7"},
        {"name": "bot", "expires_in": "forever"},
    ],
)
def test_a_bad_token_form_is_a_400_and_makes_nothing(alice, client_for, data):
    response = client_for(alice).post(reverse("accounts:token_create"), data)

    assert response.status_code == 400
    assert 'id="new-token"' not in response.content.decode()
    assert not ApiToken.objects.exists()


def test_token_pages_require_login_and_post(alice, client, client_for):
    assert client.post(reverse("accounts:token_create")).status_code == 302
    assert client_for(alice).get(reverse("accounts:token_create")).status_code == 405
    assert not ApiToken.objects.exists()


def test_an_expired_token_is_refused_with_a_401_that_says_so(alice, client_for):
    start = timezone.now()
    with time_machine.travel(start, tick=False):
        key = create_token(client_for(alice), expires_in="30")
        assert api_with_token(key).get(ME).status_code == 200

    with time_machine.travel(start + dt.timedelta(days=30, seconds=1), tick=False):
        response = api_with_token(key).get(ME)

    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert response.json()["detail"].startswith("This token expired on ")


def test_a_token_without_expiry_lasts(alice, client_for):
    key = create_token(client_for(alice), expires_in="never")

    with time_machine.travel(timezone.now() + dt.timedelta(days=3650)):
        assert api_with_token(key).get(ME).status_code == 200
    assert ApiToken.objects.get(user=alice).expires_at is None


def test_an_expiry_in_the_past_is_refused_by_the_service(alice):
    with pytest.raises(services.TokenError):
        services.token_create(user=alice, expires_at=timezone.now() - dt.timedelta(seconds=1))


def token_writes(client) -> list[str]:
    with CaptureQueriesContext(connection) as ctx:
        assert client.get(ME).status_code == 200
    return [q["sql"] for q in ctx.captured_queries if q["sql"].startswith("UPDATE")]


def test_last_use_is_recorded_at_most_once_a_minute(alice):
    token, key = services.token_create(user=alice, name="bot")
    client = api_with_token(key)
    start = timezone.now()
    assert token.last_used_at is None

    with time_machine.travel(start, tick=False):
        assert len(token_writes(client)) == 1
    token.refresh_from_db()
    assert token.last_used_at == start

    with time_machine.travel(start + dt.timedelta(seconds=59), tick=False):
        assert token_writes(client) == []
    token.refresh_from_db()
    assert token.last_used_at == start

    later = start + dt.timedelta(seconds=61)
    with time_machine.travel(later, tick=False):
        client.get(ME)
    token.refresh_from_db()
    assert token.last_used_at == later


def test_the_token_of_an_inactive_player_is_refused(alice):
    _token, key = services.token_create(user=alice)
    alice.is_active = False
    alice.save()

    response = api_with_token(key).get(ME)

    assert response.status_code == 401


# -- a new password revokes every token, whichever way it is set -------------------------------


@pytest.fixture
def alices_keys(alice):
    return [services.token_create(user=alice, name=name)[1] for name in ("bot", "phone")]


def assert_revoked(alice, keys) -> None:
    alice.refresh_from_db()
    assert alice.check_password(NEW_PASSWORD) or not alice.has_usable_password()
    assert not ApiToken.objects.filter(user=alice).exists()
    for key in keys:
        assert api_with_token(key).get(ME).status_code == 401


def test_changing_the_password_in_settings_revokes_the_tokens(alice, alices_keys, client_for):
    response = client_for(alice).post(
        reverse("account_change_password"),
        {"oldpassword": PASSWORD, "password1": NEW_PASSWORD, "password2": NEW_PASSWORD},
    )

    assert response.status_code == 302
    assert_revoked(alice, alices_keys)


def test_a_password_reset_link_revokes_the_tokens(alice, alices_keys, client, mailoutbox):
    client.post(reverse("account_reset_password"), {"email": "alice@example.com"})
    reset_path = re.search(
        r"http://testserver(/accounts/password/reset/key/\S+/)", mailoutbox[0].body
    ).group(1)
    page = client.get(reset_path, follow=True)
    form_path = page.redirect_chain[-1][0] if page.redirect_chain else reset_path

    response = client.post(form_path, {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD})

    assert response.status_code == 302
    assert_revoked(alice, alices_keys)


def test_the_admin_setting_a_password_revokes_the_tokens(alice, alices_keys, make_user, client_for):
    admin = make_user("root")
    admin.is_staff = admin.is_superuser = True
    admin.save()

    response = client_for(admin).post(
        reverse("admin:auth_user_password_change", args=[alice.pk]),
        {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "usable_password": "true"},
    )

    assert response.status_code == 302
    assert_revoked(alice, alices_keys)


def test_manage_py_changepassword_revokes_the_tokens(alice, alices_keys, monkeypatch):
    from django.contrib.auth.management.commands import changepassword

    # The command asks twice at a terminal (getpass); there is none under pytest.
    monkeypatch.setattr(changepassword.Command, "_get_pass", lambda self, prompt="": NEW_PASSWORD)

    call_command("changepassword", "alice", stdout=None)

    assert_revoked(alice, alices_keys)


def test_an_unusable_password_revokes_the_tokens(alice, alices_keys):
    alice.set_unusable_password()
    alice.save()

    assert_revoked(alice, alices_keys)


def test_a_password_hash_upgrade_at_login_keeps_the_tokens(alice, client):
    # A salt shorter than the hasher wants now: Django rehashes the password at login.
    weak_hash = MD5PasswordHasher().encode(PASSWORD, "ab")
    alice.password = weak_hash
    alice.save()
    _token, key = services.token_create(user=alice)

    response = client.post(reverse("account_login"), {"login": "alice", "password": PASSWORD})

    assert response.status_code == 302
    alice.refresh_from_db()
    assert alice.password != weak_hash and alice.check_password(PASSWORD)
    assert api_with_token(key).get(ME).status_code == 200


def test_other_saves_of_the_player_keep_the_tokens(alice, alices_keys):
    alice.first_name = "Alice"
    alice.save()

    assert ApiToken.objects.filter(user=alice).count() == 2


# -- DRF's tokens, stored in plain text before, carry over ------------------------------------


def test_the_migration_turns_old_keys_into_digests(alice, bob):
    migration = importlib.import_module("accounts.migrations.0012_api_tokens")
    created = timezone.now() - dt.timedelta(days=400)
    old_key = "401f7ac837da42b97f613d789819ff93537bee6a"
    with connection.cursor() as cursor:
        cursor.execute(
            "CREATE TABLE authtoken_token (key varchar(40) PRIMARY KEY, user_id bigint,"
            " created timestamptz)"
        )
        cursor.execute(
            "INSERT INTO authtoken_token VALUES (%s, %s, %s)", [old_key, alice.pk, created]
        )

    from django.apps import apps

    with connection.schema_editor() as editor:
        migration.keys_to_digests(apps, editor)

    token = ApiToken.objects.get(user=alice)
    assert (token.prefix, token.digest, token.created_at) == (
        old_key[:8],
        ApiToken.digest_of(old_key),
        created,
    )
    assert "authtoken_token" not in connection.introspection.table_names()
    assert api_with_token(old_key).get(ME).json()["username"] == "alice"


# -- the API's side -------------------------------------------------------------------------------


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
        "theme": "auto",
        "next_game_after_move": False,
    }


def test_the_schema_still_describes_the_token_scheme(client):
    schema = client.get("/api/schema/", HTTP_ACCEPT="application/json").json()

    assert schema["components"]["securitySchemes"]["tokenAuth"] == {
        "type": "apiKey",
        "in": "header",
        "name": "Authorization",
        "description": 'Token-based authentication with required prefix "Token"',
    }
