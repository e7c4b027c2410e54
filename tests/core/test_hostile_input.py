"""Hostile input to every place a request's text reaches PostgreSQL: a NUL character (which
PostgreSQL refuses in text) and a 10,000-character value each answer 4xx, never 500, and write
nothing. The guard for NUL is one middleware for paths, query strings and forms
(`core.http.nul_guard`) and the API's JSON parser for bodies (`core.api.parsers`); lengths are each
form's and serializer's."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import quote, urlencode

import pytest
from django.apps import apps
from django.test import Client
from rest_framework.test import APIClient

from tests.support.factories import api_client_for, client_for, invite_game, start_game
from tests.support.play import finish

pytestmark = pytest.mark.django_db

NUL_NAME = "carol\x00"
LONG = "x" * 10_000
HOSTILE = [pytest.param(NUL_NAME, id="nul"), pytest.param(LONG, id="long")]


@dataclass
class World:
    alice: Any
    bob: Any
    game: Any  # alice's game, seat 1 invited (bob), waiting for players
    alice_page: Client  # signed in before the rows are counted (signing in writes)
    alice_api: APIClient

    @cached_property
    def finished(self) -> Any:
        """A finished game of alice and bob, for its export and replay: played only for the
        inputs that need it (a whole game is most of a case's time)."""
        return finish(start_game(self.alice, self.bob))

    def page(self) -> Client:
        return self.alice_page

    def api(self) -> APIClient:
        return self.alice_api


@pytest.fixture
def world(alice, bob, carol) -> World:
    return World(
        alice=alice,
        bob=bob,
        game=invite_game(alice, bob),
        alice_page=client_for(alice),
        alice_api=api_client_for(alice),
    )


def _query(**params: str) -> str:
    return "?" + urlencode(params)


def _import_with_name(world: World, value: str) -> Any:
    export = APIClient().get(f"/api/games/{world.finished.id}/export/").json()
    # Only the first name is hostile (a study names no player of the site).
    for number, player in enumerate(export["players"], start=1):
        player["name"] = f"Player {number}"
    export["players"][0]["name"] = value
    return world.api().post("/api/games/import/", export, format="json")


Send = Callable[[World, str], Any]
# Each input that a request carries to the database: (name, how to send a value to it).
INPUTS: list[tuple[str, Send]] = [
    # Addresses and query strings.
    ("player page", lambda w, v: w.page().get(f"/players/{quote(v)}/")),
    ("history ?player=", lambda w, v: w.page().get("/history/" + _query(player=v))),
    ("history ?variant=", lambda w, v: w.page().get("/history/" + _query(variant=v))),
    (
        "history ?finished_after=",
        lambda w, v: w.page().get("/history/" + _query(finished_after=v)),
    ),
    ("leaderboard ?variant=", lambda w, v: w.page().get("/leaderboard/" + _query(variant=v))),
    ("lobby ?join=", lambda w, v: w.page().get("/lobby/" + _query(join=v))),
    ("my games ?page=", lambda w, v: w.page().get("/games/" + _query(page=v))),
    (
        "replay ?ply=",
        lambda w, v: w.page().get(f"/games/{w.finished.id}/replay/" + _query(ply=v)),
    ),
    ("board ?since=", lambda w, v: w.page().get(f"/games/{w.game.id}/board/" + _query(since=v))),
    ("unsubscribe link", lambda w, v: Client().get(f"/notifications/unsubscribe/{quote(v)}/")),
    # Forms.
    ("login", lambda w, v: Client().post("/accounts/login/", {"login": v, "password": "x"})),
    (
        "admin login",
        lambda w, v: Client().post("/admin/login/", {"username": v, "password": "x"}),
    ),
    (
        "signup username",
        lambda w, v: Client().post(
            "/accounts/signup/",
            {"username": v, "email": "new@example.com", "password1": "x", "password2": "x"},
        ),
    ),
    (
        "signup email",
        lambda w, v: Client().post(
            "/accounts/signup/",
            {"username": "newcomer", "email": v, "password1": "x", "password2": "x"},
        ),
    ),
    ("password reset", lambda w, v: Client().post("/accounts/password/reset/", {"email": v})),
    (
        "settings display name",
        lambda w, v: w.page().post("/settings/", {"display_name": v, "time_zone": "UTC"}),
    ),
    (
        "settings time zone",
        lambda w, v: w.page().post("/settings/", {"display_name": "Al", "time_zone": v}),
    ),
    (
        "settings language",
        lambda w, v: w.page().post(
            "/settings/", {"display_name": "Al", "time_zone": "UTC", "language": v}
        ),
    ),
    ("token name", lambda w, v: w.page().post("/settings/token/", {"name": v})),
    ("token revoke", lambda w, v: w.page().post("/settings/token/revoke/", {"token": v})),
    ("block", lambda w, v: w.page().post("/settings/blocks/", {"username": v})),
    ("unblock", lambda w, v: w.page().post("/settings/blocks/remove/", {"username": v})),
    ("language switch", lambda w, v: w.page().post("/i18n/setlang/", {"language": v})),
    ("vacation", lambda w, v: w.page().post("/settings/vacation/", {"days": v})),
    (
        "seat invite form",
        lambda w, v: w.page().post(f"/games/{w.game.id}/seats/1/invite/", {"username": v}),
    ),
    (
        "new game form",
        lambda w, v: w.page().post("/games/new/", {"num_players": "2", "variant": v}),
    ),
    # The API.
    ("API player search", lambda w, v: w.api().get("/api/players/" + _query(search=v))),
    ("API games ?status=", lambda w, v: w.api().get("/api/games/" + _query(status=v))),
    ("API history ?player=", lambda w, v: w.api().get("/api/games/" + _query(player=v))),
    ("API game id", lambda w, v: w.api().get(f"/api/games/{quote(v)}/")),
    ("API leaderboard", lambda w, v: w.api().get("/api/leaderboard/" + _query(variant=v))),
    ("API block", lambda w, v: w.api().post("/api/blocks/", {"username": v}, format="json")),
    ("API unblock", lambda w, v: w.api().delete(f"/api/blocks/{quote(v)}/")),
    (
        "API new game seat",
        lambda w, v: w.api().post(
            "/api/games/",
            {"players": 2, "seats": [{"kind": "invite", "username": v}]},
            format="json",
        ),
    ),
    (
        "API seat invite",
        lambda w, v: w.api().post(
            f"/api/games/{w.game.id}/seats/1/invite/", {"username": v}, format="json"
        ),
    ),
    ("API import name", _import_with_name),
    (
        "API JSON key",
        lambda w, v: w.api().post(
            f"/api/games/{w.game.id}/seats/1/invite/", {v: "carol"}, format="json"
        ),
    ),
]


NEEDS_A_FINISHED_GAME = {"API import name", "replay ?ply="}


def _rows() -> dict[str, int]:
    """How many rows each table holds, sessions aside (a signed-in client has one)."""
    return {
        model._meta.label: model._default_manager.count()
        for model in apps.get_models()
        if model._meta.label != "sessions.Session"
    }


@pytest.mark.parametrize("value", HOSTILE)
@pytest.mark.parametrize(("where", "send"), INPUTS, ids=[name for name, _ in INPUTS])
def test_hostile_value_is_refused_with_4xx_and_writes_nothing(world, where, send, value):
    if where in NEEDS_A_FINISHED_GAME:
        assert world.finished  # played before the rows are counted
    before = _rows()

    response = send(world, value)

    if value == NUL_NAME:
        assert response.status_code == 400
    else:
        # Refused (4xx), or a form shown again with its error, or a search that finds nothing.
        assert response.status_code < 500
    assert _rows() == before


@pytest.mark.parametrize(
    "url",
    ["/players/%00/", "/history/?player=carol%00", "/lobby/?a%00=1"],
)
def test_a_nul_in_an_address_is_a_400_that_says_why(client, url):
    response = client.get(url)

    assert response.status_code == 400
    assert "NUL" in response.content.decode()


def test_a_nul_in_a_form_field_is_a_400(alice, bob):
    game = invite_game(alice, bob)

    response = client_for(alice).post(f"/games/{game.id}/seats/1/invite/", {"username": NUL_NAME})

    assert response.status_code == 400
    assert "NUL" in response.content.decode()


@pytest.mark.parametrize(
    "body",
    [{"username": NUL_NAME}, {"username": "carol", "x\x00": 1}, {"a": [[{"b": ["\x00"]}]]}],
    ids=["value", "key", "nested"],
)
def test_a_nul_anywhere_in_a_json_body_is_the_apis_400(alice, bob, body):
    game = invite_game(alice, bob)

    response = api_client_for(alice).post(
        f"/api/games/{game.id}/seats/1/invite/", body, format="json"
    )

    assert response.status_code == 400
    assert "NUL" in response.json()["detail"]  # the API's error shape


def test_a_nul_in_an_api_address_is_the_apis_400(alice):
    response = api_client_for(alice).get("/api/players/?search=carol%00")

    assert response.status_code == 400
    assert "NUL" in response.json()["detail"]


def test_deep_json_is_not_a_500(alice, bob):
    game = invite_game(alice, bob)
    body = "[" * 1000 + "]" * 1000

    response = api_client_for(alice).post(
        f"/api/games/{game.id}/seats/1/invite/", body, content_type="application/json"
    )

    assert response.status_code == 400


def test_a_login_longer_than_its_cap_is_a_form_error_axes_never_records(client, alice):
    from axes.models import AccessAttempt, AccessFailureLog

    response = client.post("/accounts/login/", {"login": "a" * 300, "password": "x"})

    assert response.status_code == 200
    assert "at most 254 characters" in response.content.decode()
    assert not AccessAttempt.objects.exists()
    assert not AccessFailureLog.objects.exists()
